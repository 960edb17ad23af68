// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A workspace (Explore, Pipeline, Masks, Equivariance, Faithfulness, Compare) and the kit it is built from. What
// the main window and `attnscope-cli figure` ask of it: a title, a one- or two-sentence explanation, the figure
// that Export Figure writes and its caption, the data that Export Data writes, session state, headless views,
// reactions to the View menu.
//
// What every workspace needs and so gets from here instead of building it: the explanation line and the error
// banner (header()), its own EngineRunner with the result and failure wiring (onResult(), the "Could not run"
// banner), the Subject's model and text changes, a debounced run that waits while the workspace is hidden
// (scheduleRun(): a tab nobody looks at does not recompute on every edit; it catches up when shown), the
// caption's start and the "open a model first" message. A workspace writes its panels, its submit() and its
// onResult(). Each workspace owns its runner, so a run in one tab never makes another tab's result stale.

#include "export/figureexport.h"
#include "plots/colormaps.h"
#include "plots/colorscale.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"

#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <cstddef>
#include <functional>

class QLabel;
class QScrollArea;
class QSettings;
class QVBoxLayout;

namespace attnui {

class DeferredRun;
class HeatmapPlot;
struct HeatmapData;

class Workspace : public QWidget {
    Q_OBJECT
public:
    ~Workspace() override;

    Subject *subject() const { return m_subject; }
    EngineRunner *runner() const { return m_runner; }

    virtual QString title() const = 0;
    // "What am I looking at": one or two plain sentences, shown at the top of the workspace.
    virtual QString explanation() const = 0;
    // Help ▸ Guide to This Workspace (F1): what it is for, how its controls work and one thing to try, as a few
    // short paragraphs of HTML.
    virtual QString guide() const = 0;
    // What Export Figure writes: the panels as they are on screen. May be null before the first result.
    virtual QWidget *figureWidget() const = 0;
    // The caption under exported figures: model, text, "L0 H3" and the settings that shaped it.
    virtual QString figureCaption() const = 0;
    // How the current view is laid out as a figure: the size its content needs, not the window's, and the
    // aspect ratios it is made for (tst_cli_figure holds every view's default figure to them). The default: the
    // figure as on screen (defaultFigureSize()), with any aspect.
    virtual FigureLayout figureLayout() const { return {}; }
    // The single heatmap of the current view, if there is one (the tests; Export Data's CSV).
    virtual HeatmapPlot *currentFigure() const { return nullptr; }
    virtual void setColorMap(ColorMap map) = 0;
    // View ▸ Colour Scale, `figure --scale`: every weight heatmap and overview grid in the workspace, those made
    // later included (applied again whenever a result is shown). Signed-difference maps keep their own scale.
    void setColorScale(ColorScale scale);
    ColorScale colorScale() const { return m_colorScale; }
    virtual void saveSettings(QSettings &) const {}      // inside the workspace's own settings group
    virtual void restoreSettings(const QSettings &) {}

    // Export Data (the right-click menu and File ▸ Export Data…): what this view shows, as data. The formats it
    // offers, as file-dialog filters ("JSON, as attnscope-cli writes it (*.json)"), and the writer: a path whose
    // suffix is one of them. The default writes the current heatmap as CSV (exportMatrixCsv). A workspace that has
    // more to give (the engine's JSON export of its analysis) overrides both; this is the one place per
    // workspace that decides what Export Data writes.
    virtual QStringList dataFormats() const;
    virtual bool exportData(const QString &path, QString *error) const;

    // Sessions and lessons: this workspace's view and analysis parameters (the Subject holds model and text).
    // restoreSessionState() rejects bad values with a message naming the field (kit/stateio.h) and keeps the
    // current state.
    virtual QJsonObject sessionState() const { return {}; }
    virtual bool restoreSessionState(const QJsonObject &state, QString *error);

    // Headless figures (`attnscope-cli figure --view masks:L.H`): the view prefixes this workspace draws and a
    // switch to one. Work it starts runs on runner(); wait for it to be idle. honoursRunOptions(): whether its
    // runs follow the Subject's mask override and padding (Subject::setRunOptions).
    virtual bool honoursRunOptions() const { return false; }
    // Whether this workspace opens encoder–decoder models itself (the Subject holds text models only): for a
    // figure of such a model, the Subject's spec is set with no model, and only such a workspace draws it.
    virtual bool opensEncoderDecoderModels() const { return false; }
    // The same for Vision Transformers: for a figure of one, the Subject's spec names the folder, its text is the
    // image's path, and only such a workspace draws it.
    virtual bool opensVisionModels() const { return false; }
    virtual QStringList viewPrefixes() const { return {}; }
    virtual bool showView(const QString &spec, QString *error);

    // View ▸ Run Again: now, without the debounce.
    void rerun();
    QString errorText() const;                           // the banner's text; empty while it is hidden
    // A notice that outlives the next result (a model that did not open, a session that was refused at start-up):
    // shown under the banner until the user closes it or hideNotice(). noticeText() is empty while it is hidden.
    void showNotice(const QString &message);
    void hideNotice();
    QString noticeText() const;
    bool hasPendingRun() const;                          // an edit waits for its (debounced) run
    bool isPreparingResult() const { return m_awaitingMatrices; }   // a result waits for its matrices (showMatrix)

signals:
    void figureChanged();                                // figureWidget()/currentFigure() now show something else
    void resultShown();                                  // a new result is on screen
    void statusMessage(const QString &text);             // for the status bar ("Saved …")

protected:
    // Right-click on the figure (a plot, a painted view): Export Figure…, Copy Image, Export Data….
    void contextMenuEvent(QContextMenuEvent *event) override;

    struct Options {
        int debounceMs = 150;
        bool runWhileHidden = false;     // Explore: the Subject's source, it keeps up while another tab is shown
        bool followBackend = true;       // View ▸ Backend re-runs it
    };
    Workspace(Subject *subject, const QString &key, Options options, QWidget *parent = nullptr);

    // The explanation line and the banner, in a layout the workspace puts first in its page (or places itself).
    QLabel *explanationLabel() const { return m_explanation; }
    QLabel *errorBanner() const { return m_banner; }
    QWidget *noticeBar() const { return m_notice; }     // placed with the banner by makePage()
    QVBoxLayout *makePage();                             // this widget's layout, header added
    // The page of a workspace with its controls in a column on the left and its figure on the right: the column
    // is `width` wide and scrolls when taller than the window; long items (texts in combo boxes) never widen it.
    void makeControlsPage(QWidget *controls, QWidget *figure, int width);
    // A figure that cannot shrink below its panels' minimum sizes, in a scroll area: the window may be smaller.
    static QScrollArea *scrollable(QWidget *figure);
    void refreshExplanation();                           // explanation() changed (a mode or tab switch)

    void showError(const QString &message);
    void hideError();
    // The model a run needs; null (with `why` in the banner) when the Subject has none.
    TextModelPtr requireModel(const QString &why);
    // "sample:x · “the text…”": how every caption starts.
    QString captionStart(int maxText = 60) const;

    // Runs: scheduleRun() after an edit (debounced; while hidden it waits for the next show), rerun() now.
    void scheduleRun();
    void setDebounce(int ms);
    // Starts this workspace's job on runner(). Called by the debounce and by rerun().
    virtual void submit() = 0;
    // Whether an edit may start a run by itself (scheduleRun); rerun() always runs.
    virtual bool autoRunAllowed() const { return true; }
    // The job's result (never a stale one: the runner drops all but the latest). Return true when it is on
    // screen (figureChanged and resultShown follow), false when it was not for this view (nothing is emitted; a
    // workspace that shows it later, once a heatmap is prepared off the UI thread, emits resultShown itself).
    virtual bool onResult(const SnapshotPtr &snapshot) = 0;
    // A failed run: by default the banner says "Could not run: …" (and that the last result stays, if any).
    virtual void onRunFailed(const QString &message);
    virtual bool hasResult() const = 0;
    // The Subject's model or text changed: by default a (debounced) run.
    virtual void onModelChanged() { scheduleRun(); }
    virtual void onTextChanged() { scheduleRun(); }
    // Subject::truncate() changed: the tokens may have changed.
    virtual void onTokenizeOptionsChanged() { onTextChanged(); }

    // What a workspace shows when its run fails; `resultShown`: an earlier result stays on screen.
    QString couldNotRunText(const QString &message, bool resultShown) const;

    // Puts a matrix of `cells` cells on `plot`. Up to kSyncMatrixCells at once; above, `build` (which must hold
    // what it reads by value: the snapshot, never this view) and the plot's preparation run on the thread pool,
    // because copying and pooling an n × n matrix stalls the UI thread (64 MB at n = 4096). onResult() then returns
    // matricesShown(): false while any such matrix is still being prepared, and figureChanged/resultShown follow
    // once the last is on screen.
    static constexpr std::size_t kSyncMatrixCells = 512 * 512;
    void showMatrix(HeatmapPlot *plot, std::size_t cells, std::function<HeatmapData()> build);
    bool matricesShown();

private:
    void applyColorScale();
    ColorScale m_colorScale;
    Subject *m_subject = nullptr;
    EngineRunner *m_runner = nullptr;
    DeferredRun *m_deferred = nullptr;
    QLabel *m_explanation = nullptr;
    QLabel *m_banner = nullptr;
    QWidget *m_notice = nullptr;
    QLabel *m_noticeText = nullptr;
    QList<QPointer<HeatmapPlot>> m_pendingMatrices;   // being prepared off the UI thread (showMatrix)
    bool m_awaitingMatrices = false;                  // a result waits for them before resultShown
    void matrixShown(HeatmapPlot *plot);
};

// A workspace's result as its own snapshot type; null for another type.
template <typename T>
std::shared_ptr<const T> snapshotAs(const SnapshotPtr &snapshot)
{
    return std::dynamic_pointer_cast<const T>(snapshot);
}

} // namespace attnui
