// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/workspace.h"

#include "kit/dataexport.h"
#include "kit/deferredrun.h"
#include "kit/figureactions.h"
#include "plots/headgrid.h"
#include "plots/heatmapplot.h"

#include <QComboBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QSpinBox>
#include <QToolButton>
#include <QContextMenuEvent>
#include <QLabel>
#include <QMenu>
#include <QVBoxLayout>

namespace attnui {

Workspace::Workspace(Subject *subject, const QString &key, Options options, QWidget *parent)
    : QWidget(parent), m_subject(subject), m_runner(new EngineRunner(this))
{
    setObjectName(key);   // the settings group and session key; stable across translations
    connect(this, &Workspace::resultShown, this, &Workspace::applyColorScale);
    connect(this, &Workspace::figureChanged, this, &Workspace::applyColorScale);
    m_deferred = new DeferredRun(this, options.debounceMs, [this] { if (autoRunAllowed()) submit(); }, options.runWhileHidden);
    m_explanation = new QLabel;   // "what am I looking at"; filled once the workspace is built (refreshExplanation)
    m_explanation->setWordWrap(true);
    m_explanation->setObjectName(QStringLiteral("explanation"));
    m_banner = new QLabel;
    m_banner->setObjectName(QStringLiteral("errorBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setStyleSheet(QStringLiteral("QLabel { background: #fde2e1; color: #7a1512; border: 1px solid #f1a7a3;"
                                           " border-radius: 4px; padding: 6px; }"));
    m_banner->hide();
    m_notice = new QFrame;
    m_notice->setObjectName(QStringLiteral("noticeBar"));
    m_notice->setStyleSheet(QStringLiteral("#noticeBar { background: #fff4d6; border: 1px solid #e8c36a; border-radius: 4px; }"
                                           " #noticeBar QLabel { color: #5c4100; }"));
    m_noticeText = new QLabel;
    m_noticeText->setWordWrap(true);
    m_noticeText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *close = new QToolButton;
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close this notice"));
    connect(close, &QToolButton::clicked, this, &Workspace::hideNotice);
    auto *noticeRow = new QHBoxLayout(m_notice);
    noticeRow->setContentsMargins(6, 4, 4, 4);
    noticeRow->addWidget(m_noticeText, 1);
    noticeRow->addWidget(close, 0, Qt::AlignTop);
    m_notice->hide();

    connect(m_runner, &EngineRunner::finished, this, [this](const SnapshotPtr &snapshot) {
        if (!snapshot) return;
        hideError();
        if (!onResult(snapshot)) return;
        emit figureChanged();
        emit resultShown();
    });
    connect(m_runner, &EngineRunner::failed, this, [this](const QString &message) { onRunFailed(message); });
    connect(subject, &Subject::modelChanged, this, [this] { onModelChanged(); });
    connect(subject, &Subject::textChanged, this, [this] { onTextChanged(); });
    connect(subject, &Subject::truncateChanged, this, [this] { onTokenizeOptionsChanged(); });
    if (options.followBackend) connect(subject, &Subject::backendChanged, this, [this] { scheduleRun(); });
}

Workspace::~Workspace()
{
    m_runner->cancel();
}

QVBoxLayout *Workspace::makePage()
{
    auto *page = new QVBoxLayout(this);
    page->addWidget(m_explanation);
    page->addWidget(m_banner);
    page->addWidget(m_notice);
    return page;
}

void Workspace::makeControlsPage(QWidget *controls, QWidget *figure, int width)
{
    QVBoxLayout *page = makePage();
    auto *row = new QHBoxLayout;
    page->addLayout(row, 1);
    for (QSpinBox *spin : controls->findChildren<QSpinBox *>()) spin->setMaximumWidth(width / 2);
    for (QComboBox *combo : controls->findChildren<QComboBox *>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
    }
    auto *scroll = new QScrollArea;
    scroll->setWidget(controls);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setFixedWidth(width);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    row->addWidget(scroll);
    row->addWidget(scrollable(figure), 1);
}

QScrollArea *Workspace::scrollable(QWidget *figure)
{
    // Larger than its minimum the figure fills the area; below it, it keeps its size and scrolls.
    auto *area = new QScrollArea;
    area->setWidget(figure);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

void Workspace::refreshExplanation()
{
    m_explanation->setText(explanation());
}

void Workspace::showError(const QString &message)
{
    m_banner->setText(message);
    m_banner->show();
}

void Workspace::hideError()
{
    m_banner->hide();
    m_banner->clear();
}

void Workspace::showNotice(const QString &message)
{
    m_noticeText->setText(message);
    m_notice->show();
}

void Workspace::hideNotice()
{
    m_notice->hide();
    m_noticeText->clear();
}

QString Workspace::noticeText() const
{
    return m_notice->isHidden() ? QString() : m_noticeText->text();
}

QString Workspace::errorText() const
{
    return m_banner->isHidden() ? QString() : m_banner->text();
}

TextModelPtr Workspace::requireModel(const QString &why)
{
    TextModelPtr model = m_subject->model();
    if (!model) showError(why);
    return model;
}

QString Workspace::captionStart(int maxText) const
{
    QString text = m_subject->text().simplified();
    if (text.size() > maxText) text = text.left(maxText - 3) + QStringLiteral("…");
    return QStringLiteral("%1 · “%2”").arg(m_subject->modelSpec(), text);
}

void Workspace::scheduleRun()
{
    m_deferred->schedule();
}

void Workspace::setDebounce(int ms)
{
    m_deferred->setInterval(ms);
}

void Workspace::rerun()
{
    m_deferred->cancelPending();
    submit();
}

bool Workspace::hasPendingRun() const
{
    return m_deferred->isPending();
}

void Workspace::onRunFailed(const QString &message)
{
    showError(couldNotRunText(message, hasResult()));
}

QString Workspace::couldNotRunText(const QString &message, bool resultShown) const
{
    return resultShown ? tr("Could not run: %1. The last result is still shown.").arg(message)
                       : tr("Could not run: %1.").arg(message);
}

void Workspace::showMatrix(HeatmapPlot *plot, std::size_t cells, std::function<HeatmapData()> build)
{
    if (cells <= kSyncMatrixCells) {
        m_pendingMatrices.removeAll(plot);
        plot->setData(build());
        return;
    }
    if (!m_pendingMatrices.contains(plot)) {
        m_pendingMatrices.append(plot);
        // One connection per pending plot: a superseded preparation never emits dataShown, the latest one does.
        connect(plot, &HeatmapPlot::dataShown, this, [this, plot] { matrixShown(plot); }, Qt::SingleShotConnection);
    }
    plot->setDataAsync(std::move(build));
}

bool Workspace::matricesShown()
{
    m_pendingMatrices.removeAll(nullptr);   // plots deleted meanwhile (a workspace rebuilt its panels)
    m_awaitingMatrices = !m_pendingMatrices.isEmpty();
    return !m_awaitingMatrices;
}

void Workspace::matrixShown(HeatmapPlot *plot)
{
    if (!m_pendingMatrices.removeAll(plot)) return;
    m_pendingMatrices.removeAll(nullptr);
    if (!m_awaitingMatrices || !m_pendingMatrices.isEmpty()) return;
    m_awaitingMatrices = false;
    emit figureChanged();
    emit resultShown();
}

void Workspace::setColorScale(ColorScale scale)
{
    m_colorScale = scale;
    applyColorScale();
}

void Workspace::applyColorScale()
{
    for (HeatmapPlot *plot : findChildren<HeatmapPlot *>()) plot->setColorScale(m_colorScale);
    for (HeadGrid *grid : findChildren<HeadGrid *>()) grid->setColorScale(m_colorScale);
}

QStringList Workspace::dataFormats() const
{
    return currentFigure() ? QStringList{tr("CSV, the matrix on screen (*.csv)")} : QStringList{};
}

bool Workspace::exportData(const QString &path, QString *error) const
{
    HeatmapPlot *plot = currentFigure();
    if (!plot || plot->data().rows == 0) {
        if (error) *error = tr("the %1 workspace shows no matrix to export yet").arg(title());
        return false;
    }
    if (!hasSuffix(path, "csv")) {
        if (error) *error = tr("%1: the %2 workspace writes its data as .csv").arg(path, title());
        return false;
    }
    return writeMatrixCsv(plot->data(), path, error);
}

void Workspace::contextMenuEvent(QContextMenuEvent *event)
{
    // Reaches here when no child took it (text boxes and tables keep their own menus).
    QWidget *figure = figureWidget();
    QWidget *under = childAt(event->pos());
    if (!figure || !under || !(under == figure || figure->isAncestorOf(under))) return QWidget::contextMenuEvent(event);
    QMenu menu(this);
    menu.setObjectName(QStringLiteral("figureMenu"));
    addFigureActions(&menu, this);
    menu.exec(event->globalPos());
}

bool Workspace::restoreSessionState(const QJsonObject &state, QString *error)
{
    if (state.isEmpty()) return true;
    if (error) *error = tr("the %1 workspace keeps no session state").arg(title());
    return false;
}

bool Workspace::showView(const QString &spec, QString *error)
{
    if (error) *error = tr("the %1 workspace has no view '%2'").arg(title(), spec);
    return false;
}

} // namespace attnui
