// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How layers, heads and token positions are numbered wherever a person reads them: from 0, as in Hugging Face,
// TransformerLens and BertViz, and as in AttnScope's session files, view specs (head:1.2), CLI options
// (--heads 1.2) and JSON exports. Every label says what it counts: "L1 H2" (layer 1, head 2), "token 12".
// Everything that puts a layer, head or token number on screen or into a caption goes through here.

#include <QString>
#include <QStringList>

class QSpinBox;

namespace attnui {

QString headName(int layer, int head);               // "L1 H2"
QString layerName(int layer);                        // "L1"
QString tokenName(int position);                     // "token 12"
QStringList layerTickLabels(int layers);             // "L0" … "L(n−1)"
QStringList headTickLabels(int heads);               // "H0" … "H(n−1)"

// A spin box for a layer or head index: shows the index itself, prefixed ("layer 0", "head 3").
QSpinBox *makeIndexSpinBox(const QString &prefix);   // e.g. tr("layer ")
void setIndexCount(QSpinBox *spin, int count);       // 0..count−1 (at least 0..0)
// Widens the range when needed: a session restores its head before its model (and so the real count) is open.
void setIndex(QSpinBox *spin, int index);
int indexOf(const QSpinBox *spin);

} // namespace attnui
