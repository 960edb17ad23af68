// SPDX-License-Identifier: GPL-3.0-or-later
// Lesson files (resources/lessons/*.json, ui/lessons) → parseLesson.
#include "fuzz_support.h"

#include "lessons/lessons.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    attnui::Lesson lesson;
    QString error;
    const bool ok = attnui::parseLesson(
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size)), "fuzz.json", &lesson, &error);
    if (!ok) attnfuzz::fuzzCheck(error.startsWith(QLatin1String("fuzz.json: ")), "an error that does not name the file");
    else attnfuzz::fuzzCheck(!lesson.title.trimmed().isEmpty() && !lesson.explanation.isEmpty(), "an incomplete lesson");
    return 0;
}
