// fusebox_bench_engine: the rewrite engine on generated recommendation-style
// graphs of 1k, 10k and 100k nodes, without libtorch. Prints figures and the
// issue's targets beside them; never fails on a missed target.

#include "BenchUtil.h"
#include "LinearReluPattern.h"
#include "RecsysGraphGenerator.h"

#include "core/ir/Verifier.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"
#include "patterns/Catalog.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <memory>
#include <vector>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace fusebox;
using namespace fusebox::bench;

namespace {

/// Runs the catalog `runs` times (median) in a child process and prints its
/// figures; kills the child after budgetS seconds and says so.
void runCatalog(const Graph &graph, const PatternSet &catalog, int runs, size_t target, int budgetS)
{
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        std::vector<double> times;
        DriverResult last;
        long peakDeltaKiB = 0;
        bool peakReset = true;
        for (int r = 0; r < runs; ++r) {
            Graph work = graph.clone();
            const long before = procStatusKiB("VmRSS");
            peakReset = resetPeakRss() && peakReset;
            GreedyDriver driver(catalog);
            auto start = Clock::now();
            DriverResult res = driver.run(work);
            times.push_back(msSince(start));
            peakDeltaKiB = std::max(peakDeltaKiB, procStatusKiB("VmHWM") - before);
            last = std::move(res);
        }
        const double catMs = median(times);
        std::printf("catalog fixed point: %.1f ms (%s of %d), rounds %d, rewrites %zu, converged %s%s%s, "
                    "nodes %zu -> %zu\n",
                    catMs, runs > 1 ? "median" : "single run", runs, last.rounds, last.rewrites.size(),
                    last.converged ? "yes" : "no", last.message.empty() ? "" : ": ", last.message.c_str(),
                    last.nodesBefore, last.nodesAfter);
        std::printf("  peak RSS during run: +%.1f MiB over the generated graph and its clone%s\n", mib(peakDeltaKiB),
                    peakReset ? "" : " [VmHWM reset refused: process-wide peak]");
        for (size_t r = 0; r < last.roundStats.size(); ++r) {
            const RoundStats &st = last.roundStats[r];
            std::printf("  round %zu: %s%s, %zu candidates, %zu applied; search %.1f ms, apply %.1f ms, "
                        "reorder %.1f ms\n",
                        r + 1,
                        st.searchedNodes ? ("near changes (" + std::to_string(st.searchedNodes) + " nodes)").c_str()
                                         : "whole graph",
                        st.fullSearch ? " then whole graph" : "", st.candidates, st.applied, st.searchMs, st.applyMs,
                        st.reorderMs);
        }
        std::string appliedBy;
        for (const auto &[name, c] : last.counters)
            if (c.applied)
                appliedBy += " " + name + "=" + std::to_string(c.applied);
        std::printf("  applied by pattern:%s\n", appliedBy.empty() ? " (none)" : appliedBy.c_str());
        if (target >= 100000)
            std::printf("  target (issue 13): whole catalog on 100k nodes under 1 s and under 1 GB -> %.2f s, "
                        "+%.0f MiB: %s\n",
                        catMs / 1000.0, mib(peakDeltaKiB),
                        (catMs < 1000.0 && peakDeltaKiB < 1024L * 1024L) ? "MET" : "NOT MET");
        std::fflush(stdout);
        _exit(0);
    }
    if (child < 0) {
        std::printf("catalog fixed point: fork failed\n");
        return;
    }
    auto start = Clock::now();
    int status = 0;
    while (true) {
        const pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            break;
        if (msSince(start) > budgetS * 1000.0) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            std::printf("catalog fixed point: did NOT finish within the %d s budget (run stopped)\n", budgetS);
            if (target >= 100000)
                std::printf("  target (issue 13): whole catalog on 100k nodes under 1 s and under 1 GB -> over %d s: "
                            "NOT MET\n",
                            budgetS);
            return;
        }
        usleep(20000);
    }
}

} // namespace

int main(int argc, char **argv)
{
    // Usage: fusebox_bench_engine [--budget SECONDS] [sizes...]
    std::vector<size_t> sizes;
    int budgetS = 60;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--budget" && i + 1 < argc)
            budgetS = std::atoi(argv[++i]);
        else
            sizes.push_back(size_t(std::strtoull(argv[i], nullptr, 10)));
    }
    if (sizes.empty())
        sizes = {1000, 10000, 100000};
    const PatternSet catalog = builtinCatalog();
    std::printf("fusebox_bench_engine: builtinCatalog() with %zu patterns (%zu enabled)\n", catalog.size(),
                catalog.enabled().size());

    PatternSet lrSet;
    lrSet.add(std::make_unique<LinearReluPattern>());
    const auto &lrPattern = static_cast<const LinearReluPattern &>(*lrSet.find("linear_relu"));

    for (size_t target : sizes) {
        const int runs = 3;
        const long rssStart = procStatusKiB("VmRSS");
        auto t0 = Clock::now();
        Graph graph = generateRecsysGraph({.targetNodes = target});
        const double genMs = msSince(t0);
        const long rssGraph = procStatusKiB("VmRSS");
        const auto issues = verify(graph);
        std::printf("\n== %zu-node target: generated %zu nodes, %zu edges in %.1f ms, graph RSS +%.1f MiB, "
                    "verifier %s\n",
                    target, graph.size(), graph.edgeCount(), genMs, mib(rssGraph - rssStart),
                    issues.empty() ? "clean" : formatIssues(issues).c_str());

        // (a) the whole catalog to a fixed point, on a fresh clone per run, in
        // a forked child so that a run past the time budget can be stopped.
        runCatalog(graph, catalog, runs, target, budgetS);

        // (b) linear -> relu: Fusebox's matcher (the driver's collection, and the raw loop).
        GreedyDriver lrDriver(lrSet);
        std::vector<double> tFind, tLoop;
        size_t nFind = 0, nLoop = 0;
        for (int r = 0; r < 3; ++r) {
            auto s = Clock::now();
            nFind = lrDriver.findMatches(graph).size();
            tFind.push_back(msSince(s));
            s = Clock::now();
            nLoop = countLinearReluMatches(graph, lrPattern);
            tLoop.push_back(msSince(s));
        }
        std::printf("linear->relu matching, fusebox: GreedyDriver::findMatches %zu matches in %.3f ms; "
                    "pattern.match loop %zu matches in %.3f ms (median of 3)\n",
                    nFind, median(tFind), nLoop, median(tLoop));
    }
    std::printf("\nSubgraphRewriter comparison (issue target: fixed-arity matcher at least 5x faster): "
                "run fusebox_bench_torch.\n");
    return 0;
}
