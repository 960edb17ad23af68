// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/examples.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnui {

void readExamples(const QString &folder, QStringList *texts, QStringList *hints)
{
    texts->clear();
    hints->clear();
    QFile file(QDir(folder).filePath(QStringLiteral("examples.json")));
    if (!file.open(QIODevice::ReadOnly)) return;
    const QJsonArray array = QJsonDocument::fromJson(file.readAll()).array();
    for (const QJsonValue &v : array) {
        const QString text = v.isString() ? v.toString() : v.toObject().value(QStringLiteral("text")).toString();
        if (text.isEmpty()) continue;
        texts->append(text);
        hints->append(v.toObject().value(QStringLiteral("what_to_look_for")).toString());
    }
}

} // namespace attnui
