// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A model folder's examples.json: [{"text": ..., "what_to_look_for": ...}, ...] (or plain strings), the texts a
// model's card suggests, shown in the workspaces' example lists.

#include <QString>
#include <QStringList>

namespace attnui {

// Missing or unreadable file: empty lists. hints[i] is empty where an example has none.
void readExamples(const QString &folder, QStringList *texts, QStringList *hints);

} // namespace attnui
