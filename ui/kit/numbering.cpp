// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/numbering.h"

#include <QObject>
#include <QSpinBox>

#include <algorithm>

namespace attnui {

QString headName(int layer, int head)
{
    return QObject::tr("layer %1 · head %2").arg(layer + 1).arg(head + 1);
}

QString layerName(int layer)
{
    return QObject::tr("layer %1").arg(layer + 1);
}

QString tokenName(int position)
{
    return QObject::tr("token %1").arg(position);
}

QStringList layerTickLabels(int layers)
{
    QStringList labels;
    for (int l = 0; l < layers; ++l) labels << QStringLiteral("L%1").arg(l + 1);
    return labels;
}

QStringList headTickLabels(int heads)
{
    QStringList labels;
    for (int h = 0; h < heads; ++h) labels << QStringLiteral("H%1").arg(h + 1);
    return labels;
}

QSpinBox *makeIndexSpinBox(const QString &prefix)
{
    auto *spin = new QSpinBox;
    spin->setPrefix(prefix);
    spin->setRange(1, 1);
    return spin;
}

void setIndexCount(QSpinBox *spin, int count)
{
    spin->setRange(1, std::max(1, count));
}

void setIndex(QSpinBox *spin, int index)
{
    spin->setMaximum(std::max(spin->maximum(), index + 1));
    spin->setValue(index + 1);
}

int indexOf(const QSpinBox *spin)
{
    return spin->value() - 1;
}

} // namespace attnui
