// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/session.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QLocale>
#include <QSaveFile>

#include <cmath>

namespace attnui {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("Session", text);
}

bool fail(QString *error, const QString &message)
{
    if (error) *error = message;
    return false;
}


// A required or optional string field, optionally one of `allowed`.
bool readString(const QJsonObject &o, const QString &key, const QString &path, bool required, QString &out,
                QString *error, const QStringList &allowed = {})
{
    if (!o.contains(key)) return !required || fail(error, tr("%1: missing").arg(path + key));
    const QJsonValue v = o.value(key);
    if (!v.isString()) return fail(error, tr("%1: expected a string").arg(path + key));
    if (!allowed.isEmpty() && !allowed.contains(v.toString()))
        return fail(error, tr("%1: '%2' is not one of %3").arg(path + key, v.toString(), allowed.join(QStringLiteral(", "))));
    out = v.toString();
    return true;
}

// Line and column of a byte offset, for JSON syntax errors.
QString position(const QByteArray &bytes, int offset)
{
    int line = 1, column = 1;
    for (int i = 0; i < offset && i < bytes.size(); ++i) {
        if (bytes[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return tr("line %1, column %2").arg(line).arg(column);
}

} // namespace

QStringList sessionBackends()
{
    return {QStringLiteral("auto"), QStringLiteral("reference"), QStringLiteral("tiled"), QStringLiteral("unfused"),
            QStringLiteral("cuda")};
}

QString textTooLongReason(qsizetype chars, qsizetype limit)
{
    const QLocale c = QLocale::c();
    return tr("%1 characters; the limit is %2")
        .arg(c.toString(qlonglong(chars)), c.toString(qlonglong(limit)));
}

QStringList sessionColorMaps()
{
    return {QStringLiteral("viridis"), QStringLiteral("cividis")};
}

QStringList sessionThemes()
{
    return {QStringLiteral("light"), QStringLiteral("dark")};
}

QJsonObject Session::toJson() const
{
    return QJsonObject{
        {QStringLiteral("format"), kFormat},
        {QStringLiteral("version"), kVersion},
        {QStringLiteral("model"), model},
        {QStringLiteral("text"), text},
        {QStringLiteral("settings"), QJsonObject{{QStringLiteral("backend"), backend},
                                                 {QStringLiteral("color_map"), colorMap},
                                                 {QStringLiteral("theme"), theme}}},
        {QStringLiteral("current_workspace"), currentWorkspace},
        {QStringLiteral("workspaces"), workspaces},
    };
}

QByteArray Session::toBytes() const
{
    // QJsonDocument sorts keys alphabetically: the same session always gives the same bytes.
    return QJsonDocument(toJson()).toJson(QJsonDocument::Indented);
}

std::optional<Session> Session::fromJson(const QJsonObject &o, QString *error)
{
    Session s;
    QString format;
    if (!readString(o, QStringLiteral("format"), {}, true, format, error)) return std::nullopt;
    if (format != kFormat) {
        fail(error, tr("format: '%1' is not an AttnScope session (expected '%2')").arg(format, kFormat));
        return std::nullopt;
    }
    if (!o.contains(QStringLiteral("version"))) {
        fail(error, tr("version: missing"));
        return std::nullopt;
    }
    const QJsonValue version = o.value(QStringLiteral("version"));
    const double v = version.toDouble(-1);
    if (!version.isDouble() || v != std::floor(v) || v < 1) {
        fail(error, tr("version: expected an integer >= 1"));
        return std::nullopt;
    }
    if (v > kVersion) {
        fail(error, tr("version: %1 is newer than this AttnScope reads (%2)").arg(v).arg(kVersion));
        return std::nullopt;
    }
    if (!readString(o, QStringLiteral("model"), {}, true, s.model, error) ||
        !readString(o, QStringLiteral("text"), {}, true, s.text, error) ||
        !readString(o, QStringLiteral("current_workspace"), {}, false, s.currentWorkspace, error))
        return std::nullopt;
    if (s.text.size() > kMaxTextChars) {
        fail(error, QStringLiteral("text: %1").arg(textTooLongReason(s.text.size())));
        return std::nullopt;
    }
    if (o.contains(QStringLiteral("settings"))) {
        const QJsonValue settings = o.value(QStringLiteral("settings"));
        if (!settings.isObject()) {
            fail(error, tr("settings: expected an object"));
            return std::nullopt;
        }
        const QJsonObject so = settings.toObject();
        const QString at = QStringLiteral("settings.");
        if (!readString(so, QStringLiteral("backend"), at, false, s.backend, error, sessionBackends()) ||
            !readString(so, QStringLiteral("color_map"), at, false, s.colorMap, error, sessionColorMaps()) ||
            !readString(so, QStringLiteral("theme"), at, false, s.theme, error, sessionThemes()))
            return std::nullopt;
    }
    if (o.contains(QStringLiteral("workspaces"))) {
        const QJsonValue workspaces = o.value(QStringLiteral("workspaces"));
        if (!workspaces.isObject()) {
            fail(error, tr("workspaces: expected an object"));
            return std::nullopt;
        }
        s.workspaces = workspaces.toObject();
        for (auto it = s.workspaces.begin(); it != s.workspaces.end(); ++it)
            if (!it.value().isObject()) {
                fail(error, tr("workspaces.%1: expected an object").arg(it.key()));
                return std::nullopt;
            }
    }
    return s;
}

std::optional<Session> parseSession(const QByteArray &bytes, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        fail(error, tr("not valid JSON at %1: %2").arg(position(bytes, parseError.offset), parseError.errorString()));
        return std::nullopt;
    }
    if (!doc.isObject()) {
        fail(error, tr("(top level): expected a JSON object"));
        return std::nullopt;
    }
    return Session::fromJson(doc.object(), error);
}

std::optional<Session> loadSession(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        fail(error, tr("%1: cannot read: %2").arg(path, file.errorString()));
        return std::nullopt;
    }
    if (file.size() > kMaxSessionFileBytes) {
        fail(error, tr("%1: %2 bytes; a session file is at most %3 bytes").arg(path).arg(file.size()).arg(kMaxSessionFileBytes));
        return std::nullopt;
    }
    QString why;
    std::optional<Session> session = parseSession(file.readAll(), &why);
    if (!session) fail(error, QStringLiteral("%1: %2").arg(path, why));
    return session;
}

bool saveSession(const Session &session, const QString &path, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return fail(error, tr("cannot write %1: %2").arg(path, file.errorString()));
    const QByteArray bytes = session.toBytes();
    if (file.write(bytes) != bytes.size() || !file.commit())
        return fail(error, tr("cannot write %1: %2").arg(path, file.errorString()));
    return true;
}

} // namespace attnui
