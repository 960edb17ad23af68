// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-uibench: how the GUI feels, in numbers. Prints one JSON line per figure.
//
//   latency  For each sample model: append a word to the text, then time until every visible heatmap (the
//            overview grid and every visible QCustomPlot) has been replotted and painted. Reported from the
//            edit (including the 150 ms debounce) and from the moment the job was submitted (without it),
//            median and p90 over --edits edits.
//   stall    A synthetic model at --n tokens: a 1 ms precise timer on the UI thread records the longest gap
//            between its ticks from the edit until the result is on screen (replot of an n × n head included).
//
// Run: QT_QPA_PLATFORM=offscreen build/<dir>/bench/ui/attnscope-uibench [--edits 20] [--n 4096] [--only latency|stall]
//      [--profile]   (also prints every UI event that took over 5 ms during the stall run)

#include "shell/mainwindow.h"
#include "runner/enginerunner.h"
#include "workspaces/explore/exploreview.h"

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

void benchStall(MainWindow &window, const QString &spec, int n, int tab, ProfilingApplication *profiler)
{
    if (!openAndWait(window, spec)) {
        printJson({{"figure", "ui_stall"}, {"model", spec}, {"error", "model did not open"}});
        return;
    }
    ExploreView *explore = window.explore();
    explore->setCurrentTab(ExploreView::Tab(tab));
    EngineRunner *runner = window.runner();
    auto *edit = explore->findChild<QPlainTextEdit *>();
    // The synthetic model's tokenizer maps each byte to a token: n − 1 bytes now, the edit adds the n-th.
    QString text;
    const QString word = QStringLiteral("attention ");
    while (text.size() < n - 1) text += word;
    text.truncate(n - 1);
    explore->setText(text);
    waitForSignal(explore, &ExploreView::resultShown, 300000);
    spin(500);

    struct Gap {
        double at, ms;
    };
    std::vector<Gap> gaps;
    double last = nowMs();
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, &tick, [&] {
        const double t = nowMs();
        gaps.push_back({last, t - last});
        last = t;
    });
    double started = -1, shown = -1;
    QObject::connect(runner, &EngineRunner::started, &tick, [&] { started = nowMs(); });
    QObject::connect(explore, &ExploreView::resultShown, &tick, [&] { shown = nowMs(); });
    tick.start();
    spin(20);
    if (profiler) {
        profiler->slow.clear();
        profiler->profiling = true;
    }
    const double t0 = nowMs();
    last = t0;
    gaps.clear();
    appendText(edit, QStringLiteral("x"));
    const bool ok = waitForSignal(explore, &ExploreView::resultShown, 300000);
    spin(500);   // the queued replot and paint of the big head
    tick.stop();
    if (profiler) {
        profiler->profiling = false;
        for (const SlowEvent &e : profiler->slow)
            printJson({{"figure", "ui_stall_event"}, {"at_ms", round2(e.at - t0)}, {"ms", round2(e.ms)},
                       {"event_type", e.type}, {"depth", e.depth}, {"receiver", QString::fromUtf8(e.receiver)}});
    }
    const int tokens = explore->snapshot() ? explore->snapshot()->length() : 0;
    const double jobMs = explore->snapshot() ? explore->snapshot()->elapsedMs : 0.0;
    std::sort(gaps.begin(), gaps.end(), [](const Gap &a, const Gap &b) { return a.ms > b.ms; });
    QJsonArray worst;
    for (std::size_t i = 0; i < std::min<std::size_t>(5, gaps.size()); ++i)
        worst.append(QJsonObject{{"at_ms", round2(gaps[i].at - t0)}, {"gap_ms", round2(gaps[i].ms)}});
    const char *tabNames[] = {"head", "lines", "statistics", "rollout", "outputs"};
    printJson({{"figure", "ui_stall"},
               {"model", spec},
               {"tokens", tokens},
               {"tab", tabNames[std::clamp(tab, 0, 4)]},
               {"ok", ok},
               {"max_gap_ms", gaps.empty() ? 0.0 : round2(gaps.front().ms)},
               {"worst_gaps", worst},
               {"submitted_at_ms", round2(started - t0)},
               {"job_done_at_ms", round2(started + jobMs - t0)},
               {"shown_at_ms", round2(shown - t0)},
               {"job_ms", round2(jobMs)},
               {"goal_ms", 50}});
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
    QCommandLineOption nOpt(QStringLiteral("n"), QStringLiteral("Tokens for the stall figure."), QStringLiteral("N"),
                            QStringLiteral("4096"));
    QCommandLineOption specOpt(QStringLiteral("stall-model"), QStringLiteral("Model for the stall figure."),
                               QStringLiteral("SPEC"), QStringLiteral("random:layers=1,heads=4,d_model=64,seed=1"));
    QCommandLineOption onlyOpt(QStringLiteral("only"), QStringLiteral("latency or stall."), QStringLiteral("WHICH"));
    QCommandLineOption profileOpt(QStringLiteral("profile"), QStringLiteral("Print the slow UI events of the stall."));
    parser.addOptions({editsOpt, nOpt, specOpt, onlyOpt, profileOpt});
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
    if (only.isEmpty() || only == QLatin1String("stall"))
        benchStall(window, parser.value(specOpt), parser.value(nOpt).toInt(), int(ExploreView::HeadTab),
                   parser.isSet(profileOpt) ? &app : nullptr);
    return 0;
}
