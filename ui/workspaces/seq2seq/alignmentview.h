// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Cross-attention between two sentences, BertViz style: the source tokens in a row on top, the target tokens
// (each the token a decoder step produces) in a row below, and a line from each target token to each source
// token whose opacity and width follow the weight. Hovering a token shows only its lines (a target token's
// weights over the source, or who looked at a source token).
//
// Generation (setStep(k)): the target as far as step k, later tokens not yet made; only step k's lines, and each
// source token filled with the colour of its weight, the number under it — where the new token looked.

#include "plots/colormaps.h"

#include <QFont>
#include <QRect>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

namespace attnui {

class AlignmentView : public QWidget {
    Q_OBJECT
public:
    enum class Side { Source, Target };
    struct Data {
        QStringList source;                 // [S] columns
        QStringList target;                 // [T] rows: the token each step produces
        std::vector<std::uint8_t> sourceSpecial;   // [S] drawn muted
        int targetWords = 0;                // rows from here on (</s>) drawn muted
        std::vector<float> weights;         // [T, S]
        QString title;                      // "cross-attention, L1 H2"
    };
    struct Line {
        int row = 0, col = 0;
        double weight = 0.0;
    };

    explicit AlignmentView(QWidget *parent = nullptr);

    void setData(Data data);
    const Data &data() const { return m_data; }
    void setColorMap(ColorMap map);
    // −1: every step (the alignment); k ≥ 0: generation up to step k (clamped to the rows).
    void setStep(int step);
    int step() const { return m_step; }
    void setHovered(Side side, int index);   // index −1: none; tokenHovered follows a change
    int hoveredIndex() const { return m_hoverIndex; }

    // What paintEvent draws, weakest first: lines of at least kMinWeight, of the hovered token or the step only.
    static constexpr double kMinWeight = 0.02;
    std::vector<Line> lines() const;
    QRect tokenRect(Side side, int index) const;
    // As a figure: wide enough for every token of the longer sentence, a band of lines between them.
    QSize figureSize() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void tokenHovered(int row, int col);   // −1 for the side not hovered; both −1 when the mouse leaves

protected:
    void changeEvent(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    int slotWidth(const QFont &f) const;   // one token's natural slot in `f`, for the longer row
    QFont tokenFont() const;      // the labels' font: the widget's, smaller when the sentences do not fit
    int slot() const;             // the slot as laid out: the width shared by the longer sentence's tokens
    int rowY(Side side) const;    // top of the row's boxes
    bool rowVisible(int row) const;   // generation: made by step k
    double weight(int row, int col) const;

    // The token boxes as laid out for the current data, size and font (layout()); reset by setData and a font change.
    struct Layout {
        QSize size;
        QFont font;
        std::vector<QRect> source, target;
    };
    const Layout &layout() const;
    mutable std::optional<Layout> m_layout;

    Data m_data;
    ColorMap m_colorMap = ColorMap::Viridis;
    int m_step = -1;
    Side m_hoverSide = Side::Target;
    int m_hoverIndex = -1;
};

} // namespace attnui
