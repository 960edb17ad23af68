// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Explore (raw experiment until models arrive): text → word embeddings → one random multi-head attention
// layer, shown as a layer × head overview beside one head at full size. Every edit re-runs, debounced, through
// the EngineRunner; the last good result stays on screen while a new one is computed or when a run fails.

#include "explore/experiment.h"
#include "workspace.h"

#include <QPointer>

#include <memory>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QScrollArea;
class QSpinBox;
class QSplitter;
class QTimer;

namespace attnui {

class EngineRunner;
class HeadGrid;
class HeatmapPlot;
class TokenChips;

class ExploreView : public Workspace {
    Q_OBJECT
public:
    explicit ExploreView(EngineRunner *runner, QWidget *parent = nullptr);
    ~ExploreView() override;

    QString title() const override { return tr("Explore"); }
    HeatmapPlot *currentFigure() const override;
    void setColorMap(ColorMap map) override;
    void rerun() override;
    void saveSettings(QSettings &settings) const override;
    void restoreSettings(const QSettings &settings) override;

    ExperimentRequest request() const;              // what the controls say now
    void setText(const QString &text);
    void selectHead(int layer, int head);
    std::shared_ptr<const ExploreSnapshot> snapshot() const { return m_snapshot; }
    HeadGrid *headGrid() const { return m_grid; }
    QString errorText() const;

    static QString defaultText();

signals:
    void resultShown();                             // a new snapshot is on screen

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void fitChips();
    void buildUi();
    void scheduleRun();
    void submit();
    void onFinished(const SnapshotPtr &snapshot);
    void onFailed(const QString &message);
    void showSnapshot();
    void showHead();
    void showError(const QString &message);
    void onCellHovered(int row, int col);
    void onHoverLeft();
    void updateWindowEnabled();

    QPointer<EngineRunner> m_runner;
    quint64 m_pending = 0;
    std::shared_ptr<const ExploreSnapshot> m_snapshot;
    int m_layer = 0, m_head = 0;
    ColorMap m_colorMap = ColorMap::Viridis;

    QTimer *m_debounce = nullptr;
    QPlainTextEdit *m_text = nullptr;
    TokenChips *m_chips = nullptr;
    QScrollArea *m_chipsScroll = nullptr;
    QSpinBox *m_heads = nullptr;
    QComboBox *m_dModel = nullptr;
    QSpinBox *m_seed = nullptr;
    QComboBox *m_mask = nullptr;
    QSpinBox *m_window = nullptr;
    QComboBox *m_positional = nullptr;
    QComboBox *m_backend = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_gridNote = nullptr;
    HeadGrid *m_grid = nullptr;
    HeatmapPlot *m_plot = nullptr;
    QLabel *m_readout = nullptr;
    QSplitter *m_splitter = nullptr;
};

} // namespace attnui
