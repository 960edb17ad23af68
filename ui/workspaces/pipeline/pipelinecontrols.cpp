// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/pipeline/pipelinecontrols.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace attnui {

ScoreSpreadPlot::ScoreSpreadPlot(QWidget *parent) : QWidget(parent), m_spread(scoreSpreadByDk())
{
    setMinimumSize(240, 150);
    setToolTip(tr("Standard deviation of q·k for random q, k whose entries have mean 0 and variance 1 (4,000 "
                  "samples per d_k). Without scaling it grows like √d_k; divided by √d_k it stays near 1."));
}

void ScoreSpreadPlot::setMarkedDk(int dk, double dotStd)
{
    m_marked = dk;
    m_dotStd = dotStd;
    setToolTip(tr("Standard deviation of q·k for random q, k whose entries have mean 0 and variance 1 (4,000 "
                  "samples per d_k). Without scaling it grows like √d_k; divided by √d_k it stays near 1.") +
               (dotStd > 0 ? tr(" The squares: this head's own q·k (std %1) and q·k/√%2 (std %3); its entries are not "
                                "unit-variance, so it need not sit on the curves.")
                                 .arg(dotStd, 0, 'g', 3).arg(dk).arg(dotStd / std::sqrt(double(dk)), 0, 'g', 3)
                           : QString()));
    update();
}

void ScoreSpreadPlot::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF area = QRectF(rect()).adjusted(38, 8, -8, -30);
    const double xMax = std::log2(512.0), yMin = std::log2(0.5), yMax = std::log2(32.0);
    auto pt = [&](double dk, double sd) {
        const double x = area.left() + area.width() * std::log2(dk) / xMax;
        const double y = area.bottom() - area.height() * (std::log2(std::max(sd, 0.5)) - yMin) / (yMax - yMin);
        return QPointF(x, y);
    };
    const QColor text = palette().color(QPalette::WindowText);
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.drawRect(area);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    p.setPen(text);
    for (int dk : {1, 8, 64, 512}) {
        const QPointF a = pt(dk, 0.5);
        p.drawText(QRectF(a.x() - 20, area.bottom() + 2, 40, 14), Qt::AlignCenter, QString::number(dk));
    }
    for (double sd : {0.5, 1.0, 4.0, 16.0}) {
        const QPointF a = pt(1, sd);
        p.drawText(QRectF(0, a.y() - 7, area.left() - 4, 14), Qt::AlignRight | Qt::AlignVCenter, QString::number(sd));
    }
    p.drawText(QRectF(area.left(), area.bottom() + 14, area.width(), 14), Qt::AlignCenter,
               tr("d_k (log scale) → std of q·k"));
    if (m_marked > 0) {
        p.setPen(QPen(palette().color(QPalette::Highlight), 1, Qt::DashLine));
        const double x = pt(m_marked, 1).x();
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        p.drawText(QRectF(x + 3, area.top() + 2, 80, 14), Qt::AlignLeft, tr("this head"));
    }
    const auto curve = [&](const std::vector<double> &ys, QColor c, const QString &label, double labelY) {
        QPainterPath path;
        for (std::size_t i = 0; i < ys.size(); ++i) {
            const QPointF q = pt(m_spread.dk[i], ys[i]);
            i == 0 ? path.moveTo(q) : path.lineTo(q);
            p.setPen(Qt::NoPen);
            p.setBrush(c);
            p.drawEllipse(q, 2.5, 2.5);
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(c, 2));
        p.drawPath(path);
        p.drawText(QRectF(area.left() + 4, labelY, 160, 14), Qt::AlignLeft, label);
    };
    curve(m_spread.stdRaw, QColor(0xd6, 0x60, 0x4d), tr("q·k  (≈ √d_k)"), area.top() + 2);
    curve(m_spread.stdScaled, QColor(0x43, 0x93, 0xc3), tr("q·k / √d_k  (≈ 1)"), area.top() + 16);
    if (m_marked > 0 && m_dotStd > 0) {
        // This head's own numbers at its d_k: squares in the curves' colours (clipped to the plot's range).
        const auto square = [&](double sd, QColor c) {
            const QPointF q = pt(m_marked, std::min(sd, 32.0));
            p.setPen(QPen(text, 1));
            p.setBrush(c);
            p.drawRect(QRectF(q.x() - 4, q.y() - 4, 8, 8));
        };
        square(m_dotStd, QColor(0xd6, 0x60, 0x4d));
        square(m_dotStd / std::sqrt(double(m_marked)), QColor(0x43, 0x93, 0xc3));
        p.setPen(text);
        p.drawText(QRectF(area.left() + 4, area.bottom() - 16, area.width() - 8, 14), Qt::AlignRight,
                   tr("■ this head: std %1 → %2").arg(m_dotStd, 0, 'g', 3).arg(m_dotStd / std::sqrt(double(m_marked)), 0, 'g', 3));
    }
}

ToyEditor::ToyEditor(QWidget *parent) : QGroupBox(tr("Toy: type your own numbers"), parent)
{
    setCheckable(true);
    setChecked(false);
    setToolTip(tr("Checked: the stages show a head whose X, W_Q, W_K and W_V — or Q, K and V — you type (up to %1 "
                  "tokens and %1 dimensions) instead of the model's head").arg(kToyMax));
    auto *form = new QFormLayout(this);
    auto *sizes = new QHBoxLayout;
    const auto spin = [&](const QString &prefix, int value) {
        auto *b = new QSpinBox;
        b->setRange(1, kToyMax);
        b->setPrefix(prefix);
        b->setValue(value);
        sizes->addWidget(b);
        return b;
    };
    m_n = spin(tr("n "), m_toy.n);
    m_d = spin(tr("d_model "), m_toy.dModel);
    m_dk = spin(tr("d_k "), m_toy.dHead);
    form->addRow(sizes);
    m_matrix = new QComboBox;
    m_matrix->addItem(tr("X  (n × d_model)"));
    m_matrix->addItem(tr("W_Q  (d_model × d_k)"));
    m_matrix->addItem(tr("W_K  (d_model × d_k)"));
    m_matrix->addItem(tr("W_V  (d_model × d_k)"));
    m_matrix->addItem(tr("Q  (n × d_k), typed directly"));
    m_matrix->addItem(tr("K  (n × d_k), typed directly"));
    m_matrix->addItem(tr("V  (n × d_k), typed directly"));
    form->addRow(tr("Edit"), m_matrix);
    m_table = new QTableWidget;
    m_table->setToolTip(tr("Type a number into a cell, or drag a cell left or right (%1 per %2 pixels, with Shift "
                           "%3); every stage follows").arg(kDragStep).arg(kDragPixels).arg(10 * kDragStep));
    m_table->viewport()->installEventFilter(this);
    form->addRow(m_table);
    m_note = new QLabel;
    m_note->setWordWrap(true);
    form->addRow(m_note);
    for (QSpinBox *b : {m_n, m_d, m_dk})
        connect(b, &QSpinBox::valueChanged, this, [this] {
            m_toy.resize(m_n->value(), m_d->value(), m_dk->value());
            fillTable();
            emit edited();
        });
    connect(m_matrix, &QComboBox::currentIndexChanged, this, &ToyEditor::fillTable);
    connect(this, &QGroupBox::toggled, this, &ToyEditor::showContents);
    showContents(false);
    connect(m_table, &QTableWidget::cellChanged, this, [this](int row, int col) {
        bool ok = false;
        const double value = m_table->item(row, col)->text().trimmed().replace(QLatin1Char(','), QLatin1Char('.')).toDouble(&ok);
        if (!ok) {
            fillTable();   // not a number: the cell shows its old value again
            return;
        }
        setValue(row, col, value);
    });
    fillTable();
}

void ToyEditor::setValue(int row, int col, double value)
{
    const Matrix which = matrix();
    const bool qkv = which == Q || which == K || which == V;
    const int cols = m_table->columnCount();
    const std::size_t i = std::size_t(row * cols + col);
    if (!std::isfinite(value) || std::abs(value) > 1e6 || i >= shown().size()) {
        fillTable();
        return;
    }
    // The last matrix typed into decides: Q, K, V typed directly, or computed from X and the W's.
    m_toy.setDirect(qkv);
    std::vector<double> *m = nullptr;
    switch (which) {
    case X: m = &m_toy.x; break;
    case WQ: m = &m_toy.wq; break;
    case WK: m = &m_toy.wk; break;
    case WV: m = &m_toy.wv; break;
    case Q: m = &m_toy.q; break;
    case K: m = &m_toy.k; break;
    case V: m = &m_toy.v; break;
    }
    (*m)[i] = value;
    fillTable();
    emit edited();
}

ToyEditor::Matrix ToyEditor::matrix() const { return Matrix(m_matrix->currentIndex()); }

std::vector<double> ToyEditor::shown() const
{
    switch (matrix()) {
    case X: return m_toy.x;
    case WQ: return m_toy.wq;
    case WK: return m_toy.wk;
    case WV: return m_toy.wv;
    case Q: return m_toy.queries();
    case K: return m_toy.keys();
    case V: break;
    }
    return m_toy.values();
}

QString ToyEditor::noteText() const { return m_note->isVisibleTo(this) ? m_note->text() : QString(); }

bool ToyEditor::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_table->viewport()) return QGroupBox::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::MouseButtonPress: {
        auto *e = static_cast<QMouseEvent *>(event);
        const QModelIndex index = m_table->indexAt(e->position().toPoint());
        m_drag = {};
        if (e->button() == Qt::LeftButton && index.isValid()) {
            const std::vector<double> values = shown();
            const std::size_t i = std::size_t(index.row() * m_table->columnCount() + index.column());
            if (i < values.size()) m_drag = {index.row(), index.column(), e->position().toPoint().x(), values[i], false};
        }
        return false;   // selection and editing as usual
    }
    case QEvent::MouseMove: {
        auto *e = static_cast<QMouseEvent *>(event);
        if (m_drag.row < 0 || !(e->buttons() & Qt::LeftButton)) return false;
        const int dx = e->position().toPoint().x() - m_drag.startX;
        if (!m_drag.moving && std::abs(dx) < kDragPixels / 2) return false;
        m_drag.moving = true;
        const double step = (e->modifiers() & Qt::ShiftModifier) ? 10 * kDragStep : kDragStep;
        // Whole steps from where the drag started, rounded to the step so that 0.1 + 0.2 reads 0.3.
        const double value = std::round((m_drag.startValue + std::round(double(dx) / kDragPixels) * step) / step) * step;
        const std::vector<double> values = shown();
        const std::size_t i = std::size_t(m_drag.row * m_table->columnCount() + m_drag.col);
        if (i < values.size() && value != values[i]) setValue(m_drag.row, m_drag.col, value);
        return true;
    }
    case QEvent::MouseButtonRelease: {
        const bool moved = m_drag.moving;
        m_drag = {};
        return moved;   // a drag is not also a click
    }
    default: break;
    }
    return false;
}

void ToyEditor::showContents(bool on)
{
    // Unchecked, only the title line: the side panel keeps its room for the model's head.
    for (QWidget *w : findChildren<QWidget *>(Qt::FindDirectChildrenOnly)) w->setVisible(on);
    if (on) fillTable();   // the note's visibility
}

void ToyEditor::setActive(bool on)
{
    const QSignalBlocker block(this);
    setChecked(on);
    showContents(on);
}

void ToyEditor::setToy(const ToyHead &toy)
{
    m_toy = toy;
    const QSignalBlocker b1(m_n), b2(m_d), b3(m_dk);
    m_n->setValue(toy.n);
    m_d->setValue(toy.dModel);
    m_dk->setValue(toy.dHead);
    fillTable();
}

void ToyEditor::fillTable()
{
    const QSignalBlocker block(m_table);
    const Matrix which = matrix();
    const bool perToken = which == X || which == Q || which == K || which == V;
    const int rows = perToken ? m_toy.n : m_toy.dModel, cols = which == X ? m_toy.dModel : m_toy.dHead;
    const std::vector<double> m = shown();
    m_table->setRowCount(rows);
    m_table->setColumnCount(cols);
    QStringList rowLabels;
    for (int r = 0; r < rows; ++r) rowLabels << (perToken ? QStringLiteral("t%1").arg(r) : QString::number(r));
    m_table->setVerticalHeaderLabels(rowLabels);
    QStringList colLabels;   // counted from 0, like every index in AttnScope
    for (int c = 0; c < cols; ++c) colLabels << QString::number(c);
    m_table->setHorizontalHeaderLabels(colLabels);
    // X and the W's are kept while Q, K, V are typed, but do not count: shown greyed.
    const bool unused = m_toy.direct && !(which == Q || which == K || which == V);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            auto *item = new QTableWidgetItem(QString::number(m[std::size_t(r * cols + c)], 'g', 6));
            if (unused) item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
            m_table->setItem(r, c, item);
        }
    m_table->resizeColumnsToContents();
    // As tall as its rows (at most kToyMax), no empty space under them.
    int height = m_table->horizontalHeader()->height() + 2 * m_table->frameWidth() + 2;
    for (int r = 0; r < rows; ++r) height += m_table->rowHeight(r);
    m_table->setFixedHeight(height);
    if (m_toy.direct)
        m_note->setText(unused ? tr("Q, K and V are typed directly, so X and the W's are not used now; a number typed "
                                    "here computes Q, K and V from them again.")
                               : tr("Q, K and V are typed directly (X and the W's are not used)."));
    else if (which == Q || which == K || which == V)
        m_note->setText(tr("Computed as X · W; type or drag a number to set Q, K and V yourself."));
    else
        m_note->clear();
    m_note->setVisible(isChecked() && !m_note->text().isEmpty());
}

PipelineControls::PipelineControls(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_toy = new ToyEditor;
    layout->addWidget(m_toy);
    auto *box = new QGroupBox(tr("Try changing"));
    auto *form = new QFormLayout(box);
    m_scale = new QCheckBox(tr("divide scores by √d_k"));
    m_scale->setChecked(true);
    m_scale->setToolTip(tr("The model's own scale factor (1/√d_k); off: the raw dot products go into softmax."));
    form->addRow(m_scale);
    m_temperature = new QSlider(Qt::Horizontal);
    m_temperature->setRange(-100, 100);
    m_temperature->setValue(0);
    m_temperature->setToolTip(tr("Scores are divided by T before softmax: T < 1 sharpens, T > 1 flattens."));
    m_temperatureLabel = new QLabel;
    auto *tRow = new QHBoxLayout;
    tRow->addWidget(m_temperature, 1);
    tRow->addWidget(m_temperatureLabel);
    form->addRow(tr("Temperature"), tRow);
    m_mask = new QComboBox;
    m_mask->addItem(tr("model's own"), int(PipelineSettings::Mask::Model));
    m_mask->addItem(tr("bidirectional (none)"), int(PipelineSettings::Mask::Bidirectional));
    m_mask->addItem(tr("causal"), int(PipelineSettings::Mask::Causal));
    m_mask->addItem(tr("window ±w"), int(PipelineSettings::Mask::Window));
    m_window = new QSpinBox;
    m_window->setRange(0, 4096);
    m_window->setValue(2);
    m_window->setPrefix(tr("w "));
    auto *mRow = new QHBoxLayout;
    mRow->addWidget(m_mask, 1);
    mRow->addWidget(m_window);
    form->addRow(tr("Mask"), mRow);
    m_positional = new QComboBox;
    m_positional->addItem(tr("the model's own"), int(PipelineSettings::Positional::Model));
    m_positional->addItem(tr("none (dropped)"), int(PipelineSettings::Positional::None));
    m_positional->setToolTip(tr("Drop the positional information (learned, sinusoidal, RoPE or ALiBi) in every layer. "
                                "A model trained with it will behave differently without it."));
    form->addRow(tr("Positions"), m_positional);
    layout->addWidget(box);

    // The variants from before and around the Transformer: other score functions on this head's q and k, and
    // attention dropout shown on the weights.
    auto *variants = new QGroupBox(tr("Score function and dropout"));
    auto *vLayout = new QVBoxLayout(variants);
    auto *vForm = new QFormLayout;
    vLayout->addLayout(vForm);
    m_score = new QComboBox;
    for (attn::ScoreFunction f : {attn::ScoreFunction::ScaledDot, attn::ScoreFunction::Dot, attn::ScoreFunction::General,
                                  attn::ScoreFunction::Additive})
        m_score->addItem(scoreLabel(f), int(f));
    m_score->setToolTip(tr("How a query and a key are scored. The model was trained with the scaled dot product; the "
                           "others run on its real q and k with seeded parameters (W, W_a, v_a), for comparison."));
    m_scoreSeed = new QSpinBox;
    m_scoreSeed->setRange(0, int(kMaxSeed));
    m_scoreSeed->setValue(1);
    m_scoreSeed->setPrefix(tr("seed "));
    m_scoreSeed->setToolTip(tr("The seed of the general and additive scores' parameters (Xavier-uniform)."));
    auto *sRow = new QHBoxLayout;
    sRow->addWidget(m_score, 1);
    sRow->addWidget(m_scoreSeed);
    vForm->addRow(tr("Score"), sRow);
    m_dropout = new QDoubleSpinBox;
    m_dropout->setRange(0.0, kMaxDropout);
    m_dropout->setSingleStep(0.05);
    m_dropout->setDecimals(2);
    m_dropout->setPrefix(tr("p = "));
    m_dropout->setSpecialValueText(tr("off"));
    m_dropout->setToolTip(tr("Attention dropout as in training: the softmax stage shows which weights a seeded draw "
                             "drops and the 1/(1 − p) rescale. The other stages stay exact."));
    m_dropoutSeed = new QSpinBox;
    m_dropoutSeed->setRange(0, int(kMaxSeed));
    m_dropoutSeed->setValue(1);
    m_dropoutSeed->setPrefix(tr("seed "));
    auto *dRow = new QHBoxLayout;
    dRow->addWidget(m_dropout, 1);
    dRow->addWidget(m_dropoutSeed);
    vForm->addRow(tr("Dropout"), dRow);
    auto *rnn = new QLabel(rnnAttentionExplanation());
    rnn->setWordWrap(true);
    rnn->setTextFormat(Qt::RichText);
    vLayout->addWidget(rnn);   // a wrapped label gets its height for its width in a box layout, not a form row
    layout->addWidget(variants);

    auto *sat = new QGroupBox(tr("Softmax saturation (this head, every row)"));
    auto *satLayout = new QVBoxLayout(sat);
    m_saturation = new QLabel;
    m_saturation->setWordWrap(true);
    m_saturation->setTextFormat(Qt::RichText);
    satLayout->addWidget(m_saturation);
    layout->addWidget(sat);

    auto *spread = new QGroupBox(tr("Why √d_k: spread of q·k for random vectors"));
    auto *spreadLayout = new QVBoxLayout(spread);
    m_spread = new ScoreSpreadPlot;
    spreadLayout->addWidget(m_spread);
    layout->addWidget(spread);
    layout->addStretch(1);

    connect(m_scale, &QCheckBox::toggled, this, &PipelineControls::changed);
    connect(m_temperature, &QSlider::valueChanged, this, [this] { updateLabels(); emit changed(); });
    connect(m_mask, &QComboBox::currentIndexChanged, this, [this] { updateLabels(); emit changed(); });
    connect(m_window, &QSpinBox::valueChanged, this, &PipelineControls::changed);
    connect(m_positional, &QComboBox::currentIndexChanged, this, &PipelineControls::changed);
    connect(m_score, &QComboBox::currentIndexChanged, this, [this] { updateLabels(); emit changed(); });
    connect(m_scoreSeed, &QSpinBox::valueChanged, this, &PipelineControls::changed);
    connect(m_dropout, &QDoubleSpinBox::valueChanged, this, [this] { updateLabels(); emit changed(); });
    connect(m_dropoutSeed, &QSpinBox::valueChanged, this, &PipelineControls::changed);
    updateLabels();
}

double PipelineControls::temperatureFromSlider(int value)
{
    return std::pow(10.0, value / 100.0);
}

int PipelineControls::sliderFromTemperature(double t)
{
    return int(std::lround(std::clamp(100.0 * std::log10(t), -100.0, 100.0)));
}

void PipelineControls::applyTo(PipelineSettings *s) const
{
    s->scale = m_scale->isChecked();
    // The slider's steps are coarse; keep a restored temperature exactly while the slider has not moved.
    const double t = temperatureFromSlider(m_temperature->value());
    if (sliderFromTemperature(s->temperature) != m_temperature->value()) s->temperature = t;
    s->mask = PipelineSettings::Mask(m_mask->currentData().toInt());
    s->window = m_window->value();
    s->positional = PipelineSettings::Positional(m_positional->currentData().toInt());
    s->score = attn::ScoreFunction(m_score->currentData().toInt());
    s->scoreSeed = std::uint64_t(m_scoreSeed->value());
    // The box rounds to its two decimals; keep a restored p exactly while the box shows it.
    if (std::abs(s->dropout - m_dropout->value()) >= 0.005) s->dropout = m_dropout->value();
    s->dropoutSeed = std::uint64_t(m_dropoutSeed->value());
}

void PipelineControls::setFrom(const PipelineSettings &s)
{
    const QSignalBlocker b1(m_scale), b2(m_temperature), b3(m_mask), b4(m_window), b5(m_positional), b6(m_score),
        b7(m_scoreSeed), b8(m_dropout), b9(m_dropoutSeed);
    m_score->setCurrentIndex(m_score->findData(int(s.score)));
    m_scoreSeed->setValue(int(s.scoreSeed));
    m_dropout->setValue(s.dropout);
    m_dropoutSeed->setValue(int(s.dropoutSeed));
    m_scale->setChecked(s.scale);
    m_temperature->setValue(sliderFromTemperature(s.temperature));
    m_mask->setCurrentIndex(m_mask->findData(int(s.mask)));
    m_window->setValue(s.window);
    m_positional->setCurrentIndex(m_positional->findData(int(s.positional)));
    updateLabels();
}

void PipelineControls::updateLabels()
{
    m_temperatureLabel->setText(QStringLiteral("T = %1").arg(temperatureFromSlider(m_temperature->value()), 0, 'f', 2));
    m_window->setEnabled(m_mask->currentData().toInt() == int(PipelineSettings::Mask::Window));
    const auto score = attn::ScoreFunction(m_score->currentData().toInt());
    m_scale->setEnabled(score == attn::ScoreFunction::ScaledDot);   // only the scaled dot product is scaled
    m_scoreSeed->setEnabled(score == attn::ScoreFunction::General || score == attn::ScoreFunction::Additive);
    m_dropoutSeed->setEnabled(m_dropout->value() > 0.0);
}

void PipelineControls::showSnapshot(const PipelineSnapshot &s)
{
    m_positional->setEnabled(s.canDropPositions || s.settings.positional == PipelineSettings::Positional::None);
    m_positional->setToolTip(s.canDropPositions ? m_positional->toolTip()
                                                : tr("This model has no positional information to drop."));
    m_mask->setItemText(0, s.modelCausal ? tr("model's (causal)") : tr("model's (bidirectional)"));
    m_spread->setMarkedDk(s.dHead, s.dotStd);
    const auto row = [](const QString &name, const Saturation &x, bool current) {
        const QString cell = current ? QStringLiteral("<td><b>%1</b></td>") : QStringLiteral("<td>%1</td>");
        return QStringLiteral("<tr><td>%1</td>").arg(name) + cell.arg(x.meanMaxWeight, 0, 'f', 3) +
               cell.arg(QStringLiteral("%1 / %2").arg(x.meanEntropyBits, 0, 'f', 2).arg(x.meanUniformBits, 0, 'f', 2)) +
               QStringLiteral("</tr>");
    };
    m_saturation->setText(
        QStringLiteral("<table cellspacing=4><tr><th></th><th>largest weight</th><th>entropy / uniform (bits)</th></tr>") +
        row(tr("÷√d_k"), s.withScale, s.settings.scale) + row(tr("no scaling"), s.withoutScale, !s.settings.scale) +
        QStringLiteral("</table>") +
        tr("<p>Means over rows, at T = %1. d_k = %2: without scaling the scores are √%2 ≈ %3× larger, so softmax "
           "moves towards one-hot (largest weight → 1, entropy → 0) and its gradients vanish.</p>")
            .arg(s.settings.temperature, 0, 'f', 2)
            .arg(s.dHead)
            .arg(std::sqrt(double(s.dHead)), 0, 'f', 1));
}

} // namespace attnui
