// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Overview of every (layer, head) as a small painted heatmap — rows are layers, columns heads — with the
// selected head outlined. Click a thumbnail to pick the head shown large. Heads without computed weights
// (long inputs compute only the selected head) say so instead of showing an empty square.

#include "plots/colormaps.h"
#include "plots/colorscale.h"

#include <QImage>
#include <QPainter>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace attnui {

class HeadGrid : public QWidget {
    Q_OBJECT
public:
    explicit HeadGrid(QWidget *parent = nullptr);

    // weights[layer * heads + head]: row-major [length, length] or empty; masked: [length, length] or empty;
    // layerMasked[layer], where given and not empty, replaces `masked` for that layer (sliding-window layers).
    void setHeads(int layers, int heads, int length, const std::vector<std::vector<float>> &weights,
                  const std::vector<std::uint8_t> &masked,
                  const std::vector<std::vector<std::uint8_t>> &layerMasked = {});
    // What the model's structure adds to the picture: kvHeadOf[head], the K/V head each query head reads
    // (grouped-query attention: the heads of a group are joined by a bracket under their labels; empty: every
    // head its own), and layerWindow[layer], a sliding-window layer's window in Hugging Face's convention (shown
    // as "W n" under the layer's label; 0 or empty: full attention). Kept until changed.
    void setStructure(const std::vector<int> &kvHeadOf, const std::vector<int> &layerWindow);
    const std::vector<int> &kvHeadOf() const { return m_kvHeadOf; }
    const std::vector<int> &layerWindow() const { return m_layerWindow; }
    void clear();
    void setColorMap(ColorMap map);
    void setValueRange(double lower, double upper);
    // One colour scale for every thumbnail (the data range, percentile and log over all heads together, so
    // that thumbnails compare); the colour bar's ticks and label follow it.
    void setColorScale(ColorScale scale);
    ColorScale colorScale() const { return m_scale; }
    void setSelected(int layer, int head);
    int selectedLayer() const { return m_selLayer; }
    int selectedHead() const { return m_selHead; }
    int layers() const { return m_layers; }
    int heads() const { return m_heads; }

    QRect thumbnailRect(int layer, int head) const;      // widget coordinates
    bool headAt(QPoint pos, int *layer, int *head) const;

    // The grid as a figure: one row per layer where the heads fit, thumbnails large enough to read, and room for
    // the colour bar that figures draw at the right (and the screen leaves out).
    QSize figureSize() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

signals:
    void headClicked(int layer, int head);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    struct Geometry {
        int cell = 0, columns = 1, rowsPerLayer = 1, labelWidth = 0, labelHeight = 0;
    };
    // `figure`: leaves room at the right for the colour bar, as exports draw it.
    Geometry geometryFor(int width, bool figure) const;
    int colorBarWidth() const;
    QStringList colorBarTicks() const;
    int colorBarTickWidth() const;
    void paintColorBar(QPainter &p, const Geometry &g);
    void paintKvGroups(QPainter &p, const Geometry &g, int layer);
    bool hasWindows() const;
    QFont windowFont() const;
    QString windowLabel(int layer) const;   // "W 4" for a sliding-window layer, else empty
    int labelColumnWidth() const;
    void rebuildImages();

    int m_layers = 0, m_heads = 0, m_length = 0;
    int m_side = 0;                              // thumbnail resolution: min(length, 256)
    std::vector<std::vector<float>> m_weights;   // per head [m_side, m_side], subsampled; empty when not computed
    std::vector<std::vector<std::uint8_t>> m_masked;   // per layer [m_side, m_side] or empty
    std::vector<int> m_kvHeadOf, m_layerWindow;
    std::vector<QImage> m_images;
    ColorMap m_map = ColorMap::Viridis;
    double m_lower = 0.0, m_upper = 1.0;
    ColorScale m_scale;
    ScaledMatrix m_scaled;   // its range, log or linear and label (values dropped once the images are made)
    int m_selLayer = 0, m_selHead = 0;
};

} // namespace attnui
