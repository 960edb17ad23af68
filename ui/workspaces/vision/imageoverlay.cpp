// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/vision/imageoverlay.h"

#include "plots/vectorpaint.h"

#include <QEvent>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

constexpr int kMargin = 10;
constexpr int kBarWidth = 14;
constexpr int kBarGap = 12;

QString valueText(double v) { return QString::number(v, 'g', 3); }

// Tick spacing for a bar from 0 to `top`: 1, 2 or 5 × 10^k, at most five steps.
double tickStep(double top)
{
    const double raw = top / 5.0, decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * decade >= raw) return m * decade;
    return 10.0 * decade;
}

} // namespace

ImageOverlay::ImageOverlay(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ImageOverlay::setData(Data data)
{
    m_data = std::move(data);
    update();
}

void ImageOverlay::setColorMap(ColorMap map)
{
    m_map = map;
    update();
}

void ImageOverlay::setOpacity(double opacity)
{
    m_opacity = std::clamp(opacity, 0.0, 1.0);
    update();
}

double ImageOverlay::maxValue() const
{
    double m = 0.0;
    for (double v : m_data.values)
        if (std::isfinite(v)) m = std::max(m, v);
    return m > 0.0 ? m : 1.0;
}

int ImageOverlay::tickLabelsWidth() const
{
    // The colour bar's labels for this data: 0, step, 2·step, … up to the largest value.
    const QFontMetrics fm(font());
    const double top = maxValue(), step = tickStep(top);
    int w = 0;
    for (int k = 0; k * step <= top * (1 + 1e-9); ++k) w = std::max(w, fm.horizontalAdvance(valueText(k * step)));
    return w;
}

QRectF ImageOverlay::imageRect() const
{
    // Room for the title above, the colour bar and its labels on the right.
    const QFontMetrics fm(font());
    const int top = kMargin + fm.height() + 6;
    const int barRoom = kBarGap + kBarWidth + 8 + tickLabelsWidth() + fm.height() + 8;
    const double w = std::max(1, width() - 2 * kMargin - barRoom), h = std::max(1, height() - top - kMargin);
    if (m_data.image.isNull()) return {double(kMargin), double(top), w, h};
    const double aspect = double(m_data.image.width()) / double(std::max(1, m_data.image.height()));
    double iw = w, ih = w / aspect;
    if (ih > h) ih = h, iw = h * aspect;
    return {double(kMargin), double(top), iw, ih};
}

QRectF ImageOverlay::patchRect(int patch) const
{
    const QRectF r = imageRect();
    if (m_data.rows <= 0 || m_data.cols <= 0 || m_data.image.isNull()) return {};
    // The patches cover whole patch sizes of the image; pixels past the last whole patch are not in any.
    const int ph = m_data.image.height() / m_data.rows, pw = m_data.image.width() / m_data.cols;
    const double sx = r.width() / m_data.image.width(), sy = r.height() / m_data.image.height();
    const int row = patch / m_data.cols, col = patch % m_data.cols;
    return {r.left() + col * pw * sx, r.top() + row * ph * sy, pw * sx, ph * sy};
}

int ImageOverlay::patchAt(const QPointF &pos) const
{
    for (int p = 0; p < m_data.rows * m_data.cols; ++p)
        if (patchRect(p).contains(pos)) return p;
    return -1;
}

QSize ImageOverlay::figureSize() const
{
    const QFontMetrics fm(font());
    const int side = 420;
    const double aspect = m_data.image.isNull() ? 1.0 : double(m_data.image.width()) / std::max(1, m_data.image.height());
    const int barRoom = kBarGap + kBarWidth + 8 + tickLabelsWidth() + fm.height() + 8;
    const int titleWidth = fm.horizontalAdvance(m_data.title) + 2 * kMargin;
    return {std::max(int(side * aspect) + 2 * kMargin + barRoom, titleWidth), side + 2 * kMargin + fm.height() + 6};
}

void ImageOverlay::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const QFontMetrics fm(font());
    QFont titleFont = font();
    titleFont.setBold(true);
    p.setFont(titleFont);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(titleFont).elidedText(m_data.title, Qt::ElideRight, width() - 2 * kMargin));
    p.setFont(font());
    if (m_data.image.isNull()) return;

    const QRectF r = imageRect();
    // Small inputs (a 32 × 32 ViT's) keep their pixels: scaled without smoothing, the patches stay readable.
    const bool sharp = m_data.image.width() < r.width() / 2;
    p.setRenderHint(QPainter::SmoothPixmapTransform, !sharp);
    p.drawImage(r, m_data.image);

    const double top = maxValue();
    const int n = m_data.rows * m_data.cols;
    for (int i = 0; i < n && i < int(m_data.values.size()); ++i) {
        QColor c = colorAt(m_map, m_data.values[std::size_t(i)] / top);
        c.setAlphaF(float(m_opacity));
        p.fillRect(patchRect(i), c);
    }
    // The grid, faint; the true region dashed; the query patch in a double outline that reads on any colour.
    p.setRenderHint(QPainter::Antialiasing);
    QColor grid = Qt::white;
    grid.setAlphaF(0.25f);
    p.setPen(QPen(grid, 0.6));
    for (int row = 1; row < m_data.rows; ++row) {
        const double y = patchRect(row * m_data.cols).top();
        p.drawLine(QPointF(r.left(), y), QPointF(patchRect(m_data.cols - 1).right(), y));
    }
    for (int col = 1; col < m_data.cols; ++col) {
        const double x = patchRect(col).left();
        p.drawLine(QPointF(x, r.top()), QPointF(x, patchRect(n - 1).bottom()));
    }
    if (int(m_data.truth.size()) == n) {
        // The outline of the union of truth patches: an edge where a truth patch meets a non-truth one.
        const auto isTruth = [&](int row, int col) {
            return row >= 0 && col >= 0 && row < m_data.rows && col < m_data.cols &&
                   m_data.truth[std::size_t(row * m_data.cols + col)] != 0;
        };
        for (const auto &[color, width, style] : {std::tuple{QColor(Qt::black), 3.0, Qt::SolidLine},
                                                  std::tuple{QColor(Qt::white), 1.6, Qt::DashLine}}) {
            p.setPen(QPen(color, width, style, Qt::FlatCap));
            for (int row = 0; row < m_data.rows; ++row)
                for (int col = 0; col < m_data.cols; ++col) {
                    if (!isTruth(row, col)) continue;
                    const QRectF pr = patchRect(row * m_data.cols + col);
                    if (!isTruth(row - 1, col)) p.drawLine(pr.topLeft(), pr.topRight());
                    if (!isTruth(row + 1, col)) p.drawLine(pr.bottomLeft(), pr.bottomRight());
                    if (!isTruth(row, col - 1)) p.drawLine(pr.topLeft(), pr.bottomLeft());
                    if (!isTruth(row, col + 1)) p.drawLine(pr.topRight(), pr.bottomRight());
                }
        }
    }
    if (m_data.query >= 0 && m_data.query < n) {
        const QRectF q = patchRect(m_data.query);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(Qt::black, 4.0));
        p.drawRect(q);
        p.setPen(QPen(Qt::white, 2.0));
        p.drawRect(q);
    }

    // The colour bar: 0 at the bottom, the largest value at the top, its label turned beside it.
    p.setRenderHint(QPainter::Antialiasing, false);
    const QRectF bar(r.right() + kBarGap, r.top(), kBarWidth, r.height());
    QLinearGradient g(bar.bottomLeft(), bar.topLeft());
    for (int k = 0; k <= 16; ++k) g.setColorAt(k / 16.0, colorAt(m_map, k / 16.0));
    p.fillRect(bar, g);
    p.setPen(pal.color(QPalette::Mid));
    p.drawRect(bar);
    p.setPen(pal.color(QPalette::Text));
    // Round ticks from 0; the bar's top is the largest value, so the brightest patch is the map's end colour.
    const double step = tickStep(top);
    for (int k = 0; k * step <= top * (1 + 1e-9); ++k) {
        const double v = k * step, y = bar.bottom() - v / top * bar.height();
        p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
        p.drawText(QRectF(bar.right() + 6, y - fm.height() / 2.0, 200, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   valueText(v));
    }
    p.save();
    const double labelX = bar.right() + 12 + tickLabelsWidth();
    p.translate(labelX + fm.ascent(), bar.center().y());
    p.rotate(90);
    p.drawText(QRectF(-bar.height() / 2, -fm.ascent(), bar.height(), fm.height()), Qt::AlignCenter, m_data.valueLabel);
    p.restore();
}

void ImageOverlay::mousePressEvent(QMouseEvent *event)
{
    const int patch = patchAt(event->position());
    if (patch >= 0 && event->button() == Qt::LeftButton) emit patchClicked(patch);
    QWidget::mousePressEvent(event);
}

bool ImageOverlay::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int patch = patchAt(help->pos());
        if (patch >= 0 && patch < int(m_data.values.size())) {
            QString text = tr("%1 (token %2): %3").arg(QStringLiteral("r%1c%2").arg(patch / m_data.cols).arg(patch % m_data.cols))
                               .arg(patch + 1).arg(valueText(m_data.values[std::size_t(patch)]));
            if (int(m_data.truth.size()) == m_data.rows * m_data.cols && m_data.truth[std::size_t(patch)])
                text += tr(" — in the true region");
            QToolTip::showText(help->globalPos(), text + tr("\nClick: this patch's attention instead of the CLS token's"), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace attnui
