// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Faithfulness workspace's figure: attention importance beside perturbation importance as token bars, the
// scatter of one against the other with Kendall τ-b and Spearman ρ, the metrics table, deletion / insertion
// curves with the random curve, per-head grids (permutation TVD, uniform TVD, head ablation Δ), the sanity check
// and, when a ground-truth rationale is known, its evidence tokens. What Export Figure writes.

#include "workspaces/faithfulness/faithfulnessrun.h"
#include "plots/colormaps.h"

#include <QWidget>

#include <memory>

class QLabel;
class QTableWidget;

namespace attnui {

class HeatmapPlot;
class XYPlot;

class FaithfulnessFigure : public QWidget {
    Q_OBJECT
public:
    explicit FaithfulnessFigure(QWidget *parent = nullptr);

    // attention / perturbation: importance names ("head", "rollout", "loo_deletion", ...); ablation: "zero"/"mean".
    void setSnapshot(const std::shared_ptr<const FaithfulnessSnapshot> &snapshot, const std::string &attention,
                     const std::string &perturbation, const QString &ablation);
    void setColorMap(ColorMap map);

    XYPlot *attentionBars() const { return m_attnBars; }
    XYPlot *perturbationBars() const { return m_pertBars; }
    XYPlot *scatter() const { return m_scatter; }
    XYPlot *curves() const { return m_curves; }
    QTableWidget *table() const { return m_table; }
    HeatmapPlot *permutationGrid() const { return m_permGrid; }
    HeatmapPlot *uniformGrid() const { return m_uniformGrid; }
    HeatmapPlot *ablationGrid() const { return m_ablationGrid; }
    QString summaryText() const;
    QString sanityText() const;
    QString rationaleText() const;
    // The sanity checks are one verdict line each; a click on one (or this) shows its numbers or hides them.
    void toggleSanityDetails(int check);
    int sanityCheckCount() const { return int(m_checks.size()); }

private:
    void showBars(const FaithfulnessSnapshot &s, const std::string &attention, const std::string &perturbation);
    void showCurves(const FaithfulnessSnapshot &s, const std::string &attention);
    void showHeads(const FaithfulnessSnapshot &s, const QString &ablation);
    void showNotes(const FaithfulnessSnapshot &s);
    void showSanity();

    struct SanityCheck {
        QString verdict;   // "✓ Another target: …" or "⚠ …", rich text
        QString details;   // the numbers behind it
        bool open = false;
    };
    QList<SanityCheck> m_checks;

    QLabel *m_summary = nullptr;
    XYPlot *m_attnBars = nullptr;
    XYPlot *m_pertBars = nullptr;
    XYPlot *m_scatter = nullptr;
    QTableWidget *m_table = nullptr;
    XYPlot *m_curves = nullptr;
    HeatmapPlot *m_permGrid = nullptr;
    HeatmapPlot *m_uniformGrid = nullptr;
    HeatmapPlot *m_ablationGrid = nullptr;
    QLabel *m_sanity = nullptr;
    QLabel *m_rationale = nullptr;
    ColorMap m_colorMap = ColorMap::Viridis;
};

} // namespace attnui
