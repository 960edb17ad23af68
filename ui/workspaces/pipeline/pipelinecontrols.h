// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Pipeline workspace's side panel: the toggles (÷√d_k on/off, temperature, mask, positional encoding; the score
// function and attention dropout as teaching variants, with the RNN-era attention step explained), what
// they do to softmax (mean largest weight and entropy per row, with and without scaling), and a small plot of
// the spread of q·k against d_k for random vectors — the reason for ÷√d_k; and the toy's numbers to type.

#include "workspaces/pipeline/pipelinestages.h"

#include <QGroupBox>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;
class QTableWidget;

namespace attnui {

// std(q·k) against d_k on log-log axes, raw and after ÷√d_k, with the current head's d_k marked.
class ScoreSpreadPlot : public QWidget {
    Q_OBJECT
public:
    explicit ScoreSpreadPlot(QWidget *parent = nullptr);
    // The head on screen: its d_k, and the standard deviation of its own q·k (drawn raw and ÷√d_k at that d_k).
    void setMarkedDk(int dk, double dotStd = 0.0);
    const ScoreSpread &spread() const { return m_spread; }
    QSize sizeHint() const override { return {280, 170}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    ScoreSpread m_spread;
    int m_marked = 0;
    double m_dotStd = 0.0;
};

// The toy's numbers: n, d_model and d_k (1 … kToyMax), and one editable table for X, W_Q, W_K, W_V — or Q, K, V
// themselves: a number typed into Q, K or V makes them typed (ToyHead::direct) until one of X or the W's is edited
// again. A cell takes a typed number, or a drag left or right (kDragStep per kDragPixels, ×10 with Shift). A
// checkable group: checked, the Pipeline shows the toy instead of the model's head.
class ToyEditor : public QGroupBox {
    Q_OBJECT
public:
    enum Matrix { X, WQ, WK, WV, Q, K, V };   // the Edit box's items, in order
    static constexpr int kDragPixels = 8;
    static constexpr double kDragStep = 0.1;

    explicit ToyEditor(QWidget *parent = nullptr);
    ToyHead toy() const { return m_toy; }
    void setToy(const ToyHead &toy);           // emits nothing
    void setActive(bool on);                   // checked or not, emits nothing
    QTableWidget *table() const { return m_table; }
    QComboBox *matrixBox() const { return m_matrix; }
    QString noteText() const;                  // what the note under the table says (empty: hidden)

signals:
    void edited();                             // a number or a size changed

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    Matrix matrix() const;
    // The numbers the table shows: a matrix of the toy, or (Q, K, V not typed) X·W computed for display.
    std::vector<double> shown() const;
    void setValue(int row, int col, double value);   // the one way a number changes
    void showContents(bool on);
    void fillTable();

    ToyHead m_toy = ToyHead::example();
    QSpinBox *m_n = nullptr, *m_d = nullptr, *m_dk = nullptr;
    QComboBox *m_matrix = nullptr;
    QTableWidget *m_table = nullptr;
    QLabel *m_note = nullptr;
    struct Drag {
        int row = -1, col = -1;
        int startX = 0;
        double startValue = 0.0;
        bool moving = false;
    } m_drag;
};

class PipelineControls : public QWidget {
    Q_OBJECT
public:
    explicit PipelineControls(QWidget *parent = nullptr);

    // The toggle fields of `s` (scale, temperature, mask, window, positional, score and its seed, dropout and its
    // seed); layer and head are left alone.
    void applyTo(PipelineSettings *s) const;
    void setFrom(const PipelineSettings &s);   // emits nothing
    void showSnapshot(const PipelineSnapshot &s);

    QCheckBox *scaleBox() const { return m_scale; }
    QSlider *temperatureSlider() const { return m_temperature; }
    QComboBox *maskBox() const { return m_mask; }
    QComboBox *positionalBox() const { return m_positional; }
    QComboBox *scoreBox() const { return m_score; }
    QSpinBox *scoreSeedBox() const { return m_scoreSeed; }
    QDoubleSpinBox *dropoutBox() const { return m_dropout; }
    QSpinBox *dropoutSeedBox() const { return m_dropoutSeed; }
    QLabel *saturationLabel() const { return m_saturation; }
    ToyEditor *toyEditor() const { return m_toy; }

    static double temperatureFromSlider(int value);   // 10^(value/100): −100..100 → 0.1..10
    static int sliderFromTemperature(double t);

signals:
    void changed();

private:
    void updateLabels();

    QCheckBox *m_scale = nullptr;
    QSlider *m_temperature = nullptr;
    QLabel *m_temperatureLabel = nullptr;
    QComboBox *m_mask = nullptr;
    QSpinBox *m_window = nullptr;
    QComboBox *m_positional = nullptr;
    QComboBox *m_score = nullptr;
    QSpinBox *m_scoreSeed = nullptr;
    QDoubleSpinBox *m_dropout = nullptr;
    QSpinBox *m_dropoutSeed = nullptr;
    QLabel *m_saturation = nullptr;
    ScoreSpreadPlot *m_spread = nullptr;
    ToyEditor *m_toy = nullptr;
};

} // namespace attnui
