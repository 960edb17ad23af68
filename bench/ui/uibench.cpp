// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-uibench: how the GUI feels, in numbers. Prints one JSON line per figure.
//
//   latency  For each sample model: append a word to the text, then time until every visible heatmap (the
//            overview grid and every visible QCustomPlot) has been replotted and painted. Reported from the
//            edit (including the 150 ms debounce) and from the moment the job was submitted (without it),
//            median and p90 over --edits edits.
//   stall    A synthetic model at each of --n tokens, in every workspace (--cases): a 1 ms precise timer on the UI
//            thread and the event loop's going to sleep record the longest time the UI thread could not have
//            begun to handle input (time asleep in the event loop is not counted) from the edit (Explore) or the tab switch (the
//            others) until the result is on screen, or the workspace has refused the input with a message, or
//            (a run it waits to be asked for) --run-window seconds of the run. "ok" is false when that gap passes
//            50 ms, and the exit status is 1 when any case is not ok.
//
// Run: QT_QPA_PLATFORM=offscreen build/<dir>/bench/ui/attnscope-uibench [--edits 20] [--n 4096,16384] [--only latency|stall]
//      [--cases explore/head,masks,...] [--run-window 10]
//      [--profile]   (also prints every UI event that took over 5 ms during the stall run)
// Each of the worst gaps also says how much of it the UI thread ran (ui_cpu_ms) and how long it was runnable but
// waited for a core (ui_wait_ms), from /proc/thread-self/schedstat where Linux has it.

#include "shell/mainwindow.h"
#include "runner/enginerunner.h"
#include "kit/workspace.h"
#include "workspaces/explore/exploreview.h"

#include <QAbstractEventDispatcher>
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEvent>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPlainTextEdit>
#include <QTextCursor>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using attnui::EngineRunner;
using attnui::ExploreView;
using attnui::MainWindow;

namespace {

QElapsedTimer g_clock;
double nowMs() { return double(g_clock.nsecsElapsed()) / 1e6; }

// The UI thread's time on a CPU and its time runnable but waiting for one (Linux schedstat, in ms). A gap with a
// long wait was the machine's other threads holding the cores, not work on the UI thread.
struct ThreadTimes {
    bool valid = false;
    double cpuMs = 0, waitMs = 0;
};

ThreadTimes uiThreadTimes()
{
    ThreadTimes t;
    std::FILE *f = std::fopen("/proc/thread-self/schedstat", "r");
    if (!f) return t;
    unsigned long long run = 0, wait = 0;
    if (std::fscanf(f, "%llu %llu", &run, &wait) == 2) t = {true, double(run) / 1e6, double(wait) / 1e6};
    std::fclose(f);
    return t;
}

// Where a stall comes from: with --profile, every event that takes longer than 5 ms to deliver is recorded with
// its type, receiver and nesting depth, and printed for the stall figure.
struct SlowEvent {
    double at, ms;
    int type, depth;
    QByteArray receiver;
};

class ProfilingApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool profiling = false;
    std::vector<SlowEvent> slow;

    bool notify(QObject *receiver, QEvent *event) override
    {
        if (!profiling) return QApplication::notify(receiver, event);
        const int type = int(event->type());
        const double t0 = nowMs();
        ++m_depth;
        const bool r = QApplication::notify(receiver, event);
        --m_depth;
        const double ms = nowMs() - t0;
        if (ms > 5.0)
            slow.push_back({t0, ms, type, m_depth,
                            QByteArray(receiver->metaObject()->className()) + "/" + receiver->objectName().toUtf8()});
        return r;
    }

private:
    int m_depth = 0;
};

void printJson(const QJsonObject &o)
{
    std::printf("%s\n", QJsonDocument(o).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
}

// Runs the event loop until `signal` fires or `timeoutMs` passes; true when it fired.
template <typename Sender, typename Signal>
bool waitForSignal(Sender *sender, Signal signal, int timeoutMs)
{
    QEventLoop loop;
    bool fired = false;
    QObject::connect(sender, signal, &loop, [&] { fired = true; loop.quit(); });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    return fired;
}

void spin(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const double idx = p * double(v.size() - 1);
    const auto lo = std::size_t(idx);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (idx - double(lo));
}

double round2(double x) { return std::round(x * 100.0) / 100.0; }

// Records when each heatmap widget (QCustomPlot, the head grid) last finished painting: a replot only shows once
// it is painted.
class PlotWatch : public QObject {
public:
    explicit PlotWatch(QWidget *window)
    {
        for (QWidget *w : window->findChildren<QWidget *>()) {
            const QByteArray cls = w->metaObject()->className();
            if (cls == "QCustomPlot") {
                m_plots.push_back(w);   // matched by class name: qcustomplot.h stays inside the heatmap wrapper
                w->installEventFilter(this);
            } else if (cls == "attnui::HeadGrid") {
                m_plots.push_back(w);
                w->installEventFilter(this);
            }
        }
        m_last.assign(m_plots.size(), -1.0);
    }

    void reset() { std::fill(m_last.begin(), m_last.end(), -1.0); }
    // Widgets visible now, and the last paint of each of them after `since`.
    int visibleCount() const
    {
        return int(std::count_if(m_plots.begin(), m_plots.end(), [](QWidget *w) { return w->isVisible(); }));
    }
    int updatedCount(double since) const
    {
        int n = 0;
        for (std::size_t i = 0; i < m_plots.size(); ++i)
            if (m_plots[i]->isVisible() && m_last[i] >= since) ++n;
        return n;
    }
    double lastUpdate() const { return m_last.empty() ? -1.0 : *std::max_element(m_last.begin(), m_last.end()); }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint) {
            for (std::size_t i = 0; i < m_plots.size(); ++i)
                if (m_plots[i] == watched) {
                    // The paint itself runs after this filter; time its end with a zero-length post.
                    const double t = nowMs();
                    m_last[i] = t;
                    QTimer::singleShot(0, this, [this, i] { m_last[i] = std::max(m_last[i], nowMs()); });
                }
        }
        return false;
    }

private:
    std::vector<QWidget *> m_plots;
    std::vector<double> m_last;
};

bool openAndWait(MainWindow &window, const QString &spec)
{
    window.explore()->openModel(spec);
    const bool ok = waitForSignal(window.explore(), &ExploreView::resultShown, 120000);
    spin(300);   // let the first layout and queued replots settle
    return ok;
}

void appendText(QPlainTextEdit *edit, const QString &s)
{
    QTextCursor c = edit->textCursor();
    c.movePosition(QTextCursor::End);
    c.insertText(s);
    edit->setTextCursor(c);
}

void benchLatency(MainWindow &window, const QString &spec, int edits)
{
    if (!openAndWait(window, spec)) {
        printJson({{"figure", "edit_latency"}, {"model", spec}, {"error", "model did not open"}});
        return;
    }
    ExploreView *explore = window.explore();
    EngineRunner *runner = window.runner();
    auto *edit = explore->findChild<QPlainTextEdit *>();
    PlotWatch watch(&window);
    std::vector<double> withDebounce, withoutDebounce, debounce, job, ui;
    double started = -1, shown = -1;
    QObject::connect(runner, &EngineRunner::started, &watch, [&] { started = nowMs(); });
    QObject::connect(explore, &ExploreView::resultShown, &watch, [&] { shown = nowMs(); });
    const QStringList words{QStringLiteral(" the"), QStringLiteral(" cat"), QStringLiteral(" sat"),
                            QStringLiteral(" and"), QStringLiteral(" it")};
    int tokens = 0, visible = 0, minUpdated = 1 << 30;
    for (int i = 0; i < edits; ++i) {
        started = shown = -1;
        watch.reset();
        const double t0 = nowMs();
        appendText(edit, words[i % words.size()]);
        if (!waitForSignal(explore, &ExploreView::resultShown, 60000)) {
            printJson({{"figure", "edit_latency"}, {"model", spec}, {"error", "no result within 60 s"}});
            return;
        }
        spin(150);   // queued replots and the paint that shows them
        const double done = std::max(shown, watch.lastUpdate());
        withDebounce.push_back(done - t0);
        withoutDebounce.push_back(done - started);
        debounce.push_back(started - t0);
        // The runner's own wall time of the job; the rest, from the job's end to the last paint, is the UI's.
        const double jobMs = explore->snapshot() ? explore->snapshot()->elapsedMs : 0.0;
        job.push_back(jobMs);
        ui.push_back(done - started - jobMs);
        tokens = explore->snapshot() ? explore->snapshot()->length() : 0;
        visible = watch.visibleCount();
        minUpdated = std::min(minUpdated, watch.updatedCount(started));
    }
    auto stats = [](const std::vector<double> &v) {
        return QJsonObject{{"median", round2(percentile(v, 0.5))}, {"p90", round2(percentile(v, 0.9))},
                           {"max", round2(*std::max_element(v.begin(), v.end()))}};
    };
    printJson({{"figure", "edit_latency"},
               {"model", spec},
               {"tokens_last", tokens},
               {"edits", edits},
               {"visible_heatmaps", visible},
               {"min_heatmaps_repainted", minUpdated},
               {"with_debounce_ms", stats(withDebounce)},
               {"without_debounce_ms", stats(withoutDebounce)},
               {"debounce_ms", stats(debounce)},
               {"job_ms", stats(job)},
               {"ui_after_job_ms", stats(ui)},
               {"goal_ms", 100}});
}

// How a workspace answered an input: its result on screen, a refusal in its banner (a limit it names), an
// input it waits on (no run started by itself: Faithfulness above its auto-run size), or a run still going.
enum class Outcome { Shown, Refused, Waiting, Running };

const char *outcomeName(Outcome o)
{
    switch (o) {
    case Outcome::Shown: return "shown";
    case Outcome::Refused: return "refused";
    case Outcome::Waiting: return "waiting";
    case Outcome::Running: return "running";
    }
    return "?";
}

// Runs the event loop until `ws` shows a result, or has had no pending or running job and no result being
// prepared for 600 ms (refused or waiting), or `timeoutMs` passes (running).
Outcome waitForOutcome(attnui::Workspace *ws, int timeoutMs)
{
    QEventLoop loop;
    bool shown = false;
    int idleMs = 0;
    QObject::connect(ws, &attnui::Workspace::resultShown, &loop, [&] { shown = true; loop.quit(); });
    QTimer poll;
    poll.setInterval(20);
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        idleMs = (!ws->hasPendingRun() && !ws->runner()->isBusy() && !ws->isPreparingResult()) ? idleMs + 20 : 0;
        if (idleMs >= 600) loop.quit();
    });
    poll.start();
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    if (shown) return Outcome::Shown;
    if (idleMs >= 600) return ws->errorText().isEmpty() ? Outcome::Waiting : Outcome::Refused;
    return Outcome::Running;
}

// One stall case: a workspace (and, for Explore, a tab) at n tokens. Explore: the n-th character is typed into its
// text box while the tab is shown. The other workspaces take their text from Explore and wait while hidden: the
// text is edited in Explore, then the workspace's tab is opened, and the stall is measured from that switch (its
// layout pass included) until its result is on screen. A workspace that does not run by itself at this size is
// started as Run would start it, watched for `runWindowMs`, and cancelled.
struct StallCase {
    QString workspace;
    int tab = -1;   // ExploreView::Tab, for Explore
};

QString ticks(int n)
{
    // The synthetic model's tokenizer maps each byte to a token.
    QString text;
    const QString word = QStringLiteral("attention ");
    while (text.size() < n) text += word;
    text.truncate(n);
    return text;
}

bool benchStall(MainWindow &window, const StallCase &c, int n, int runWindowMs, ProfilingApplication *profiler)
{
    static const char *tabNames[] = {"head", "lines", "statistics", "rollout", "outputs", "dataset"};
    ExploreView *explore = window.explore();
    attnui::Workspace *ws = window.findWorkspace(c.workspace);
    const QString caseName = c.tab >= 0 ? QStringLiteral("%1/%2").arg(c.workspace, QLatin1String(tabNames[c.tab]))
                                        : c.workspace;
    if (!ws) {
        printJson({{"figure", "ui_stall"}, {"case", caseName}, {"error", "no such workspace"}, {"ok", false}});
        return false;
    }
    const bool isExplore = ws == explore;
    // The state before the edit: n − 1 tokens, shown (or refused) in the workspace.
    window.showWorkspace(c.workspace);
    if (c.tab >= 0) explore->setCurrentTab(ExploreView::Tab(c.tab));
    explore->setText(ticks(n - 1));
    waitForOutcome(ws, 300000);
    if (ws->runner()->isBusy()) {
        ws->runner()->cancel();
        ws->runner()->waitForIdle(60000);
    }
    if (!isExplore) {
        window.showWorkspace(QStringLiteral("explore"));
        explore->setText(ticks(n));
        waitForOutcome(explore, 300000);
    }
    spin(300);

    // A gap is a stretch in which the UI thread could not have begun to handle a new input event: from one
    // moment it could (a tick of the 1 ms timer, or the event loop waking up) to the next (a tick, or the loop
    // going to sleep in poll). Time asleep in the event loop is not a stall: input wakes it at once (the time
    // it then waits for a core is). (With Qt's
    // GLib dispatcher the loop sometimes sleeps 20-30 ms while the 1 ms timer is due; counted as a stall, that
    // read as gaps in which the UI thread ran for 0.1 ms.) The raw longest interval between ticks is reported too.
    struct Gap {
        double at, ms;
        double cpuMs = -1, waitMs = -1;   // of the UI thread within the gap: running, runnable but not running
    };
    std::vector<Gap> gaps;
    double last = nowMs(), lastTick = last, maxTickGap = 0;
    ThreadTimes lastTimes = uiThreadTimes();
    bool measuring = false;
    auto endGap = [&] {
        const double t = nowMs();
        const ThreadTimes times = uiThreadTimes();
        Gap gap{last, t - last};
        if (times.valid && lastTimes.valid)
            gap.cpuMs = times.cpuMs - lastTimes.cpuMs, gap.waitMs = times.waitMs - lastTimes.waitMs;
        gaps.push_back(gap);
        last = t;
        lastTimes = times;
    };
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, &tick, [&] {
        if (!measuring) return;
        endGap();
        maxTickGap = std::max(maxTickGap, last - lastTick);
        lastTick = last;
    });
    QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance();
    auto sleeps = QObject::connect(dispatcher, &QAbstractEventDispatcher::aboutToBlock, &tick, [&] {
        if (measuring) endGap();
    }, Qt::DirectConnection);
    auto wakes = QObject::connect(dispatcher, &QAbstractEventDispatcher::awake, &tick, [&] {
        if (!measuring) return;
        // Asleep until now is not a stall, but the time it waited for a core after it was woken is: the gap
        // starts that much before now.
        const ThreadTimes times = uiThreadTimes();
        const double woken = times.valid && lastTimes.valid ? std::max(0.0, times.waitMs - lastTimes.waitMs) : 0.0;
        last = nowMs() - woken;
        if (times.valid) lastTimes = {true, times.cpuMs, times.waitMs - woken};
    }, Qt::DirectConnection);
    double started = -1, shownAt = -1;
    auto a = QObject::connect(ws->runner(), &EngineRunner::started, &tick, [&] { started = nowMs(); });
    auto b = QObject::connect(ws, &attnui::Workspace::resultShown, &tick, [&] { shownAt = nowMs(); });
    tick.start();
    spin(20);
    if (profiler) {
        profiler->slow.clear();
        profiler->profiling = true;
    }
    const double t0 = nowMs();
    last = lastTick = t0;
    lastTimes = uiThreadTimes();
    gaps.clear();
    measuring = true;
    if (isExplore) {
        appendText(explore->findChild<QPlainTextEdit *>(), QStringLiteral("x"));
    } else {
        window.showWorkspace(c.workspace);
    }
    Outcome outcome = waitForOutcome(ws, isExplore ? 300000 : 120000);
    bool startedByBench = false;
    if (outcome == Outcome::Waiting && !ws->runner()->isBusy()) {
        // It waits for Run: press it, watch the run with its progress for a while, then cancel it.
        startedByBench = true;
        ws->rerun();
        outcome = waitForOutcome(ws, runWindowMs);
    }
    spin(500);   // the queued replot and paint of what was shown
    measuring = false;
    tick.stop();
    QObject::disconnect(sleeps);
    QObject::disconnect(wakes);
    QObject::disconnect(a);
    QObject::disconnect(b);
    if (ws->runner()->isBusy()) {
        ws->runner()->cancel();
        ws->runner()->waitForIdle(60000);
    }
    if (profiler) {
        profiler->profiling = false;
        for (const SlowEvent &e : profiler->slow)
            printJson({{"figure", "ui_stall_event"}, {"case", caseName}, {"at_ms", round2(e.at - t0)},
                       {"ms", round2(e.ms)}, {"event_type", e.type}, {"depth", e.depth},
                       {"receiver", QString::fromUtf8(e.receiver)}});
    }
    std::sort(gaps.begin(), gaps.end(), [](const Gap &x, const Gap &y) { return x.ms > y.ms; });
    QJsonArray worst;
    for (std::size_t i = 0; i < std::min<std::size_t>(5, gaps.size()); ++i)
    {
        QJsonObject g{{"at_ms", round2(gaps[i].at - t0)}, {"gap_ms", round2(gaps[i].ms)}};
        if (gaps[i].cpuMs >= 0) {
            g.insert(QStringLiteral("ui_cpu_ms"), round2(gaps[i].cpuMs));
            g.insert(QStringLiteral("ui_wait_ms"), round2(gaps[i].waitMs));
        }
        worst.append(g);
    }
    const double maxGap = gaps.empty() ? 0.0 : gaps.front().ms;
    constexpr double kGoalMs = 50.0;
    const bool ok = maxGap <= kGoalMs;
    QJsonObject line{{"figure", "ui_stall"},
                     {"case", caseName},
                     {"tokens", n},
                     {"outcome", QLatin1String(outcomeName(outcome))},
                     {"ok", ok},
                     {"max_gap_ms", round2(maxGap)},
                     {"max_tick_gap_ms", round2(maxTickGap)},
                     {"worst_gaps", worst},
                     {"goal_ms", kGoalMs}};
    if (startedByBench) line.insert(QStringLiteral("run_pressed_by_bench"), true);
    if (outcome == Outcome::Refused) line.insert(QStringLiteral("message"), ws->errorText());
    if (started >= 0) line.insert(QStringLiteral("submitted_at_ms"), round2(started - t0));
    if (shownAt >= 0) line.insert(QStringLiteral("shown_at_ms"), round2(shownAt - t0));
    printJson(line);
    return ok;
}

} // namespace

int main(int argc, char *argv[])
{
    ProfilingApplication app(argc, argv);
    // Own settings, so that benchmarking leaves the user's AttnScope settings alone.
    QApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QApplication::setApplicationName(QStringLiteral("AttnScope-uibench"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("AttnScope GUI latency benchmark (JSON lines)."));
    parser.addHelpOption();
    QCommandLineOption editsOpt(QStringLiteral("edits"), QStringLiteral("Edits per sample model."),
                                QStringLiteral("N"), QStringLiteral("20"));
    QCommandLineOption nOpt(QStringLiteral("n"), QStringLiteral("Tokens for the stall figures, comma-separated."),
                            QStringLiteral("N,..."), QStringLiteral("4096,16384"));
    QCommandLineOption casesOpt(QStringLiteral("cases"),
                                QStringLiteral("Stall cases, comma-separated: explore/head, explore/lines, explore/statistics, "
                                               "explore/rollout, explore/outputs, pipeline, masks, equivariance, "
                                               "faithfulness, compare (default: all)."),
                                QStringLiteral("LIST"));
    QCommandLineOption runWindowOpt(QStringLiteral("run-window"),
                                    QStringLiteral("Seconds to watch a run the bench started with Run before cancelling it."),
                                    QStringLiteral("S"), QStringLiteral("10"));
    QCommandLineOption specOpt(QStringLiteral("stall-model"), QStringLiteral("Model for the stall figure."),
                               QStringLiteral("SPEC"), QStringLiteral("random:layers=1,heads=4,d_model=64,seed=1"));
    QCommandLineOption onlyOpt(QStringLiteral("only"), QStringLiteral("latency or stall."), QStringLiteral("WHICH"));
    QCommandLineOption profileOpt(QStringLiteral("profile"), QStringLiteral("Print the slow UI events of the stall."));
    parser.addOptions({editsOpt, nOpt, casesOpt, runWindowOpt, specOpt, onlyOpt, profileOpt});
    parser.process(app);
    const QString only = parser.value(onlyOpt);

    g_clock.start();
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    waitForSignal(window.explore(), &ExploreView::resultShown, 120000);   // the default sample

    printJson({{"figure", "environment"},
               {"platform", QGuiApplication::platformName()},
               {"window", QStringLiteral("%1x%2").arg(window.width()).arg(window.height())}});
    if (only.isEmpty() || only == QLatin1String("latency"))
        for (const QString &spec : {QStringLiteral("sample:induction-gpt2"), QStringLiteral("sample:agreement-gpt2"),
                                    QStringLiteral("sample:rationale-bert")})
            benchLatency(window, spec, parser.value(editsOpt).toInt());
    bool allOk = true;
    if (only.isEmpty() || only == QLatin1String("stall")) {
        const QString spec = parser.value(specOpt);
        if (!openAndWait(window, spec)) {
            printJson({{"figure", "ui_stall"}, {"model", spec}, {"error", "model did not open"}, {"ok", false}});
            return 1;
        }
        printJson({{"figure", "ui_stall_model"}, {"model", spec}});
        std::vector<StallCase> cases;
        const QStringList tabs{QStringLiteral("head"), QStringLiteral("lines"), QStringLiteral("statistics"),
                               QStringLiteral("rollout"), QStringLiteral("outputs")};
        QStringList wanted = parser.value(casesOpt).split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (wanted.isEmpty()) {
            for (const QString &t : tabs) wanted << QStringLiteral("explore/") + t;
            wanted << QStringLiteral("pipeline") << QStringLiteral("masks") << QStringLiteral("equivariance")
                   << QStringLiteral("faithfulness") << QStringLiteral("compare");
        }
        for (const QString &w : wanted) {
            if (w.startsWith(QLatin1String("explore/"))) {
                const int t = int(tabs.indexOf(w.mid(8)));
                if (t < 0) {
                    std::fprintf(stderr, "--cases: no Explore tab '%s'\n", qPrintable(w.mid(8)));
                    return 2;
                }
                cases.push_back({QStringLiteral("explore"), t});
            } else {
                cases.push_back({w, -1});
            }
        }
        for (const QString &nText : parser.value(nOpt).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool isInt = false;
            const int n = nText.toInt(&isInt);
            if (!isInt || n < 2) {
                std::fprintf(stderr, "--n: '%s' is not a token count of 2 or more\n", qPrintable(nText));
                return 2;
            }
            for (const StallCase &c : cases)
                allOk = benchStall(window, c, n, parser.value(runWindowOpt).toInt() * 1000,
                                   parser.isSet(profileOpt) ? &app : nullptr) && allOk;
        }
    }
    return allOk ? 0 : 1;
}
