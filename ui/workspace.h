// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The interface a workspace (Explore, Pipeline, Masks, Equivariance, Faithfulness, Compare) offers the main
// window: a title, a one- or two-sentence explanation, the figure that File ▸ Export Figure writes, session
// state, headless views for `attnscope-cli figure`, and reactions to the View menu.
//
// Each workspace owns its EngineRunner, so a run in one tab never makes another tab's result stale; the main
// window shows the current tab's runner in the status bar. All workspaces look at one shared Subject (model
// and text).

#include "plots/colormaps.h"

#include <QJsonObject>
#include <QWidget>

class QSettings;

namespace attnui {

class EngineRunner;
class HeatmapPlot;
class Subject;

class Workspace : public QWidget {
    Q_OBJECT
public:
    explicit Workspace(Subject *subject, QWidget *parent = nullptr);
    ~Workspace() override;

    Subject *subject() const { return m_subject; }
    EngineRunner *runner() const { return m_runner; }

    virtual QString title() const = 0;
    // "What am I looking at": one or two plain sentences, shown at the top of the workspace.
    virtual QString explanation() const = 0;
    // What Export Figure writes: the panels as they are on screen (a container of plots and labels). May be
    // null before the first result.
    virtual QWidget *figureWidget() const = 0;
    // One caption line under exported figures: model, text, layer.head and the settings that shaped it.
    virtual QString figureCaption() const = 0;
    // The single heatmap of the current view, if there is one (kept for the tests and the right-click menu).
    virtual HeatmapPlot *currentFigure() const { return nullptr; }
    virtual void setColorMap(ColorMap map) = 0;
    virtual void rerun() {}                              // View ▸ Run again
    virtual void saveSettings(QSettings &) const {}      // inside the workspace's own settings group
    virtual void restoreSettings(const QSettings &) {}

    // Sessions and lessons: this workspace's view and analysis parameters (the Subject holds model and text).
    // restoreSessionState() rejects bad values with a message naming the field and keeps the current state.
    virtual QJsonObject sessionState() const { return {}; }
    virtual bool restoreSessionState(const QJsonObject &state, QString *error);

    // Headless figures: the view specs this workspace draws (`attnscope-cli figure --view masks:L.H`): the
    // prefixes it accepts ("masks"), and a switch to one. Work it starts runs on runner(); wait for it to be idle.
    // Whether the workspace's runs follow the Subject's mask override and padding (Subject::setRunOptions).
    virtual bool honoursRunOptions() const { return false; }
    virtual QStringList viewPrefixes() const { return {}; }
    virtual bool showView(const QString &spec, QString *error);

signals:
    void figureChanged();                                // figureWidget()/currentFigure() now show something else

protected:
    // What a workspace shows when its run fails; `resultShown`: an earlier result stays on screen. (Stale results
    // and failures never arrive: the workspace's own runner drops every job but the latest.)
    QString couldNotRunText(const QString &message, bool resultShown) const;

private:
    Subject *m_subject = nullptr;
    EngineRunner *m_runner = nullptr;
};

} // namespace attnui
