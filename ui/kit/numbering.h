// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How layers, heads and token positions are numbered on screen. Every index below is 0-based (session state,
// view specs such as pipeline:1.2, CLI options and JSON count from 0); what a person reads counts layers and
// heads from 1 ("layer 2 · head 3", spin boxes 1..N, ticks L1…, H1…). These functions are where the display adds
// its 1.

#include <QString>
#include <QStringList>

class QSpinBox;

namespace attnui {

QString headName(int layer, int head);               // "layer 2 · head 3" for (1, 2)
QString layerName(int layer);                        // "layer 2" for 1
QString tokenName(int position);                     // "token 12"
QStringList layerTickLabels(int layers);             // "L0" … "L(n−1)"
QStringList headTickLabels(int heads);               // "H0" … "H(n−1)"

// A spin box for a layer or head index, shown from 1 ("layer 1" is index 0).
QSpinBox *makeIndexSpinBox(const QString &prefix);   // e.g. tr("layer ")
void setIndexCount(QSpinBox *spin, int count);       // shows 1..count (at least 1)
// Widens the range when needed: a session restores its head before its model (and so the real count) is open.
void setIndex(QSpinBox *spin, int index);
int indexOf(const QSpinBox *spin);

} // namespace attnui
