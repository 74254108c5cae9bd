// fusebox_bench_gui: the IDE on a generated 100k-node graph (offscreen).
//
// Figures: time from handing the graph to the document until the top level
// is drawn (target: under 3 s), and for every interaction (opening, the
// engine's search of the whole graph in the background, expanding the
// biggest group, collapsing it again, a regex search over every node) the
// worst GUI-thread stall: the longest the event loop did not run (target:
// under 50 ms each, issue 36); and memory. Peer, measured
// in the same run on the same graph: the IR verifier's single pass over it
// (verify(graph)), which the open includes, so the ratio says how many such
// passes opening costs on this machine.
//
// Usage: fusebox_bench_gui [NODES] [--screenshot top.png]
#include "BenchUtil.h"
#include "RecsysGraphGenerator.h"

#include "core/ir/Verifier.h"
#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/GroupItem.h"
#include "views/MainWindow.h"
#include "views/NodeSearchField.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using namespace fusebox;
using namespace fusebox::bench;

namespace {

/// Measures the longest gap between ticks of a 5 ms timer: how long the GUI
/// thread was busy without returning to its event loop.
class StallMeter {
public:
    StallMeter()
    {
        m_timer.setInterval(5);
        QObject::connect(&m_timer, &QTimer::timeout, [this] { m_worst = std::max(m_worst, m_clock.restart()); });
    }
    void start()
    {
        m_worst = 0;
        m_clock.start();
        m_timer.start();
    }
    qint64 stop()
    {
        m_timer.stop();
        return std::max(m_worst, m_clock.elapsed());
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_worst = 0;
};

const char *verdict(bool met)
{
    return met ? "MET" : "NOT MET";
}

constexpr qint64 kStallTarget = 50;

/// Times every event the GUI thread delivers, to name what a stall was: the
/// slowest event since the last reset(), its type and its receiver's class.
class TimedApplication final : public QApplication {
    static std::string eventName(int type)
    {
        switch (type) {
        case QEvent::Paint: return "paint";
        case QEvent::MetaCall: return "queued call";
        case QEvent::LayoutRequest: return "layout request";
        case QEvent::UpdateRequest: return "repaint";
        case QEvent::Expose: return "expose";
        case QEvent::Timer: return "timer";
        case QEvent::FutureCallOut: return "future result (a task's done)";
        default: return "event " + std::to_string(type);
        }
    }

public:
    using QApplication::QApplication;

    bool notify(QObject *receiver, QEvent *event) override
    {
        if (m_depth++ > 0) { // nested: the outer event's time includes it
            const bool r = QApplication::notify(receiver, event);
            --m_depth;
            return r;
        }
        QElapsedTimer clock;
        clock.start();
        const int type = event->type();
        const char *cls = receiver->metaObject()->className();
        const bool r = QApplication::notify(receiver, event);
        --m_depth;
        if (clock.elapsed() > m_slowestMs) {
            m_slowestMs = clock.elapsed();
            m_slowest = std::string(cls) + " " + eventName(type);
        }
        return r;
    }
    void reset()
    {
        m_slowestMs = 0;
        m_slowest.clear();
    }
    std::string slowest() const
    {
        return m_slowest.empty() ? std::string("none") : m_slowest + " (" + std::to_string(m_slowestMs) + " ms)";
    }

private:
    int m_depth = 0;
    qint64 m_slowestMs = 0;
    std::string m_slowest;
};

/// Every interaction's worst stall, for the summary.
std::vector<std::pair<std::string, qint64>> g_stalls;

void reportStall(const char *what, qint64 stall)
{
    g_stalls.emplace_back(what, stall);
    auto *app = static_cast<TimedApplication *>(QCoreApplication::instance());
    std::printf("  worst GUI stall while %s: %lld ms — target < %lld ms: %s; slowest event: %s\n", what,
                static_cast<long long>(stall), static_cast<long long>(kStallTarget), verdict(stall < kStallTarget),
                app->slowest().c_str());
    app->reset();
}

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    TimedApplication app(argc, argv);
    size_t nodes = 100000;
    QString screenshot;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--screenshot" && i + 1 < argc)
            screenshot = QString::fromLocal8Bit(argv[++i]);
        else if (a == "--help" || a == "-h") {
            std::printf("usage: fusebox_bench_gui [NODES] [--screenshot top.png]\n");
            return 0;
        } else
            nodes = std::strtoull(argv[i], nullptr, 10);
    }

    auto start = Clock::now();
    Graph graph = generateRecsysGraph({.targetNodes = nodes});
    std::printf("generated %zu nodes, %zu edges in %.0f ms\n", graph.size(), graph.edgeCount(), msSince(start));

    // Peer: one verifier pass over the same graph.
    std::vector<double> peer;
    for (int i = 0; i < 3; ++i) {
        start = Clock::now();
        const auto issues = verify(graph);
        peer.push_back(msSince(start));
        if (!issues.empty())
            std::printf("verifier: %zu issues\n", issues.size());
    }
    const double verifyMs = median(peer);
    const long rssBefore = procStatusKiB("VmRSS");

    MainWindow window;
    window.setErrorDialogsEnabled(false);
    window.resize(1600, 1000);
    window.show();
    QSignalSpy shown(&window, &MainWindow::graphShown);
    StallMeter stalls;

    // Opened as a file is (Document::open): read and checked in the
    // background, then shown. The stall meter runs from the event loop: the
    // first tick after openGraph() returns measures the call itself.
    stalls.start();
    app.reset();
    start = Clock::now();
    window.document()->openGraph(std::move(graph), QStringLiteral("generated %1k").arg(nodes / 1000));
    if (!shown.wait(120000)) {
        std::printf("the graph was not shown within 120 s\n");
        return 1;
    }
    const double openMs = msSince(start);
    app.processEvents();
    const qint64 openStall = stalls.stop();
    const GraphScene &scene = *window.scene();
    std::printf("\nopen to top level drawn: %.0f ms (%d groups, %d nodes drawn) — target < 3000 ms: %s\n", openMs,
                scene.groupItemCount(), scene.nodeItemCount(), verdict(openMs < 3000));
    std::printf("  peer verify(graph): %.1f ms; open = %.1f× the verifier pass\n", verifyMs, openMs / verifyMs);
    reportStall("opening", openStall);
    if (!screenshot.isEmpty())
        window.grab().save(screenshot);

    // The engine's search over the whole graph runs in the background.
    Document &doc = *window.document();
    stalls.start();
    app.reset();
    start = Clock::now();
    doc.findMatches();
    if (!QTest::qWaitFor([&] { return !doc.jobs().isSearching() && doc.review().hasMatchResults(); }, 120000))
        std::printf("the search did not finish within 120 s\n");
    const double searchMs = msSince(start);
    const qint64 searchStall = stalls.stop();
    std::printf("find matches (background): %.0f ms, %zu candidates\n", searchMs, doc.review().matches().size());
    reportStall("finding matches", searchStall);

    // Expanding the biggest group lays it out off the GUI thread.
    int biggest = -1;
    size_t most = 0;
    for (const auto &item : scene.visibleGraph().items())
        if (item.isGroup() && item.nodeCount > most && item.nodeCount < 600) {
            most = item.nodeCount;
            biggest = item.scope;
        }
    // One change of what is shown, timed to drawn, with its worst stall.
    auto timedLayout = [&](const std::function<void()> &change, qint64 *stall) {
        stalls.start();
        app.reset();
        const auto begun = Clock::now();
        change();
        if (!QTest::qWaitFor([&] { return !scene.isLayoutRunning(); }, 120000))
            std::printf("the layout did not finish within 120 s\n");
        const double ms = msSince(begun);
        *stall = stalls.stop();
        return ms;
    };
    if (biggest >= 0) {
        qint64 stall = 0;
        const double expandMs = timedLayout([&] { window.scene()->expandScope(biggest); }, &stall);
        std::printf("expand a group of %zu nodes: %.0f ms to drawn (%d groups, %d nodes drawn)\n", most, expandMs,
                    scene.groupItemCount(), scene.nodeItemCount());
        reportStall("expanding", stall);
        const double collapseMs = timedLayout([&] { window.scene()->collapseScope(biggest); }, &stall);
        std::printf("collapse it again: %.0f ms to drawn\n", collapseMs);
        reportStall("collapsing", stall);
    }

    // The search field runs on the GUI thread: its whole time is a stall.
    start = Clock::now();
    const auto hits = NodeSearchField::findAll(doc.model().graph(), QStringLiteral("layer_norm_1[0-9]+$"));
    const double regexMs = msSince(start);
    std::printf("regex search over %zu nodes: %.0f ms, %zu hits\n", doc.model().graph().size(), regexMs, hits.size());
    reportStall("searching by regex", qint64(regexMs + 0.5));

    qint64 worst = 0;
    std::string worstWhat;
    for (const auto &[what, stall] : g_stalls)
        if (stall >= worst) {
            worst = stall;
            worstWhat = what;
        }
    std::printf("\nworst GUI stall of every interaction: %lld ms (%s) — target < %lld ms: %s\n",
                static_cast<long long>(worst), worstWhat.c_str(), static_cast<long long>(kStallTarget),
                verdict(worst < kStallTarget));

    const long rssAfter = procStatusKiB("VmRSS");
    std::printf(
        "memory: %.0f MiB resident after opening (+%.0f MiB for the window, scene, original copy and matches)\n",
        mib(rssAfter), mib(rssAfter - rssBefore));
    return 0;
}
