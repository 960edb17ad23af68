// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessons/lessons.h"
#include "session/session.h"

// Qt Core only (the fuzz build compiles this file without Widgets); the Lessons menu is in lessonpanel.cpp.

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <tuple>

namespace attnui {

namespace {

QString tr(const char *s, const char *c = nullptr, int n = -1) { return QCoreApplication::translate("attnui::Lessons", s, c, n); }

bool readStrings(const QJsonObject &o, const QString &key, QStringList *out, QString *why)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined()) { *why = tr("missing"); return false; }
    const QJsonArray a = v.toArray();
    if (!v.isArray() || a.isEmpty()) { *why = tr("expected a non-empty array of strings"); return false; }
    for (int i = 0; i < a.size(); ++i) {
        if (!a[i].isString() || a[i].toString().trimmed().isEmpty()) {
            *why = tr("item %1 is not a non-empty string").arg(i);
            return false;
        }
        *out << a[i].toString();
    }
    return true;
}

} // namespace

QJsonObject Lesson::session() const
{
    return {{QStringLiteral("model"), model},
            {QStringLiteral("text"), text},
            {QStringLiteral("workspace"), workspace},
            {QStringLiteral("state"), state}};
}

QJsonObject encoderDecoderLessonState(const QJsonObject &state, const QString &model, const QString &text)
{
    QJsonObject out = state;
    if (!out.contains(QStringLiteral("model")) && !model.isEmpty()) out.insert(QStringLiteral("model"), model);
    if (!out.contains(QStringLiteral("source")) && !text.isEmpty()) out.insert(QStringLiteral("source"), text);
    return out;
}

bool parseLesson(const QByteArray &json, const QString &file, Lesson *lesson, QString *error)
{
    const auto fail = [&](const QString &field, const QString &why) {
        if (error) *error = field.isEmpty() ? QStringLiteral("%1: %2").arg(file, why)
                                            : QStringLiteral("%1: %2: %3").arg(file, field, why);
        return false;
    };
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError)
        return fail(QString(), tr("not valid JSON at byte %1 (%2)").arg(pe.offset).arg(pe.errorString()));
    if (!doc.isObject()) return fail(QString(), tr("expected a JSON object"));
    const QJsonObject o = doc.object();

    static const QStringList known{QStringLiteral("title"), QStringLiteral("workspace"), QStringLiteral("model"),
                                   QStringLiteral("text"), QStringLiteral("state"), QStringLiteral("explanation"),
                                   QStringLiteral("try"), QStringLiteral("expect")};
    for (const QString &key : o.keys())
        if (!known.contains(key)) return fail(key, tr("unknown field"));

    Lesson l;
    l.file = file;
    l.id = QFileInfo(file).completeBaseName();
    for (const auto &[key, target, mayBeEmpty] :
         {std::tuple{QStringLiteral("title"), &l.title, false}, std::tuple{QStringLiteral("workspace"), &l.workspace, false},
          std::tuple{QStringLiteral("model"), &l.model, false}, std::tuple{QStringLiteral("text"), &l.text, true}}) {
        const QJsonValue v = o.value(key);
        if (v.isUndefined()) return fail(key, tr("missing"));
        if (!v.isString()) return fail(key, tr("expected a string"));
        if (!mayBeEmpty && v.toString().trimmed().isEmpty()) return fail(key, tr("must not be empty"));
        *target = v.toString();
    }
    if (l.text.size() > kMaxTextChars) return fail(QStringLiteral("text"), textTooLongReason(l.text.size()));
    if (o.contains(QStringLiteral("state"))) {
        if (!o.value(QStringLiteral("state")).isObject()) return fail(QStringLiteral("state"), tr("expected an object"));
        l.state = o.value(QStringLiteral("state")).toObject();
    }
    QString why;
    if (!readStrings(o, QStringLiteral("explanation"), &l.explanation, &why)) return fail(QStringLiteral("explanation"), why);
    if (!readStrings(o, QStringLiteral("try"), &l.trySteps, &why)) return fail(QStringLiteral("try"), why);
    if (o.contains(QStringLiteral("expect")) && !readStrings(o, QStringLiteral("expect"), &l.expectations, &why))
        return fail(QStringLiteral("expect"), why);
    *lesson = std::move(l);
    return true;
}

bool loadLessonFile(const QString &path, Lesson *lesson, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error) *error = QStringLiteral("%1: %2").arg(path, f.errorString());
        return false;
    }
    if (f.size() > kMaxSessionFileBytes) {
        if (error) *error = QStringLiteral("%1: %2 bytes; a lesson file is at most %3 bytes").arg(path).arg(f.size()).arg(kMaxSessionFileBytes);
        return false;
    }
    return parseLesson(f.readAll(), path, lesson, error);
}

QList<Lesson> loadLessons(const QString &dir, QStringList *errors)
{
    QList<Lesson> list;
    const QStringList files = QDir(dir).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString &name : files) {
        Lesson l;
        QString error;
        if (loadLessonFile(QDir(dir).filePath(name), &l, &error)) list << l;
        else if (errors) *errors << error;
    }
    return list;
}

} // namespace attnui
