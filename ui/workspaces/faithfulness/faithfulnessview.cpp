// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/faithfulness/faithfulnessview.h"

#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "workspaces/faithfulness/datasetmode.h"
#include "workspaces/faithfulness/faithfulnessfigure.h"
#include "workspaces/faithfulness/faithfulnesstable.h"
#include "kit/dataexport.h"
#include "kit/numbering.h"
#include "kit/stateio.h"

#include <attnscope/export.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <cmath>
#include <vector>

namespace attnui {

namespace {

constexpr int kDebounceMs = 300;

QComboBox *namedCombo(const QList<std::pair<QString, QString>> &items)
{
    auto *combo = new QComboBox;
    for (const auto &[text, data] : items) combo->addItem(text, data);
    return combo;
}

void selectData(QComboBox *combo, const QString &data)
{
    const int i = combo->findData(data);
    if (i >= 0) combo->setCurrentIndex(i);
}

} // namespace

FaithfulnessView::FaithfulnessView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("faithfulness"), {.debounceMs = kDebounceMs, .followBackend = false}, parent)
{
    buildUi();
    // Its own progress bar and Cancel beside Run: a suite can take minutes.
    connect(runner(), &EngineRunner::started, this, [this] {
        m_progress->setValue(0);
        m_progress->show();
        m_cancel->setEnabled(true);
    });
    connect(runner(), &EngineRunner::progress, this, [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(runner(), &EngineRunner::idle, this, [this] {
        m_progress->hide();
        m_cancel->setEnabled(false);
    });
    connect(runner(), &EngineRunner::cancelled, this, [this] { m_estimateLabel->setText(m_estimateLabel->text() + tr(" — cancelled")); });
    onModelChanged();
}

FaithfulnessView::~FaithfulnessView() = default;

QString FaithfulnessView::guide() const
{
    return tr("<p><b>Faithfulness</b> asks whether attention points at the tokens the model actually uses. It compares "
              "importance read from attention (one head, the mean of the last layer, rollout or flow) with importance "
              "measured by removing tokens (leave-one-out, occlusion) and watching the model's output.</p>"
              "<p>The table scores every method by how much the output changes when its most important tokens are "
              "removed or kept (comprehensiveness, sufficiency, deletion and insertion curves), each beside a random "
              "ordering; the scatter plots attention against perturbation, labelling the most prominent tokens (hover "
              "for the others). Dataset mode runs the same suite over a whole evaluation set.</p>"
              "<p>Try: with sample:rationale-bert, compare the deletion curve of attention with the random one.</p>");
}

QString FaithfulnessView::explanation() const
{
    if (isDatasetMode())
        return tr("The same suite over a whole evaluation set: for each metric, the distribution over examples of every "
                  "method beside the random baseline, the mean with its bootstrap 95 % interval and a paired test "
                  "against random (Wilcoxon, Holm-adjusted). Double-click an example to see it on its own.");
    return tr("Does attention point at the tokens the model actually uses? Left, importance read from attention; "
              "right, importance measured by removing tokens and watching the output. The numbers below say how well "
              "they agree, each beside what a random ordering gets.");
}

void FaithfulnessView::buildUi()
{
    auto *controls = new QWidget;
    auto *side = new QVBoxLayout(controls);
    side->setContentsMargins(0, 0, 0, 0);

    auto *modeRow = new QHBoxLayout;
    modeRow->addWidget(new QLabel(tr("Mode:")));
    m_mode = namedCombo({{tr("One example"), QStringLiteral("example")}, {tr("Dataset"), QStringLiteral("dataset")}});
    m_mode->setToolTip(tr("One example: the text typed in Explore, every view. Dataset: the same suite over a whole evaluation "
                          "set, with distributions, confidence intervals and tests against random."));
    modeRow->addWidget(m_mode, 1);
    side->addLayout(modeRow);
    m_dataset = new DatasetMode(subject(), [this] { return datasetSettings(); }, this);
    side->addWidget(m_dataset->controls());

    auto *inputBox = new QGroupBox(tr("Input"));
    auto *inputForm = new QFormLayout(inputBox);
    m_exampleLabel = new QLabel(tr("Rationale:"));
    m_example = new QComboBox;
    m_example->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_example->setMinimumContentsLength(16);
    m_example->setToolTip(tr("Examples with ground-truth evidence tokens (the model folder's rationales.json)"));
    inputForm->addRow(m_exampleLabel, m_example);
    m_target = new QComboBox;
    inputForm->addRow(tr("Target:"), m_target);
    side->addWidget(inputBox);

    auto *methodBox = new QGroupBox(tr("Importance"));
    auto *methodForm = new QFormLayout(methodBox);
    m_attention = namedCombo({{tr("One head"), QStringLiteral("head")},
                              {tr("Mean of heads (last layer)"), QStringLiteral("head_mean")},
                              {tr("Rollout"), QStringLiteral("rollout")},
                              {tr("Flow"), QStringLiteral("flow")}});
    methodForm->addRow(tr("Attention:"), m_attention);
    auto *headRow = new QHBoxLayout;
    m_layer = makeIndexSpinBox(tr("layer "));
    m_head = makeIndexSpinBox(tr("head "));
    headRow->addWidget(m_layer);
    headRow->addWidget(m_head);
    methodForm->addRow(tr("Head:"), headRow);
    m_perturbation = namedCombo({{tr("Leave-one-out, deletion"), QStringLiteral("loo_deletion")},
                                 {tr("Leave-one-out, key knockout"), QStringLiteral("loo_knockout")},
                                 {tr("Occlusion"), QStringLiteral("occlusion")}});
    methodForm->addRow(tr("Perturbation:"), m_perturbation);
    m_baseline = namedCombo({{tr("[MASK] token"), QStringLiteral("mask")},
                             {tr("[UNK] token"), QStringLiteral("unk")},
                             {tr("padding token"), QStringLiteral("pad")},
                             {tr("zero embedding"), QStringLiteral("zero_embedding")}});
    m_baseline->setToolTip(tr("What replaces a token for occlusion"));
    methodForm->addRow(tr("Occlusion:"), m_baseline);
    m_removal = namedCombo({{tr("deletion"), QStringLiteral("deletion")},
                            {tr("key knockout"), QStringLiteral("knockout")},
                            {tr("[MASK] token"), QStringLiteral("mask")},
                            {tr("zero embedding"), QStringLiteral("zero_embedding")}});
    m_removal->setToolTip(tr("How ERASER, AOPC and the curves remove tokens"));
    methodForm->addRow(tr("ERASER by:"), m_removal);
    side->addWidget(methodBox);

    auto *testBox = new QGroupBox(tr("Baselines and head tests"));
    auto *testForm = new QFormLayout(testBox);
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1000000);
    m_seed->setValue(42);
    testForm->addRow(tr("Seed:"), m_seed);
    m_randomSeeds = new QSpinBox;
    m_randomSeeds->setRange(1, 50);
    m_randomSeeds->setValue(5);
    testForm->addRow(tr("Random orders:"), m_randomSeeds);
    m_permutations = new QSpinBox;
    m_permutations->setRange(1, 1000);
    m_permutations->setValue(100);
    m_permTest = new QCheckBox(tr("Permute"));
    m_permTest->setChecked(true);
    m_permTest->setText(tr("Permute each head ×"));
    auto *permRow = new QHBoxLayout;
    permRow->addWidget(m_permTest);
    permRow->addWidget(m_permutations);
    testForm->addRow(permRow);
    m_uniformTest = new QCheckBox(tr("Uniform attention per head"));
    m_uniformTest->setChecked(true);
    testForm->addRow(m_uniformTest);
    m_ablationTest = new QCheckBox(tr("Ablate each head, show"));
    m_ablationTest->setChecked(true);
    m_ablationView = namedCombo({{tr("zero"), QStringLiteral("zero")}, {tr("mean"), QStringLiteral("mean")}});
    auto *ablRow = new QHBoxLayout;
    ablRow->addWidget(m_ablationTest);
    ablRow->addWidget(m_ablationView);
    testForm->addRow(ablRow);
    m_sanity = new QCheckBox(tr("Sanity checks"));
    m_sanity->setToolTip(tr("Recompute every importance for another target, and on copies of the model whose output head "
                            "and then top layers are re-initialized (cascading parameter randomization)"));
    m_sanity->setChecked(true);
    testForm->addRow(m_sanity);
    side->addWidget(testBox);

    m_singleRun = new QWidget;
    auto *single = new QVBoxLayout(m_singleRun);
    single->setContentsMargins(0, 0, 0, 0);
    m_estimateLabel = new QLabel;
    m_estimateLabel->setWordWrap(true);
    single->addWidget(m_estimateLabel);
    auto *buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    single->addLayout(buttons);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->hide();
    single->addWidget(m_progress);
    side->addWidget(m_singleRun);
    side->addStretch(1);

    m_figure = new FaithfulnessFigure;
    m_figures = new QStackedWidget;
    m_figures->addWidget(m_figure);
    m_figures->addWidget(m_dataset->view());
    makeControlsPage(controls, m_figures, 316);
    m_dataset->controls()->hide();
    refreshExplanation();

    // The session fields that are a control's value.
    m_bindings.add(QStringLiteral("attention"), m_attention);
    m_bindings.add(QStringLiteral("perturbation"), m_perturbation);
    m_bindings.add(QStringLiteral("occlusion_baseline"), m_baseline);
    m_bindings.add(QStringLiteral("removal"), m_removal);
    m_bindings.add(QStringLiteral("seed"), m_seed);
    m_bindings.add(QStringLiteral("random_seeds"), m_randomSeeds);
    m_bindings.add(QStringLiteral("permutations"), m_permutations);
    m_bindings.add(QStringLiteral("permutation_test"), m_permTest);
    m_bindings.add(QStringLiteral("uniform_test"), m_uniformTest);
    m_bindings.add(QStringLiteral("head_ablation"), m_ablationTest);
    m_bindings.add(QStringLiteral("ablation_view"), m_ablationView);
    m_bindings.add(QStringLiteral("sanity_check"), m_sanity);

    // Display-only choices redraw; the rest changes the suite and re-runs.
    for (QComboBox *c : {m_attention, m_perturbation, m_ablationView})
        connect(c, &QComboBox::currentIndexChanged, this, [this] { refreshFigure(); });
    for (QComboBox *c : {m_baseline, m_removal, m_target})
        connect(c, &QComboBox::currentIndexChanged, this, &FaithfulnessView::onSettingChanged);
    for (QSpinBox *s : {m_layer, m_head, m_seed, m_randomSeeds, m_permutations})
        connect(s, &QSpinBox::valueChanged, this, &FaithfulnessView::onSettingChanged);
    for (QCheckBox *c : {m_permTest, m_uniformTest, m_ablationTest, m_sanity})
        connect(c, &QCheckBox::toggled, this, &FaithfulnessView::onSettingChanged);
    connect(m_example, &QComboBox::activated, this, [this](int index) { useRationaleExample(index - 1); });
    connect(m_run, &QPushButton::clicked, this, &FaithfulnessView::rerun);
    connect(m_cancel, &QPushButton::clicked, runner(), &EngineRunner::cancel);
    connect(m_mode, &QComboBox::activated, this, [this] { setDatasetMode(m_mode->currentIndex() == 1); });
    connect(m_dataset, &DatasetMode::exampleRequested, this, &FaithfulnessView::openDatasetExample);
    connect(m_dataset, &DatasetMode::figureChanged, this, [this] {
        if (isDatasetMode()) emit figureChanged();
    });
    connect(m_dataset, &DatasetMode::resultShown, this, [this] {
        if (isDatasetMode()) emit resultShown();
    });
}

bool FaithfulnessView::isDatasetMode() const { return m_mode && m_mode->currentIndex() == 1; }

void FaithfulnessView::setDatasetMode(bool on)
{
    {
        const QSignalBlocker block(m_mode);
        m_mode->setCurrentIndex(on ? 1 : 0);
    }
    m_dataset->controls()->setVisible(on);
    m_singleRun->setVisible(!on);
    m_example->setVisible(!on && !m_rationales.isEmpty());
    m_exampleLabel->setVisible(!on && !m_rationales.isEmpty());
    // Which importance the single-example panels show is theirs alone: the dataset runs them all.
    m_attention->setEnabled(!on);
    m_perturbation->setEnabled(!on);
    m_ablationView->setEnabled(!on);
    m_figures->setCurrentIndex(on ? 1 : 0);
    refreshExplanation();
    emit figureChanged();
    if (!on) onSettingChanged();   // catch up with edits made while the dataset was shown
}

attn::DatasetSettings FaithfulnessView::datasetSettings() const
{
    attn::DatasetSettings s;
    s.analysis = attn::DatasetAnalysis::Faithfulness;
    s.faithfulness = settings();
    s.seed = s.faithfulness.seed;
    s.randomSeeds = s.faithfulness.randomSeeds;
    s.backend = s.faithfulness.backend;
    s.target = s.faithfulness.targetClass ? "class:" + std::to_string(*s.faithfulness.targetClass) : "predicted";
    s.faithfulness.targetClass.reset();   // per example: the dataset's target, else `target`
    s.version = ATTNSCOPE_VERSION;
    return s;
}

void FaithfulnessView::openDatasetExample(const QString &text, const QList<qint64> &gold)
{
    m_datasetGold = {text, std::vector<std::int64_t>(gold.begin(), gold.end())};
    setDatasetMode(false);
    subject()->setText(text);
    rerun();
}

void FaithfulnessView::onModelChanged()
{
    const TextModelPtr model = subject()->model();
    m_rationales = model ? readRationales(modelFolder(subject()->modelSpec())) : QList<RationaleExample>{};
    {
        const QSignalBlocker block(m_example);
        m_example->clear();
        m_example->addItem(tr("(the text typed in Explore)"));
        for (int i = 0; i < m_rationales.size(); ++i) {
            const RationaleExample &e = m_rationales[i];
            m_example->addItem(tr("#%1 %2: %3").arg(i).arg(e.label, e.text), i);
            m_example->setItemData(i + 1, e.text, Qt::ToolTipRole);
        }
    }
    m_example->setVisible(!isDatasetMode() && !m_rationales.isEmpty());
    m_exampleLabel->setVisible(!isDatasetMode() && !m_rationales.isEmpty());
    {
        const QSignalBlocker b1(m_target), b2(m_layer), b3(m_head);
        m_target->clear();
        m_target->addItem(tr("predicted"), -1);
        if (model) {
            const attn::ModelConfig &c = model->model().config();
            if (c.head == attn::ModelHead::Classification)
                for (std::size_t i = 0; i < c.labels.size(); ++i)
                    m_target->addItem(tr("class %1 (%2)").arg(i).arg(QString::fromStdString(c.labels[i])), int(i));
            setIndexCount(m_layer, int(c.layers));
            setIndexCount(m_head, int(c.heads));
            // A head a session asked for before this model was open; else the engine's default: last layer, head 0.
            if (m_sessionHead && m_sessionHead->layer < c.layers && m_sessionHead->head < c.heads) {
                setIndex(m_layer, int(m_sessionHead->layer));
                setIndex(m_head, int(m_sessionHead->head));
            } else {
                setIndex(m_layer, int(c.layers) - 1);
                setIndex(m_head, 0);
            }
            m_sessionHead.reset();
            // Token baselines only where the tokenizer has the token; the engine's default: [MASK], else zero.
            const attn::SpecialTokenIds ids = model->tokenizer() ? model->tokenizer()->specialTokenIds() : attn::SpecialTokenIds{};
            const auto enable = [](QComboBox *combo, const QString &data, bool on) {
                auto *items = qobject_cast<QStandardItemModel *>(combo->model());
                const int i = combo->findData(data);
                if (!items || i < 0) return;
                items->item(i)->setEnabled(on);
                items->item(i)->setToolTip(on ? QString() : tr("This model's tokenizer has no such token"));
            };
            enable(m_baseline, QStringLiteral("mask"), ids.mask >= 0);
            enable(m_baseline, QStringLiteral("unk"), ids.unk >= 0);
            enable(m_removal, QStringLiteral("mask"), ids.mask >= 0);
            // Keep the choices this model can run (a session's, or the user's); else the defaults.
            auto *baselines = qobject_cast<QStandardItemModel *>(m_baseline->model());
            if (!baselines->item(m_baseline->currentIndex())->isEnabled())
                m_baseline->setCurrentIndex(m_baseline->findData(ids.mask >= 0 ? QStringLiteral("mask") : QStringLiteral("zero_embedding")));
            if (ids.mask < 0 && m_removal->currentData().toString() == QLatin1String("mask")) m_removal->setCurrentIndex(0);
            if (m_sessionTarget) m_target->setCurrentIndex(std::max(0, m_target->findData(*m_sessionTarget)));
            m_sessionTarget.reset();
        }
        m_target->setEnabled(m_target->count() > 1);
    }
    onSettingChanged();
}

std::vector<std::int64_t> FaithfulnessView::goldTokens() const
{
    const QString text = subject()->text();
    if (!m_datasetGold.second.empty() && m_datasetGold.first == text) return m_datasetGold.second;
    for (const RationaleExample &e : m_rationales)
        if (e.text == text) return e.evidence;
    return {};
}

void FaithfulnessView::useRationaleExample(int index)
{
    if (index < 0 || index >= m_rationales.size()) return;
    subject()->setText(m_rationales[index].text);
}

attn::FaithfulnessSettings FaithfulnessView::settings() const
{
    attn::FaithfulnessSettings s;
    s.head = attn::HeadRef{indexOf(m_layer), indexOf(m_head)};
    s.occlusionBaseline = *attn::parseRemovalOperator(m_baseline->currentData().toString().toStdString());
    s.removal = *attn::parseRemovalOperator(m_removal->currentData().toString().toStdString());
    const int target = m_target->currentData().toInt();
    if (target >= 0) s.targetClass = target;
    s.seed = std::uint64_t(m_seed->value());
    s.randomSeeds = m_randomSeeds->value();
    s.permutations = m_permutations->value();
    s.permutationTest = m_permTest->isChecked();
    s.uniformTest = m_uniformTest->isChecked();
    s.headAblation = m_ablationTest->isChecked();
    s.randomLogitCheck = m_sanity->isChecked();
    s.randomization = m_sanity->isChecked() ? attn::RandomizationMode::Cascade : attn::RandomizationMode::None;
    s.backend = subject()->backend();   // View ▸ Backend, as every workspace
    return s;
}

std::string FaithfulnessView::attentionMethod() const { return m_attention->currentData().toString().toStdString(); }
std::string FaithfulnessView::perturbationMethod() const { return m_perturbation->currentData().toString().toStdString(); }
void FaithfulnessView::setAttentionMethod(const std::string &name) { selectData(m_attention, QString::fromStdString(name)); }
void FaithfulnessView::setPerturbationMethod(const std::string &name) { selectData(m_perturbation, QString::fromStdString(name)); }

void FaithfulnessView::onSettingChanged()
{
    // The example picker follows the text.
    const QString text = subject()->text();
    int current = 0;
    for (int i = 0; i < m_rationales.size(); ++i)
        if (m_rationales[i].text == text) current = i + 1;
    {
        const QSignalBlocker block(m_example);
        m_example->setCurrentIndex(current);
    }
    updateEstimate();
    scheduleRun();
}

void FaithfulnessView::updateEstimate()
{
    const TextModelPtr model = subject()->model();
    m_estimate = model ? estimatePasses(*model, subject()->text(), subject()->tokenizeOptions(), settings()) : -1;
    if (!model) m_estimateLabel->setText(tr("Open a model in Explore first."));
    else if (m_estimate < 0) m_estimateLabel->setText(tr("The text cannot be tokenized for this model."));
    else if (m_estimate <= kAutoRunPasses)
        m_estimateLabel->setText(tr("This suite runs ≈ %L1 forward passes; it starts by itself.").arg(m_estimate));
    else
        m_estimateLabel->setText(tr("<b>This suite runs ≈ %L1 forward passes.</b> Press Run to start it.").arg(m_estimate));
}

QString FaithfulnessView::estimateText() const { return m_estimateLabel->text(); }

void FaithfulnessView::submit()
{
    FaithfulnessRequest r;
    r.model = requireModel(tr("Open a model in Explore first: faithfulness perturbs a model's input."));
    if (!r.model) return;
    r.text = subject()->text();
    r.tokenize = subject()->tokenizeOptions();
    r.settings = settings();
    r.gold = goldTokens();
    for (QComboBox *combo : {m_baseline, m_removal}) {
        auto *items = qobject_cast<QStandardItemModel *>(combo->model());
        if (items && !items->item(combo->currentIndex())->isEnabled()) {
            showError(tr("%1 is not available for this model: its tokenizer has no such token.").arg(combo->currentText()));
            return;
        }
    }
    if (m_sessionTarget && m_target->findData(*m_sessionTarget) < 0) {
        showError(tr("Target class %1 is not a class of this model.").arg(*m_sessionTarget));
        return;
    }
    runner()->submit([r](const JobContext &ctx) { return runFaithfulnessJob(r, ctx); });
}

bool FaithfulnessView::onResult(const SnapshotPtr &snapshot)
{
    auto s = snapshotAs<FaithfulnessSnapshot>(snapshot);
    if (!s) return false;
    m_snapshot = std::move(s);
    refreshFigure();
    return true;
}

void FaithfulnessView::refreshFigure()
{
    if (!m_snapshot) return;
    m_figure->setSnapshot(m_snapshot, attentionMethod(), perturbationMethod(), m_ablationView->currentData().toString());
}

QWidget *FaithfulnessView::figureWidget() const
{
    if (isDatasetMode()) return m_dataset->figure();
    return m_snapshot ? m_figure : nullptr;
}

FigureLayout FaithfulnessView::figureLayout() const
{
    // The single-text figure is a page of fixed panels (bars, scatter, table, curves, head maps, checks): laid out
    // for a page, whatever the window. The dataset figure is exported as it is shown.
    if (isDatasetMode()) return {};
    return {QSize(1240, 1290), 0.7, 1.4};
}

QString FaithfulnessView::figureCaption() const
{
    if (isDatasetMode()) return m_dataset->caption();
    const attn::FaithfulnessSettings s = settings();
    // "head L2 H0 vs LOO (deletion)", "attention rollout vs ...": the head only where the method has one.
    return tr("%1 · %2 vs %3 · removal %4 · occlusion %5 · seed %6, %7 random orders, %8 permutations")
        .arg(captionStart(), importanceDisplayName(attentionMethod(), s.head), importanceDisplayName(perturbationMethod()),
             QString::fromStdString(attn::removalOperatorName(s.removal)),
             QString::fromStdString(attn::removalOperatorName(*s.occlusionBaseline)))
        .arg(s.seed).arg(s.randomSeeds).arg(s.permutations);
}

void FaithfulnessView::setColorMap(ColorMap map) { m_figure->setColorMap(map); }

QStringList FaithfulnessView::dataFormats() const
{
    if (isDatasetMode()) return m_dataset->dataFormats();
    return m_snapshot ? QStringList{tr("JSON, as attnscope-cli faithfulness writes it (*.json)")} : QStringList{};
}

bool FaithfulnessView::exportData(const QString &path, QString *error) const
{
    if (isDatasetMode()) return m_dataset->exportData(path, error);
    if (!m_snapshot) return Workspace::exportData(path, error);
    return writeTextFile(attn::faithfulnessExportJson(*m_snapshot->model, m_snapshot->settings, m_snapshot->result), path, error);
}

QJsonObject FaithfulnessView::sessionState() const
{
    const attn::FaithfulnessSettings s = settings();
    QJsonObject state = m_bindings.save();
    state.insert(QStringLiteral("head"), headSpec(*s.head));
    state.insert(QStringLiteral("target_class"), m_target->currentData().toInt());
    return state;
}

bool FaithfulnessView::restoreSessionState(const QJsonObject &state, QString *error)
{
    StateReader in(state, m_bindings.keys() + QStringList{QStringLiteral("head"), QStringLiteral("target_class")});
    m_bindings.read(in);
    int target = m_target->currentData().toInt();
    in.integer(QStringLiteral("target_class"), -1, 1 << 20, target);   // −1: the predicted class
    std::optional<attn::HeadRef> head;
    in.head(QStringLiteral("head"), head);
    if (!in.ok(error)) return false;

    // All valid: apply, then run once. Head and target class are checked against the model when it runs: a
    // session sets workspace states before it opens its model.
    m_bindings.apply();
    if (state.contains(QStringLiteral("target_class"))) {
        m_sessionTarget = target;
        const QSignalBlocker block(m_target);
        if (m_target->findData(target) >= 0) m_target->setCurrentIndex(m_target->findData(target));
    }
    if (head) {
        m_sessionHead = head;
        const QSignalBlocker b1(m_layer), b2(m_head);
        setIndex(m_layer, int(head->layer));
        setIndex(m_head, int(head->head));
    }
    refreshFigure();
    onSettingChanged();
    return true;
}

bool FaithfulnessView::showView(const QString &spec, QString *error)
{
    if (spec != QLatin1String("faithfulness")) return Workspace::showView(spec, error);
    rerun();
    return true;
}

} // namespace attnui
