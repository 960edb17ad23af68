// SPDX-License-Identifier: GPL-3.0-or-later
// ExploreView, the model and its controls: the model picker (samples, recent folders, Open Folder…, the raw
// experiment), opening a model, the raw attention layer's settings box, and the settings kept between runs.

#include "workspaces/explore/exploreview.h"

#include "kit/subject.h"
#include "kit/tokenchips.h"
#include "kit/texteditor.h"

#include <attnscope/attention.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>

namespace attnui {

namespace {

constexpr int kMaxRecent = 8;
const QString kOpenFolder = QStringLiteral("action:open-folder");
const QString kRawExperiment = QStringLiteral("action:raw-experiment");
constexpr attn::Backend kDefaultBackend = attn::Backend::Auto;   // tiled on the CPU; agrees with the reference (tst_ui_runner)

QString positionalLabel(attn::PositionalEncoding pe)
{
    switch (pe) {
    case attn::PositionalEncoding::None: return QObject::tr("none");
    case attn::PositionalEncoding::Sinusoidal: return QObject::tr("sinusoidal");
    case attn::PositionalEncoding::RoPE: return QObject::tr("RoPE");
    case attn::PositionalEncoding::ALiBi: return QObject::tr("ALiBi");
    }
    return {};
}

int comboIndexForData(const QComboBox *combo, const QVariant &value)
{
    const int idx = combo->findData(value);
    return idx >= 0 ? idx : 0;
}

} // namespace

QString ExploreView::defaultText()
{
    return QStringLiteral("the cat sat on the mat because the cat was tired");
}

QString ExploreView::defaultModelSpec()
{
    const std::vector<attn::SampleModelInfo> samples = attn::listSampleModels();
    for (const attn::SampleModelInfo &s : samples)
        if (s.name == "induction-gpt2") return QStringLiteral("sample:induction-gpt2");
    for (const attn::SampleModelInfo &s : samples)
        if (!s.encoderDecoder && !s.vision) return QStringLiteral("sample:") + QString::fromStdString(s.name);
    return {};
}

QStringList ExploreView::recentModels()
{
    return QSettings().value(QStringLiteral("models/recent")).toStringList();
}

void ExploreView::addRecentModel(const QString &folder)
{
    QStringList recent = recentModels();
    recent.removeAll(folder);
    recent.prepend(folder);
    while (recent.size() > kMaxRecent) recent.removeLast();
    QSettings().setValue(QStringLiteral("models/recent"), recent);
}

QWidget *ExploreView::buildRawControls()
{
    m_rawBox = new QGroupBox(tr("Random attention layer"));
    auto *form = new QFormLayout(m_rawBox);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_heads = new QSpinBox;
    m_heads->setRange(1, 16);
    m_heads->setValue(4);
    m_heads->setToolTip(tr("Number of attention heads; d_model must be a multiple of it"));
    form->addRow(tr("&Heads"), m_heads);
    m_dModel = new QComboBox;
    for (int d : {16, 32, 48, 64, 96, 128, 192, 256}) m_dModel->addItem(QString::number(d), d);
    m_dModel->setCurrentIndex(comboIndexForData(m_dModel, 64));
    m_dModel->setToolTip(tr("Embedding width; each head gets d_model / heads dimensions"));
    form->addRow(tr("&d_model"), m_dModel);
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1000000);
    m_seed->setValue(7);
    m_seed->setToolTip(tr("Seed of the random projection weights W_Q, W_K, W_V, W_O"));
    form->addRow(tr("&Seed"), m_seed);
    m_mask = new QComboBox;
    m_mask->addItem(tr("bidirectional"), int(MaskKind::Bidirectional));
    m_mask->addItem(tr("causal"), int(MaskKind::Causal));
    m_mask->addItem(tr("sliding window"), int(MaskKind::SlidingWindow));
    m_mask->setCurrentIndex(comboIndexForData(m_mask, int(MaskKind::Causal)));
    m_window = new QSpinBox;
    m_window->setRange(0, 4096);
    m_window->setValue(2);
    m_window->setPrefix(tr("W = "));
    m_window->setToolTip(tr("Sliding window: a query sees keys at most W positions away"));
    auto *maskRow = new QHBoxLayout;
    maskRow->addWidget(m_mask, 1);
    maskRow->addWidget(m_window);
    auto *maskLabel = new QLabel(tr("&Mask"));
    maskLabel->setBuddy(m_mask);
    form->addRow(maskLabel, maskRow);
    m_positional = new QComboBox;
    for (auto pe : {attn::PositionalEncoding::None, attn::PositionalEncoding::Sinusoidal,
                    attn::PositionalEncoding::RoPE, attn::PositionalEncoding::ALiBi})
        m_positional->addItem(positionalLabel(pe), QString::fromStdString(attn::positionalName(pe)));
    m_positional->setToolTip(tr("Without positional information and without a causal mask the layer is "
                                "permutation-equivariant"));
    form->addRow(tr("&Position"), m_positional);
    m_backend = new QComboBox;
    for (auto b : {attn::Backend::Auto, attn::Backend::Reference, attn::Backend::Tiled, attn::Backend::Unfused,
                   attn::Backend::Cuda})
        m_backend->addItem(QString::fromStdString(attn::backendName(b)), QString::fromStdString(attn::backendName(b)));
    if (!attn::cudaAvailable()) {
        // Greyed out, with the reason where the user looks for it.
        auto *model = qobject_cast<QStandardItemModel *>(m_backend->model());
        QStandardItem *cuda = model->item(m_backend->findData(QStringLiteral("cuda")));
        cuda->setEnabled(false);
        const QString reason = QString::fromStdString(attn::cudaUnavailableReason());
        cuda->setToolTip(tr("CUDA is unavailable: %1").arg(reason));
        m_backend->setToolTip(tr("Compute backend. CUDA is unavailable: %1").arg(reason));
    }
    m_backend->setCurrentIndex(
        comboIndexForData(m_backend, QString::fromStdString(attn::backendName(kDefaultBackend))));
    form->addRow(tr("&Backend"), m_backend);
    for (QSpinBox *spin : {m_heads, m_seed, m_window})
        connect(spin, &QSpinBox::valueChanged, this, &ExploreView::scheduleEditRun);
    for (QComboBox *combo : {m_dModel, m_mask, m_positional, m_backend})
        connect(combo, &QComboBox::currentIndexChanged, this, &ExploreView::scheduleEditRun);
    connect(m_mask, &QComboBox::currentIndexChanged, this, &ExploreView::updateWindowEnabled);
    // View ▸ Backend and this box are one setting, kept in the Subject.
    connect(m_backend, &QComboBox::currentIndexChanged, this, [this] {
        if (auto b = attn::parseBackend(m_backend->currentData().toString().toStdString())) subject()->setBackend(*b);
    });
    connect(subject(), &Subject::runOptionsChanged, this, &ExploreView::rerun);
    connect(subject(), &Subject::backendChanged, this, [this] {
        const int i = m_backend->findData(QString::fromStdString(attn::backendName(subject()->backend())));
        if (i >= 0 && i != m_backend->currentIndex()) m_backend->setCurrentIndex(i);
        else scheduleEditRun();
    });
    updateWindowEnabled();
    m_rawBox->hide();
    return m_rawBox;
}

void ExploreView::rebuildModelPicker()
{
    const QSignalBlocker block(m_modelCombo);
    m_modelCombo->clear();
    for (const attn::SampleModelInfo &s : attn::listSampleModels()) {
        if (s.encoderDecoder || s.vision) continue;   // the Encoder–Decoder or the Vision workspace's
        const QString spec = QStringLiteral("sample:") + QString::fromStdString(s.name);
        m_modelCombo->addItem(tr("Sample: %1").arg(QString::fromStdString(s.name)), spec);
        m_modelCombo->setItemData(m_modelCombo->count() - 1, QString::fromStdString(s.folder), Qt::ToolTipRole);
    }
    // Models downloaded with huggingface_hub, opened by repo id (offline; AttnScope never downloads).
    const std::vector<attn::HubModelInfo> hub = attn::listHubModels();
    if (!hub.empty()) m_modelCombo->insertSeparator(m_modelCombo->count());
    for (const attn::HubModelInfo &m : hub) {
        m_modelCombo->addItem(tr("Hub: %1").arg(QString::fromStdString(m.repoId)), QString::fromStdString(m.repoId));
        m_modelCombo->setItemData(m_modelCombo->count() - 1,
                                  tr("%1 in the Hugging Face cache").arg(QDir::toNativeSeparators(QString::fromStdString(m.snapshot))),
                                  Qt::ToolTipRole);
    }
    const QStringList recent = recentModels();
    if (!recent.isEmpty()) m_modelCombo->insertSeparator(m_modelCombo->count());
    for (const QString &folder : recent) {
        m_modelCombo->addItem(tr("Recent: %1").arg(QFileInfo(folder).fileName()), folder);
        m_modelCombo->setItemData(m_modelCombo->count() - 1, QDir::toNativeSeparators(folder), Qt::ToolTipRole);
    }
    m_modelCombo->insertSeparator(m_modelCombo->count());
    m_modelCombo->addItem(tr("Random attention layer (raw experiment)"), kRawExperiment);
    m_modelCombo->addItem(tr("Open Folder…"), kOpenFolder);
    syncModelPicker();
}

void ExploreView::syncModelPicker()
{
    const QString current = m_raw ? kRawExperiment : m_model ? QString::fromStdString(m_model->spec()) : QString();
    const QSignalBlocker block(m_modelCombo);
    int idx = m_modelCombo->findData(current);
    if (idx < 0 && m_model && !m_raw) {
        // A model opened from elsewhere (a random: spec, a folder not in the recents): list it at the top.
        m_modelCombo->insertItem(0, QString::fromStdString(m_model->displayName()), current);
        idx = 0;
    }
    m_modelCombo->setCurrentIndex(idx);
}

void ExploreView::onModelActivated(int index)
{
    const QString data = m_modelCombo->itemData(index).toString();
    if (data == kRawExperiment) {
        useRawExperiment();
        return;
    }
    if (data == kOpenFolder) {
        syncModelPicker();   // until a folder is chosen and opens, the current model stays selected
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"),
                                                              recentModels().value(0, QDir::homePath()));
        if (!dir.isEmpty()) openModel(dir);
        return;
    }
    if (!data.isEmpty()) openModel(data);
}

void ExploreView::openModel(const QString &spec)
{
    m_loadingSpec = spec;
    m_useFirstExample = true;
    m_modelInfo->setText(tr("Opening %1…").arg(spec));
    rerun();
}

void ExploreView::useRawExperiment()
{
    m_raw = true;
    m_loadingSpec.clear();
    if (m_text->toPlainText().trimmed().isEmpty() || m_model) {
        const QSignalBlocker block(m_text);
        m_text->setPlainText(defaultText());
    }
    // The raw experiment has no model for the other workspaces: the Subject says so (Pipeline then runs its own
    // small random model, on this text) instead of keeping the model and text shown before.
    subject()->setModel(nullptr, QString());
    subject()->setText(m_text->toPlainText());
    updateModeWidgets();
    syncModelPicker();
    rerun();   // the chips follow with its result
}

void ExploreView::updateExampleHint()
{
    // "What to look for" belongs to an example as written: an edited text is no longer that example, so the hint
    // (which names heads and token positions of the example) goes, and comes back if the text is the example again.
    const int ex = m_raw ? -1 : m_examples->findData(m_text->toPlainText());
    const QString hint = ex >= 0 ? m_examples->itemData(ex, Qt::ToolTipRole).toString() : QString();
    {
        const QSignalBlocker block(m_examples);
        m_examples->setCurrentIndex(ex);
    }
    m_exampleHint->setText(hint.isEmpty() ? QString() : tr("What to look for: %1").arg(hint));
    m_exampleHint->setVisible(!hint.isEmpty());
}

void ExploreView::updateModeWidgets()
{
    m_rawBox->setVisible(m_raw);
    // The raw experiment splits words itself: no tokenizer, so no pair and no truncation.
    m_pairBox->setVisible(!m_raw);
    m_truncateBox->setVisible(!m_raw);
    m_pair->setVisible(!m_raw && m_pairBox->isChecked());
    m_examples->setVisible(!m_raw && m_examples->count() > 0);
    m_examplesLabel->setVisible(m_examples->isVisibleTo(this));
    if (m_raw) {
        m_intro->setText(tr("A raw experiment: one random multi-head self-attention layer over fixed random word "
                            "embeddings — the same word always gets the same vector. Edit anything to re-run; "
                            "click a head to enlarge it."));
        m_modelInfo->setText(tr("words split on spaces · 1 layer · no output head"));
        m_exampleHint->hide();
    } else {
        m_intro->setText(tr("Type or pick a text; the model re-runs as you type. Click a head in the overview to "
                            "enlarge it, hover a cell for its weight and raw score."));
        if (m_model) m_modelInfo->setText(describeModel(*m_model));
    }
}

void ExploreView::updateWindowEnabled()
{
    m_window->setEnabled(m_mask->currentData().toInt() == int(MaskKind::SlidingWindow));
}

ExperimentRequest ExploreView::request() const
{
    ExperimentRequest r;
    r.text = m_text->toPlainText();
    r.heads = m_heads->value();
    r.dModel = m_dModel->currentData().toInt();
    r.seed = quint64(m_seed->value());
    r.mask = MaskKind(m_mask->currentData().toInt());
    r.window = m_window->value();
    r.positional = attn::parsePositional(m_positional->currentData().toString().toStdString())
                       .value_or(attn::PositionalEncoding::None);
    r.backend = attn::parseBackend(m_backend->currentData().toString().toStdString()).value_or(kDefaultBackend);
    r.focusHead = m_head;
    r.flow = wantsFlow();
    return r;
}

void ExploreView::saveSettings(QSettings &settings) const
{
    // The raw experiment's settings; the model and text start fresh on the default sample each time.
    const ExperimentRequest r = request();
    settings.setValue(QStringLiteral("heads"), r.heads);
    settings.setValue(QStringLiteral("dModel"), r.dModel);
    settings.setValue(QStringLiteral("seed"), r.seed);
    settings.setValue(QStringLiteral("mask"), maskKindName(r.mask));
    settings.setValue(QStringLiteral("window"), r.window);
    settings.setValue(QStringLiteral("positional"), m_positional->currentData());
    settings.setValue(QStringLiteral("splitter"), m_splitter->saveState());
    settings.setValue(QStringLiteral("tab"), m_tabs->currentIndex());
}

void ExploreView::restoreSettings(const QSettings &settings)
{
    const QSignalBlocker b1(m_heads), b2(m_dModel), b3(m_seed), b4(m_mask), b5(m_window), b6(m_positional),
        b7(m_backend);
    m_heads->setValue(settings.value(QStringLiteral("heads"), m_heads->value()).toInt());
    m_dModel->setCurrentIndex(comboIndexForData(m_dModel, settings.value(QStringLiteral("dModel"), 64).toInt()));
    m_seed->setValue(settings.value(QStringLiteral("seed"), m_seed->value()).toInt());
    const QString mask = settings.value(QStringLiteral("mask"), maskKindName(MaskKind::Causal)).toString();
    for (MaskKind k : {MaskKind::Bidirectional, MaskKind::Causal, MaskKind::SlidingWindow})
        if (maskKindName(k) == mask) m_mask->setCurrentIndex(comboIndexForData(m_mask, int(k)));
    m_window->setValue(settings.value(QStringLiteral("window"), m_window->value()).toInt());
    m_positional->setCurrentIndex(comboIndexForData(m_positional, settings.value(QStringLiteral("positional"))));
    // The backend is View ▸ Backend's (the Subject's, restored by the main window); this box only shows it.
    const int b = m_backend->findData(QString::fromStdString(attn::backendName(subject()->backend())));
    auto *model = qobject_cast<QStandardItemModel *>(m_backend->model());
    if (b >= 0 && model->item(b)->isEnabled()) m_backend->setCurrentIndex(b);
    updateWindowEnabled();
    m_splitter->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
    m_tabs->setCurrentIndex(std::clamp(settings.value(QStringLiteral("tab"), 0).toInt(), 0, m_tabs->count() - 1));
    if (m_raw) scheduleEditRun();
}

} // namespace attnui
