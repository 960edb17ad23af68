// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/explore/lineview.h"
#include "export/figureexport.h"
#include "kit/numbering.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {
constexpr int kMargin = 8;
constexpr int kGapMin = 160;           // horizontal room for the lines
constexpr int kGapMax = 420;
constexpr double kMinWeight = 0.01;    // lighter lines are invisible anyway; skipping them keeps long inputs fast
constexpr int kMaxLabelWidth = 160;
constexpr int kAllLinesUpTo = 256;  // longer inputs draw the lines of the queries in view
} // namespace

// The painted part: token labels in two columns and the lines between them.
class LineView::Canvas : public QWidget {
public:
    explicit Canvas(LineView *view) : QWidget(view), m_view(view)
    {
        setMouseTracking(true);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    }

    int rowHeight() const { return fontMetrics().height() + 6; }

    int labelWidth() const { return m_labelWidth; }

    // Measured once per result: tokenRect() is asked for every row while painting.
    void measureLabels()
    {
        const auto &s = m_view->m_snapshot;
        const QFontMetrics fm = fontMetrics();
        int widest = fm.horizontalAdvance(QStringLiteral("[CLS]"));
        if (s)
            for (const QString &t : s->tokens) {
                widest = std::max(widest, fm.horizontalAdvance(t));
                if (widest >= kMaxLabelWidth) break;
            }
        m_labelWidth = std::min(widest, kMaxLabelWidth) + 12;
    }

    QRect tokenRect(Side side, int index) const
    {
        // Two columns with a band of lines between them, centred: a band much wider than it is tall would flatten
        // every line into the horizontal.
        const int lw = labelWidth();
        const int gap = std::clamp(width() - 2 * kMargin - 2 * lw, kGapMin, kGapMax);
        const int left = std::max(kMargin, (width() - 2 * lw - gap) / 2);
        const int x = side == Side::Query ? left : left + lw + gap;
        return QRect(x, kMargin + index * rowHeight(), lw, rowHeight());
    }

    QSize sizeHint() const override
    {
        return QSize(2 * labelWidth() + 2 * kMargin + kGapMin * 2, 2 * kMargin + m_view->length() * rowHeight());
    }
    QSize minimumSizeHint() const override
    {
        return QSize(2 * labelWidth() + 2 * kMargin + kGapMin, 2 * kMargin + m_view->length() * rowHeight());
    }

protected:
    void paintEvent(QPaintEvent *event) override
    {
        QPainter p(this);
        const QPalette pal = palette();
        const auto &s = m_view->m_snapshot;
        if (!s || s->length() == 0) {
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(rect(), Qt::AlignCenter, tr("No result yet"));
            return;
        }
        const int n = s->length();
        const int rh = rowHeight();
        // Only rows that intersect the exposed area need labels; lines are clipped by the painter.
        const int firstRow = std::clamp((event->rect().top() - kMargin) / rh, 0, n - 1);
        const int lastRow = std::clamp((event->rect().bottom() - kMargin) / rh, 0, n - 1);
        const bool hovering = m_view->m_hoverIndex >= 0;
        const int xLeft = tokenRect(Side::Query, 0).right() + 4;
        const int xRight = tokenRect(Side::Key, 0).left() - 4;
        p.setRenderHint(QPainter::Antialiasing, true);
        // Long inputs: lines of the queries in view (and a screen above and below) only; every query's lines
        // would be n² pairs per head for a few pixels each.
        const int pad = n > kAllLinesUpTo ? (lastRow - firstRow + 1) : n;
        for (const Line &line : m_view->lines(firstRow - pad, lastRow + pad)) {
            QColor c = headColor(line.head);
            c.setAlphaF(float(line.opacity));
            p.setPen(QPen(c, line.width, Qt::SolidLine, Qt::RoundCap));
            const double y0 = kMargin + (line.query + 0.5) * rh, y1 = kMargin + (line.key + 0.5) * rh;
            p.drawLine(QPointF(xLeft, y0), QPointF(xRight, y1));
        }
        p.setRenderHint(QPainter::Antialiasing, false);
        for (Side side : {Side::Query, Side::Key}) {
            for (int i = firstRow; i <= lastRow; ++i) {
                const QRect r = tokenRect(side, i);
                const bool hot = hovering && side == m_view->m_hoverSide && i == m_view->m_hoverIndex;
                if (hot) p.fillRect(r, pal.color(QPalette::Highlight));
                const bool special = std::size_t(i) < s->special.size() && s->special[std::size_t(i)];
                p.setPen(hot ? pal.color(QPalette::HighlightedText)
                             : special ? pal.color(QPalette::PlaceholderText) : pal.color(QPalette::WindowText));
                const QString text = fontMetrics().elidedText(s->tokens[i], Qt::ElideRight, r.width() - 8);
                p.drawText(r.adjusted(4, 0, -4, 0),
                           (side == Side::Query ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, text);
            }
        }
    }

    void mouseMoveEvent(QMouseEvent *event) override
    {
        const QPoint pos = event->position().toPoint();
        const int n = m_view->length();
        for (Side side : {Side::Query, Side::Key}) {
            const QRect column = tokenRect(side, 0).united(tokenRect(side, std::max(0, n - 1)));
            if (n > 0 && column.contains(pos)) {
                m_view->setHoveredToken(side, std::clamp((pos.y() - kMargin) / rowHeight(), 0, n - 1));
                return;
            }
        }
        m_view->setHoveredToken(Side::Query, -1);
    }

    void leaveEvent(QEvent *) override { m_view->setHoveredToken(Side::Query, -1); }

    void changeEvent(QEvent *event) override
    {
        QWidget::changeEvent(event);
        if (event->type() == QEvent::FontChange) measureLabels();
    }

private:
    LineView *m_view;
    int m_labelWidth = 0;
};

LineView::LineView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_intro = new QLabel(tr("Each line joins a query (left) to a key (right); the stronger the attention weight, "
                            "the more opaque and wider the line. Hover a token to see only its lines."));
    m_intro->setWordWrap(true);
    m_intro->setForegroundRole(QPalette::PlaceholderText);
    m_intro->setProperty(kExcludeFromFigure, true);
    layout->addWidget(m_intro);
    m_headRow = new QHBoxLayout;
    m_note = new QLabel;
    m_headRow->addWidget(m_note);
    m_legend = new QLabel;
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setProperty(kFigureOnly, true);
    m_legend->hide();
    m_headRow->addWidget(m_legend);
    m_headRow->addStretch(1);
    layout->addLayout(m_headRow);
    m_canvas = new Canvas(this);
    m_canvas->measureLabels();
    m_scroll = new QScrollArea;
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_scroll, 1);
}

LineView::~LineView() = default;

QWidget *LineView::canvas() const
{
    return m_canvas;
}

QColor LineView::headColor(int head)
{
    // Tableau 10: distinct hues that read on light and dark backgrounds.
    static const QColor colors[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0xe1, 0x57, 0x59),
                                    QColor(0x76, 0xb7, 0xb2), QColor(0x59, 0xa1, 0x4f), QColor(0xed, 0xc9, 0x48),
                                    QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7), QColor(0x9c, 0x75, 0x5f),
                                    QColor(0xba, 0xb0, 0xac)};
    return colors[std::size_t(std::max(0, head)) % std::size(colors)];
}

void LineView::setSnapshot(std::shared_ptr<const ExploreSnapshot> snapshot)
{
    const int oldHeads = m_snapshot ? m_snapshot->heads : -1;
    m_snapshot = std::move(snapshot);
    m_hoverIndex = -1;
    if (m_snapshot) m_layer = std::clamp(m_layer, 0, std::max(0, m_snapshot->layers - 1));
    if (!m_snapshot || m_snapshot->heads != oldHeads) m_enabled.assign(m_snapshot ? m_snapshot->heads : 0, true);
    rebuildHeadBoxes();
    // Measuring thousands of labels and relaying out a tall canvas can wait until the tab is shown.
    m_layoutDirty = true;
    if (isVisible()) relayout();
}

void LineView::relayout()
{
    if (!m_layoutDirty) return;
    m_layoutDirty = false;
    m_canvas->measureLabels();
    m_canvas->updateGeometry();
    m_canvas->update();
}

void LineView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    relayout();
}

void LineView::setLayer(int layer)
{
    m_layer = layer;
    rebuildHeadBoxes();
    m_canvas->update();
}

void LineView::rebuildHeadBoxes()
{
    const int heads = m_snapshot ? m_snapshot->heads : 0;
    if (int(m_boxes.size()) != heads) {
        for (QCheckBox *box : m_boxes) delete box;
        m_boxes.clear();
        for (int h = 0; h < heads; ++h) {
            auto *box = new QCheckBox(QStringLiteral("H%1").arg(h));
            // The head's colour as a swatch in the label.
            QPixmap swatch(12, 12);
            swatch.fill(headColor(h));
            box->setIcon(QIcon(swatch));
            connect(box, &QCheckBox::toggled, this, [this, h](bool on) { setHeadEnabled(h, on); });
            m_headRow->insertWidget(int(m_boxes.size()) + 1, box);
            m_boxes.push_back(box);
        }
    }
    for (int h = 0; h < heads; ++h) {
        const bool computed = m_snapshot->hasWeights(m_layer, h);
        const QSignalBlocker block(m_boxes[std::size_t(h)]);
        m_boxes[std::size_t(h)]->setChecked(m_enabled[std::size_t(h)]);
        m_boxes[std::size_t(h)]->setEnabled(computed);
        m_boxes[std::size_t(h)]->setToolTip(computed ? tr("Show or hide H%1's lines").arg(h)
                                                     : tr("Not computed for an input this long: pick the head in "
                                                          "the overview to compute it"));
    }
    updateNote();
}

void LineView::updateNote()
{
    m_note->setText(m_snapshot ? tr("%1 (of %2 layers):").arg(layerName(m_layer)).arg(m_snapshot->layers) : QString());
    QStringList legend;
    for (int h = 0; m_snapshot && h < m_snapshot->heads; ++h)
        if (isHeadEnabled(h) && m_snapshot->hasWeights(m_layer, h))
            legend << QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;H%2").arg(headColor(h).name()).arg(h);
    m_legend->setText(legend.join(QStringLiteral("&nbsp;&nbsp;&nbsp;")));
}

QSize LineView::figureSize() const
{
    // The band between the columns a little wider than the columns are tall, within kGapMin..kGapMax: much wider,
    // and the lines flatten into the horizontal; narrower, and they pile up.
    const int tall = m_canvas->sizeHint().height();
    const int band = std::clamp(tall * 6 / 5, kGapMin, kGapMax);
    const QSize canvas(2 * m_canvas->labelWidth() + 2 * kMargin + band, tall);
    const int header = m_note->sizeHint().height() + 10;
    return QSize(std::max(canvas.width(), m_legend->sizeHint().width() + m_note->sizeHint().width() + 20),
                 canvas.height() + header);
}

void LineView::setHeadEnabled(int head, bool enabled)
{
    if (head < 0 || std::size_t(head) >= m_enabled.size()) return;
    m_enabled[std::size_t(head)] = enabled;
    if (std::size_t(head) < m_boxes.size()) {
        const QSignalBlocker block(m_boxes[std::size_t(head)]);
        m_boxes[std::size_t(head)]->setChecked(enabled);
    }
    updateNote();
    m_canvas->update();
}

bool LineView::isHeadEnabled(int head) const
{
    return head >= 0 && std::size_t(head) < m_enabled.size() && m_enabled[std::size_t(head)];
}

void LineView::setHoveredToken(Side side, int index)
{
    if (side == m_hoverSide && index == m_hoverIndex) return;
    m_hoverSide = side;
    m_hoverIndex = index;
    m_canvas->update();
    if (index < 0) emit tokenHovered(-1, -1);
    else if (side == Side::Query) emit tokenHovered(index, -1);
    else emit tokenHovered(-1, index);
}

std::vector<LineView::Line> LineView::lines(int firstQuery, int lastQuery) const
{
    std::vector<Line> out;
    if (!m_snapshot) return out;
    const ExploreSnapshot &s = *m_snapshot;
    const int n = s.length();
    const bool hovering = m_hoverIndex >= 0 && m_hoverIndex < n;
    for (int h = 0; h < s.heads; ++h) {
        if (!isHeadEnabled(h) || !s.hasWeights(m_layer, h)) continue;
        const std::vector<float> &w = s.weightsOf(m_layer, h);
        const bool byQuery = hovering && m_hoverSide == Side::Query;
        const int qFirst = byQuery ? m_hoverIndex : std::max(0, firstQuery);
        const int qLast = byQuery ? m_hoverIndex : std::min(n - 1, lastQuery);
        for (int i = qFirst; i <= qLast; ++i) {
            const int kFirst = hovering && m_hoverSide == Side::Key ? m_hoverIndex : 0;
            const int kLast = hovering && m_hoverSide == Side::Key ? m_hoverIndex : n - 1;
            for (int j = kFirst; j <= kLast; ++j) {
                const double v = w[std::size_t(i) * std::size_t(n) + std::size_t(j)];
                if (!(v >= kMinWeight)) continue;   // masked pairs are 0; NaN never draws
                Line line;
                line.head = h;
                line.query = i;
                line.key = j;
                line.weight = v;
                // Opacity follows the weight; a hovered token's lines are drawn a little stronger so that a
                // single row of weights reads at a glance.
                line.opacity = std::clamp(hovering ? 0.15 + 0.85 * v : v, 0.0, 1.0);
                line.width = 0.6 + (hovering ? 3.4 : 2.4) * v;
                out.push_back(line);
            }
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Line &a, const Line &b) { return a.weight < b.weight; });
    return out;
}

QRect LineView::tokenRect(Side side, int index) const
{
    return m_canvas->tokenRect(side, index);
}

} // namespace attnui
