// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The token line view (BertViz head-view style): queries in a column on the left, keys on the right, a line
// from each query to each key whose opacity and width follow the attention weight, one colour per head. Heads
// are switched on and off with their checkboxes; hovering a token shows only its lines (a query's weights over
// the keys, or a key's weights from every query). Shows one layer of an Explore snapshot; paints only what is
// visible, so a new result costs nothing while the tab is hidden.

#include "workspaces/explore/experiment.h"

#include <QColor>
#include <QWidget>

#include <climits>
#include <memory>
#include <vector>

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QScrollArea;

namespace attnui {

class LineView : public QWidget {
    Q_OBJECT
public:
    enum class Side { Query, Key };

    // One line as painted: the pair, its head, and how it is drawn.
    struct Line {
        int head = 0, query = 0, key = 0;
        double weight = 0.0;
        double opacity = 0.0;   // in [0, 1]
        double width = 0.0;     // pixels
    };

    explicit LineView(QWidget *parent = nullptr);
    ~LineView() override;

    void setSnapshot(std::shared_ptr<const ExploreSnapshot> snapshot);
    void setLayer(int layer);
    int layer() const { return m_layer; }
    int length() const { return m_snapshot ? m_snapshot->length() : 0; }

    void setHeadEnabled(int head, bool enabled);
    bool isHeadEnabled(int head) const;
    static QColor headColor(int head);

    // The token under the mouse (none: side Query, index −1); lines of other tokens are hidden while one is.
    void setHoveredToken(Side side, int index);
    int hoveredIndex() const { return m_hoverIndex; }
    Side hoveredSide() const { return m_hoverSide; }

    // What paintEvent draws, in drawing order (weakest first): lines of enabled heads above the visibility
    // threshold, restricted to the hovered token when there is one, and to queries in [firstQuery, lastQuery].
    std::vector<Line> lines(int firstQuery = 0, int lastQuery = INT_MAX) const;
    QRect tokenRect(Side side, int index) const;   // label rectangle in canvas() coordinates
    QWidget *canvas() const;                       // the painted area (inside a scroll area)
    // The figure of this view: as wide as its band of lines needs and tall enough for every token.
    QSize figureSize() const;

signals:
    void tokenHovered(int query, int key);         // −1 for the side not hovered; both −1 when the mouse leaves

protected:
    void showEvent(QShowEvent *event) override;

private:
    class Canvas;
    void relayout();
    void rebuildHeadBoxes();
    void updateNote();

    std::shared_ptr<const ExploreSnapshot> m_snapshot;
    int m_layer = 0;
    std::vector<bool> m_enabled;                   // per head of the layer
    Side m_hoverSide = Side::Query;
    int m_hoverIndex = -1;
    bool m_layoutDirty = false;   // a new snapshot not yet measured (the tab was hidden)

    QLabel *m_intro = nullptr;
    QLabel *m_note = nullptr;
    QLabel *m_legend = nullptr;   // figures only: the heads' colours, for the check boxes they leave out
    QHBoxLayout *m_headRow = nullptr;
    std::vector<QCheckBox *> m_boxes;
    QScrollArea *m_scroll = nullptr;
    Canvas *m_canvas = nullptr;
};

} // namespace attnui
