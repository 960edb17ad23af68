// SPDX-License-Identifier: GPL-3.0-or-later
// Session files (*.attnscope.json, ui/session) → parseSession. A session that parses writes back to bytes that
// parse to the same session (what Save and Open rely on).
#include "fuzz_support.h"

#include "session/session.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using attnfuzz::fuzzCheck;
    QString error;
    const auto session =
        attnui::parseSession(QByteArray::fromRawData(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size)), &error);
    if (!session) {
        fuzzCheck(!error.isEmpty(), "a rejected session without a message");
        return 0;
    }
    QString again;
    const auto reread = attnui::parseSession(session->toBytes(), &again);
    fuzzCheck(reread.has_value(), "a parsed session does not parse again after toBytes()");
    fuzzCheck(*reread == *session, "a session changes on a save/open round trip");
    return 0;
}
