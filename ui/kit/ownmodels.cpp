// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/ownmodels.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

namespace attnui {

QString firstSampleSpec(const SampleKind &kind)
{
    for (const attn::SampleModelInfo &s : attn::listSampleModels())
        if (kind(s)) return QStringLiteral("sample:") + QString::fromStdString(s.name);
    return {};
}

QString specFolder(const QString &spec)
{
    auto folder = attn::resolveModelSpec(spec.toStdString());
    return folder ? QString::fromStdString(*folder) : QString();
}

void fillSampleModels(QComboBox *box, const SampleKind &kind, const QString &current, const QString &currentName)
{
    const QSignalBlocker block(box);
    box->clear();
    for (const attn::SampleModelInfo &s : attn::listSampleModels()) {
        if (!kind(s)) continue;
        box->addItem(QObject::tr("Sample: %1").arg(QString::fromStdString(s.name)),
                     QStringLiteral("sample:") + QString::fromStdString(s.name));
        box->setItemData(box->count() - 1, QString::fromStdString(s.folder), Qt::ToolTipRole);
    }
    if (!current.isEmpty() && box->findData(current) < 0) box->addItem(currentName, current);
    box->setCurrentIndex(std::max(0, box->findData(current)));
}

QLabel *addHeading(QVBoxLayout *layout, const QString &text)
{
    auto *l = new QLabel(text);
    QFont f = l->font();
    f.setBold(true);
    l->setFont(f);
    layout->addWidget(l);
    return l;
}

QComboBox *addModelRow(QVBoxLayout *layout, QWidget *owner, const QString &openToolTip, const QString &dialogTitle,
                       const std::function<void(const QString &)> &chosen)
{
    addHeading(layout, QObject::tr("Model"));
    auto *row = new QHBoxLayout;
    auto *box = new QComboBox;
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(12);
    QObject::connect(box, &QComboBox::activated, owner, [box, chosen] { chosen(box->currentData().toString()); });
    row->addWidget(box, 1);
    auto *open = new QPushButton(QObject::tr("Open…"));
    open->setToolTip(openToolTip);
    QObject::connect(open, &QPushButton::clicked, owner, [owner, dialogTitle, chosen] {
        const QString dir = QFileDialog::getExistingDirectory(owner, dialogTitle);
        if (!dir.isEmpty()) chosen(dir);
    });
    row->addWidget(open);
    layout->addLayout(row);
    return box;
}

} // namespace attnui
