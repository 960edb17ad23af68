// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Session files (*.attnscope.json, docs/json-format.md "Session files", docs/schema/session.schema.json): the
// model spec, the text, the display settings, the current workspace and each workspace's sessionState(). This
// file only reads, checks and writes them (Qt Core, no engine); MainWindow applies them. Parse errors name the
// field ("settings.backend: ..."); writes go through QSaveFile, so a failed save leaves the old file as it was.

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace attnui {

// The longest text the GUI takes, from a session, a lesson, the editor or a paste (issue 14: a 180 MB session text
// crashed Qt's text layout and 10 MB took 2.3 GB). A million characters is far more than any model's positions
// hold (the longest-context families read ~32 000 tokens, ~130 000 characters), and Qt lays it out in well under
// a second. Files are refused before they are read when larger than kMaxSessionFileBytes.
inline constexpr qsizetype kMaxTextChars = 1'000'000;
inline constexpr qint64 kMaxSessionFileBytes = 16 << 20;
// "1000001 characters; the limit is 1000000": the reason, for a message that names its field or source.
QString textTooLongReason(qsizetype chars, qsizetype limit = kMaxTextChars);

struct Session {
    static constexpr int kVersion = 1;
    static inline const QString kFormat = QStringLiteral("attnscope-session");
    static inline const QString kSuffix = QStringLiteral(".attnscope.json");

    QString model;                 // "sample:NAME", a folder, "random:..."; empty: the raw attention experiment
    QString text;
    QString backend = QStringLiteral("auto");        // auto | reference | tiled | unfused | cuda
    QString colorMap = QStringLiteral("viridis");    // viridis | cividis
    QString theme = QStringLiteral("light");         // light | dark
    QString currentWorkspace;      // a workspace's key (its objectName, e.g. "explore"); empty: leave as is
    QJsonObject workspaces;        // key → that workspace's sessionState()

    QJsonObject toJson() const;
    QByteArray toBytes() const;    // indented JSON, keys in a fixed order, newline at the end
    // Checks every field; on failure `error` names the first bad one and nothing is returned.
    static std::optional<Session> fromJson(const QJsonObject &object, QString *error);
    bool operator==(const Session &) const = default;
};

QStringList sessionBackends();     // the values settings.backend accepts
QStringList sessionColorMaps();
QStringList sessionThemes();

// JSON text → Session; a syntax error names the line and column.
std::optional<Session> parseSession(const QByteArray &bytes, QString *error);
// The file at `path`; errors start with the path.
std::optional<Session> loadSession(const QString &path, QString *error);
// Atomically (QSaveFile): the old file stays intact when writing fails.
bool saveSession(const Session &session, const QString &path, QString *error);

} // namespace attnui
