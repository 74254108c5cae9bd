// fusebox_bench_gui: the IDE on a generated 100k-node graph (offscreen).
//
// Figures: time from handing the graph to the document until the top level
// is drawn (target: under 3 s), the worst GUI-thread stall while the engine
// searches the whole graph in the background and while a group expands
// (target: the window stays responsive: no stall over 100 ms), expanding the
// biggest group, a regex search over every node, and memory. Peer, measured
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
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <string>

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

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
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

    start = Clock::now();
    window.document()->setGraph(std::move(graph), QStringLiteral("generated %1k").arg(nodes / 1000));
    if (!shown.wait(120000)) {
        std::printf("the graph was not shown within 120 s\n");
        return 1;
    }
    const double openMs = msSince(start);
    app.processEvents();
    const GraphScene &scene = *window.scene();
    std::printf("\nopen to top level drawn: %.0f ms (%d groups, %d nodes drawn) — target < 3000 ms: %s\n", openMs,
                scene.groupItemCount(), scene.nodeItemCount(), verdict(openMs < 3000));
    std::printf("  peer verify(graph): %.1f ms; open = %.1f× the verifier pass\n", verifyMs, openMs / verifyMs);
    if (!screenshot.isEmpty())
        window.grab().save(screenshot);

    // The engine's search over the whole graph runs in the background.
    Document &doc = *window.document();
    stalls.start();
    start = Clock::now();
    doc.findMatches();
    if (!QTest::qWaitFor([&] { return !doc.isSearching() && doc.hasMatchResults(); }, 120000))
        std::printf("the search did not finish within 120 s\n");
    const double searchMs = msSince(start);
    const qint64 searchStall = stalls.stop();
    std::printf("find matches (background): %.0f ms, %zu candidates; worst GUI stall %lld ms — target < 100 ms: %s\n",
                searchMs, doc.matches().size(), static_cast<long long>(searchStall), verdict(searchStall < 100));

    // Expanding the biggest group lays it out off the GUI thread.
    int biggest = -1;
    size_t most = 0;
    for (const auto &item : scene.visibleGraph().items())
        if (item.isGroup() && item.nodeCount > most && item.nodeCount < 600) {
            most = item.nodeCount;
            biggest = item.scope;
        }
    if (biggest >= 0) {
        stalls.start();
        start = Clock::now();
        window.scene()->expandScope(biggest);
        if (!QTest::qWaitFor([&] { return !scene.isLayoutRunning(); }, 120000))
            std::printf("the layout did not finish within 120 s\n");
        const double expandMs = msSince(start);
        const qint64 expandStall = stalls.stop();
        std::printf("expand a group of %zu nodes: %.0f ms to drawn; worst GUI stall %lld ms\n", most, expandMs,
                    static_cast<long long>(expandStall));
    }

    start = Clock::now();
    const auto hits = NodeSearchField::findAll(doc.graph(), QStringLiteral("layer_norm_1[0-9]+$"));
    std::printf("regex search over %zu nodes: %.0f ms, %zu hits\n", doc.graph().size(), msSince(start), hits.size());

    const long rssAfter = procStatusKiB("VmRSS");
    std::printf(
        "memory: %.0f MiB resident after opening (+%.0f MiB for the window, scene, original copy and matches)\n",
        mib(rssAfter), mib(rssAfter - rssBefore));
    return 0;
}
