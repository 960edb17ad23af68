// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/numbering.h"

#include <QObject>
#include <QSpinBox>

#include <algorithm>

namespace attnui {

QString headName(int layer, int head)
{
    return QStringLiteral("L%1 H%2").arg(layer).arg(head);
}

QString layerName(int layer)
{
    return QStringLiteral("L%1").arg(layer);
}

QString tokenName(int position)
{
    return QObject::tr("token %1").arg(position);
}

QStringList layerTickLabels(int layers)
{
    QStringList labels;
    for (int l = 0; l < layers; ++l) labels << layerName(l);
    return labels;
}

QStringList headTickLabels(int heads)
{
    QStringList labels;
    for (int h = 0; h < heads; ++h) labels << QStringLiteral("H%1").arg(h);
    return labels;
}

QSpinBox *makeIndexSpinBox(const QString &prefix)
{
    auto *spin = new QSpinBox;
    spin->setPrefix(prefix);
    spin->setRange(0, 0);
    return spin;
}

void setIndexCount(QSpinBox *spin, int count)
{
    spin->setRange(0, std::max(1, count) - 1);
}

void setIndex(QSpinBox *spin, int index)
{
    spin->setMaximum(std::max(spin->maximum(), index));
    spin->setValue(index);
}

int indexOf(const QSpinBox *spin)
{
    return spin->value();
}

} // namespace attnui
