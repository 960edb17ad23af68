// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An image with a per-patch relevance map laid over it: the picture the model saw (scaled to fit, small images with
// their pixels kept sharp), each patch tinted by its value on the colour map (0 … the map's maximum, drawn with the
// chosen opacity), the patch grid, the query patch outlined (none for the CLS token), the true region's patches
// outlined dashed when a ground-truth mask is known, a title and a colour bar. A click on a patch emits it; hovering
// shows its label and value. Painted with QPainter only, so PNG, SVG and PDF exports draw the same thing.

#include "plots/colormaps.h"

#include <QImage>
#include <QString>
#include <QWidget>

#include <vector>

namespace attnui {

class ImageOverlay : public QWidget {
    Q_OBJECT
public:
    struct Data {
        QImage image;                 // what the model saw, RGB
        int rows = 0, cols = 0;       // the patch grid over it
        std::vector<double> values;   // [rows · cols], ≥ 0
        QString title;                // "L2 H1: the CLS token's attention"
        QString valueLabel;           // the colour bar's label ("attention weight")
        int query = -1;               // the patch outlined (the query patch, 0 … rows·cols − 1); −1: none (a
                                      // special token's row)
        std::vector<std::uint8_t> truth;   // [rows · cols] 1 = a patch of the true region; empty: none known
    };

    explicit ImageOverlay(QWidget *parent = nullptr);
    void setData(Data data);
    const Data &data() const { return m_data; }
    void setColorMap(ColorMap map);
    void setOpacity(double opacity);   // the tint's alpha, 0 … 1
    double opacity() const { return m_opacity; }
    double maxValue() const;           // the colour bar's top: the largest value (1 when all are 0)

    // The patch under a point of the widget (0-based), or −1 outside the image; the patch's rectangle on screen.
    int patchAt(const QPointF &pos) const;
    QRectF patchRect(int patch) const;
    QRectF imageRect() const;
    QSize figureSize() const;          // a size for exports: the image at ≥ 360 px plus title and colour bar

    QSize sizeHint() const override { return {520, 460}; }
    QSize minimumSizeHint() const override { return {240, 220}; }

signals:
    void patchClicked(int patch);      // 0-based patch index (token 1 + patch)

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;   // tooltips

private:
    int tickLabelsWidth() const;       // the widest of the colour bar's tick labels

    Data m_data;
    ColorMap m_map = ColorMap::Viridis;
    double m_opacity = 0.6;
};

} // namespace attnui
