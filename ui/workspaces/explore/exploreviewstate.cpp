// SPDX-License-Identifier: GPL-3.0-or-later
// ExploreView, the parts the shell drives: session state, headless views (attnscope-cli figure), opening a model on
// a given text (sessions, lessons), the explanation line. Views: grid, head:L.H, lines:L, statistics, rollout, outputs;
// layers and heads count from 0 here, as in `attnscope-cli run --heads L.H` and in the GUI's titles ("L1 H2").

#include "workspaces/explore/exploreview.h"

#include "plots/headgrid.h"
#include "kit/stateio.h"
#include "kit/subject.h"
#include "kit/texteditor.h"

#include <attnscope/attention.h>

#include <QComboBox>
#include <QJsonArray>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>

namespace attnui {

namespace {

constexpr qsizetype kMaxPairChars = 100000;   // a QA context may be long; the text itself has its own limit
const QStringList kTabNames{QStringLiteral("head"), QStringLiteral("lines"), QStringLiteral("statistics"),
                            QStringLiteral("rollout"), QStringLiteral("outputs"), QStringLiteral("dataset")};


} // namespace

void ExploreView::adoptSubjectModel()
{
    m_model = subject()->model();
    m_raw = false;
    m_loadingSpec.clear();
    m_useFirstExample = false;
    {
        const QSignalBlocker block(m_text);
        m_text->setPlainText(subject()->text());
    }
    syncModelPicker();
    updateModeWidgets();
    rerun();
}

void ExploreView::openModel(const QString &spec, const QString &text)
{
    {
        const QSignalBlocker block(m_text);
        m_text->setPlainText(text);
    }
    subject()->setText(text);
    m_loadingSpec = spec;
    m_useFirstExample = false;
    m_modelInfo->setText(tr("Opening %1…").arg(spec));
    rerun();
}

void ExploreView::updateExplanation()
{
    // The line view, the statistics and the rollout panels explain themselves at their top; the head and the
    // outputs tabs get explanation() here, so that every tab says what it shows once.
    const int tab = m_tabs->currentIndex();
    refreshExplanation();
    explanationLabel()->setVisible(tab == HeadTab || tab == OutputsTab || tab == DatasetTab);
}

QPair<int, int> ExploreView::modelShape() const
{
    if (m_model && !m_raw)
        return {int(m_model->model().config().layers), int(m_model->model().config().heads)};
    if (m_raw) return {1, m_heads->value()};
    if (m_snapshot) return {m_snapshot->layers, m_snapshot->heads};
    return {0, 0};
}

QJsonObject ExploreView::sessionState() const
{
    QJsonObject state{{QStringLiteral("tab"), kTabNames.value(m_tabs->currentIndex())},
                      {QStringLiteral("layer"), m_layer},
                      {QStringLiteral("head"), m_head},
                      {QStringLiteral("raw"), m_raw},
                      {QStringLiteral("truncate"), subject()->truncate()}};
    if (!subject()->textPair().isEmpty()) state.insert(QStringLiteral("text_pair"), subject()->textPair());
    if (m_raw) {
        const ExperimentRequest r = request();
        state.insert(QStringLiteral("experiment"),
                     QJsonObject{{QStringLiteral("heads"), r.heads},
                                 {QStringLiteral("d_model"), r.dModel},
                                 {QStringLiteral("seed"), qint64(r.seed)},
                                 {QStringLiteral("mask"), maskKindName(r.mask)},
                                 {QStringLiteral("window"), r.window},
                                 {QStringLiteral("positional"), m_positional->currentData().toString()},
                                 {QStringLiteral("backend"), m_backend->currentData().toString()}});
    }
    return state;
}

bool ExploreView::restoreSessionState(const QJsonObject &state, QString *error)
{
    // Everything is checked before anything changes: a bad field leaves the view as it was.
    StateReader in(state);
    QString tabName = kTabNames.value(m_tabs->currentIndex());
    int layer = m_layer, head = m_head;
    bool raw = false, truncate = false;
    QString pair;
    in.choice(QStringLiteral("tab"), kTabNames, tabName)
        .integer(QStringLiteral("layer"), 0, 4095, layer)
        .integer(QStringLiteral("head"), 0, 4095, head)
        .boolean(QStringLiteral("raw"), raw)
        .boolean(QStringLiteral("truncate"), truncate)
        .string(QStringLiteral("text_pair"), pair, kMaxPairChars);
    if (in.has(QStringLiteral("experiment")) && !state.value(QStringLiteral("experiment")).isObject())
        in.fail(QStringLiteral("experiment"), tr("expected an object"));
    if (!in.ok(error)) return false;
    const int tab = kTabNames.indexOf(tabName);
    StateReader exp(state.value(QStringLiteral("experiment")).toObject());
    int heads = m_heads->value(), dModel = m_dModel->currentData().toInt(), seed = m_seed->value(),
        window = m_window->value();
    int maskIndex = m_mask->currentIndex(), peIndex = m_positional->currentIndex(), backendIndex = m_backend->currentIndex();
    exp.integer(QStringLiteral("heads"), 1, 16, heads)
        .integer(QStringLiteral("d_model"), 1, 4096, dModel)
        .integer(QStringLiteral("seed"), 0, 1000000, seed)
        .integer(QStringLiteral("window"), 0, 4096, window);
    if (m_dModel->findData(dModel) < 0) exp.fail(QStringLiteral("d_model"), tr("%1 is not offered").arg(dModel));
    if (dModel % heads != 0) exp.fail(QStringLiteral("d_model"), tr("%1 is not a multiple of %2 heads").arg(dModel).arg(heads));
    QString maskName, pe, backend;
    exp.string(QStringLiteral("mask"), maskName).string(QStringLiteral("positional"), pe).string(QStringLiteral("backend"), backend);
    if (!maskName.isNull()) {
        maskIndex = -1;
        for (MaskKind k : {MaskKind::Bidirectional, MaskKind::Causal, MaskKind::SlidingWindow})
            if (maskKindName(k) == maskName) maskIndex = m_mask->findData(int(k));
        if (maskIndex < 0) exp.fail(QStringLiteral("mask"), tr("unknown mask '%1'").arg(maskName));
    }
    if (!pe.isNull() && (peIndex = m_positional->findData(pe)) < 0)
        exp.fail(QStringLiteral("positional"), tr("unknown positional encoding"));
    if (!backend.isNull()) {
        backendIndex = m_backend->findData(backend);
        if (backendIndex < 0) exp.fail(QStringLiteral("backend"), tr("unknown backend"));
        // A backend this machine cannot run (CUDA without a GPU) falls back to the default, as in settings.
        else if (!qobject_cast<QStandardItemModel *>(m_backend->model())->item(backendIndex)->isEnabled())
            backendIndex = m_backend->currentIndex();
    }
    if (QString why; !exp.ok(&why)) return failWith(error, QStringLiteral("experiment.") + why);

    {
        const QSignalBlocker b1(m_heads), b2(m_dModel), b3(m_seed), b4(m_mask), b5(m_window), b6(m_positional),
            b7(m_backend);
        m_heads->setValue(heads);
        m_dModel->setCurrentIndex(m_dModel->findData(dModel));
        m_seed->setValue(seed);
        m_mask->setCurrentIndex(maskIndex);
        m_window->setValue(window);
        m_positional->setCurrentIndex(peIndex);
        m_backend->setCurrentIndex(backendIndex);
        updateWindowEnabled();
    }
    m_layer = layer;
    m_head = head;
    m_tabs->setCurrentIndex(tab);
    subject()->setTruncate(truncate);
    subject()->setTextPair(pair);
    syncPairWidgets();
    if (raw && !m_raw) useRawExperiment();
    else if (m_snapshot && layer < m_snapshot->layers && head < m_snapshot->heads) selectHead(layer, head);
    else rerun();   // a head outside this model: clamped when the result (of the model a session opens) is shown
    return true;
}

QStringList ExploreView::viewPrefixes() const
{
    return {QStringLiteral("grid"), QStringLiteral("head"), QStringLiteral("lines"), QStringLiteral("statistics"),
            QStringLiteral("rollout"), QStringLiteral("outputs")};
}

bool ExploreView::showView(const QString &spec, QString *error)
{
    const int colon = spec.indexOf(QLatin1Char(':'));
    const QString prefix = colon < 0 ? spec : spec.left(colon);
    const QString arg = colon < 0 ? QString() : spec.mid(colon + 1);
    const auto [layers, heads] = modelShape();
    const auto showTab = [this](Tab tab) {
        m_viewFigure = nullptr;
        setCurrentTab(tab);
        updateExplanation();
        emit figureChanged();
    };
    const auto noArgument = [&] {
        return arg.isEmpty() || failWith(error, tr("view '%1' takes no argument (use '%2')").arg(spec, prefix));
    };
    if (prefix == QLatin1String("grid")) {
        if (!noArgument()) return false;
        m_viewFigure = m_grid;
        emit figureChanged();
        return true;
    }
    if (prefix == QLatin1String("head")) {
        int layer = 0, head = 0;
        const auto h = parseHeadSpec(arg);
        if (h) {
            layer = int(h->layer);
            head = int(h->head);
        }
        if (!h)
            return failWith(error, tr("view '%1': expected head:L.H with L and H counted from 0").arg(spec));
        if (layer >= layers || head >= heads)
            return failWith(error, tr("view '%1': head %2.%3 is outside the model's %4 layers x %5 heads")
                                   .arg(spec).arg(layer).arg(head).arg(layers).arg(heads));
        showTab(HeadTab);
        selectHead(layer, head);
        return true;
    }
    if (prefix == QLatin1String("lines")) {
        bool ok = false;
        const int layer = arg.toInt(&ok);
        if (!ok || layer < 0) return failWith(error, tr("view '%1': expected lines:L with L counted from 0").arg(spec));
        if (layer >= layers)
            return failWith(error, tr("view '%1': layer %2 is outside the model's %3 layers").arg(spec).arg(layer).arg(layers));
        showTab(LinesTab);
        selectHead(layer, std::min(m_head, std::max(0, heads - 1)));
        return true;
    }
    const int tab = kTabNames.indexOf(prefix);
    if (tab < 0 || prefix == QLatin1String("head") || prefix == QLatin1String("lines"))
        return failWith(error, tr("the Explore workspace has no view '%1'").arg(spec));
    if (!noArgument()) return false;
    showTab(Tab(tab));
    return true;
}

} // namespace attnui
