#pragma once

#include "LatencyBenchmark.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace fusebox {

/// How compareLatency() measures.
struct LatencyOptions {
    /// Untimed runs of each graph first (the profiling executor and the
    /// allocator settle); >= 0.
    int warmup = 5;
    /// Timed runs of each graph; >= 1.
    int iterations = 30;
    /// Seed of the random inputs both graphs run on (randomInputs()).
    uint64_t seed = 0;
    /// False keeps to libtorch (no Python is started).
    bool allowBridge = true;
    /// When set and true, the measurement stops with an Error "cancelled".
    const std::atomic<bool> *cancel = nullptr;
    /// Called after each timed pair of runs (done of total), on the measuring thread.
    std::function<void(int done, int total)> progress;
};

/// The original and the current graph timed on the same inputs.
struct LatencyComparison {
    LatencyResult before;
    LatencyResult after;
    int warmup = 0;
    /// "libtorch 1.13" or "PyTorch 2.6.0+debian through the bridge".
    std::string engine;

    /// before.median / after.median: above 1 when the rewrite made it faster.
    double speedup() const { return after.medianMs > 0 ? before.medianMs / after.medianMs : 0; }
    /// One line: "before 1.92 ms, after 1.41 ms (median of 30, libtorch 1.13): 1.36x faster".
    std::string summary() const;
};

/// Times `original` and `current` as they run, never a cost model: both lowered
/// and run by libtorch's GraphExecutor (as measureLatency() does) on
/// randomInputs(original, seed); each graph warms up, then the timed runs
/// alternate between the two (before, after, after, before, ...) so that drift
/// of a noisy machine falls on both alike. When libtorch cannot run the
/// original (ops it lacks), both run in PyTorch 2 through the bridge
/// (docs/pt2-bridge.md, "latency") unless !allowBridge. Errors are one line.
Expected<LatencyComparison> compareLatency(const Graph &original, const Graph &current,
                                           const LatencyOptions &options = {});

} // namespace fusebox
