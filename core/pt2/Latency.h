#pragma once
// Latency of an original graph and its rewrite, measured, never modelled:
// the summary types Measure Latency, `fusebox-pass run --measure` and the
// benchmarks share, and the measurement in PyTorch 2 (eager, and compiled by
// torch.compile as users run it). libtorch's measurement is
// core/torch/LatencyComparison.h's compareLatency(), which uses this one for
// PT2 graphs.

#include "Pt2Bridge.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// Wall-clock time of one forward pass, over the timed iterations.
struct LatencyResult {
    double medianMs = 0;
    double meanMs = 0;
    double minMs = 0;
    double maxMs = 0;
    /// The middle half of the runs lies between these (the spread a chart shows).
    double p25Ms = 0;
    double p75Ms = 0;
    /// Timed iterations (warmup runs excluded).
    int iterations = 0;
    /// Each timed run, in the order run.
    std::vector<double> samplesMs;
};

/// The one-line Error a measurement gives for warmup < 0 or iterations < 1.
std::optional<Error> checkLatencyCounts(int warmup, int iterations);

/// The summary of `samplesMs` (at least one): median, mean, min, max and the
/// quartiles (linear interpolation between ranks, as numpy's default).
LatencyResult summarizeLatency(std::vector<double> samplesMs);

/// How compareLatency() and compareLatencyInPt2() measure.
struct LatencyOptions {
    /// Untimed runs of each graph first (the profiling executor and the
    /// allocator settle); >= 0.
    int warmup = 5;
    /// Timed runs of each graph; >= 1.
    int iterations = 30;
    /// Seed of the random inputs both graphs run on.
    uint64_t seed = 0;
    /// False keeps to libtorch (no Python is started).
    bool allowBridge = true;
    /// PT2 graphs: also compile both with torch.compile (Inductor, CPU) and time
    /// the compiled graphs, interleaved with the eager runs.
    bool compiled = true;
    /// The compiled graphs as CPU inference compiles a model: the parameters
    /// the module's (Dynamo lifted them into inputs) and Inductor's freezing
    /// on, so that what depends on parameters alone is folded once. False:
    /// parameters stay inputs, computed from at every call.
    bool freezing = true;
    /// The bridge to use (a document's own); null: Pt2Bridge::find().
    pt2::Pt2Bridge *bridge = nullptr;
    /// When set and true, the measurement stops with an Error "cancelled".
    const std::atomic<bool> *cancel = nullptr;
    /// Called after each timed round (done of total), on the measuring thread.
    std::function<void(int done, int total)> progress;
    /// Called with what the bridge is doing ("compiling the original with torch.compile ...").
    std::function<void(const std::string &text)> status;
};

/// What Inductor made of a graph when torch.compile compiled it.
struct CompiledStats {
    double compileSeconds = 0;
    int64_t kernels = 0;     ///< kernels Inductor generated
    int64_t externCalls = 0; ///< calls it left to ATen (mm, addmm, bmm, ...)
};

/// The graphs compiled by torch.compile (Inductor, CPU, default options: its
/// own Optimus passes off; freezing as LatencyOptions says) and timed in the
/// same rounds as the eager runs.
struct CompiledLatency {
    bool freezing = true;
    LatencyResult before;
    LatencyResult after;
    CompiledStats beforeStats, afterStats;
    /// The vector instructions Inductor's kernels use ("avx512", "" for scalar code).
    std::string isa;
    /// Where a compiled graph's outputs differ from its eager outputs (one line each).
    std::vector<std::string> notes;

    double speedup() const { return after.medianMs > 0 ? before.medianMs / after.medianMs : 0; }
};

/// The original and the current graph timed on the same inputs.
struct LatencyComparison {
    LatencyResult before;
    LatencyResult after;
    int warmup = 0;
    /// "libtorch 1.13" or "PyTorch 2.6.0+debian through the bridge".
    std::string engine;
    /// PT2 graphs measured with LatencyOptions::compiled: the compiled figures,
    /// or why there are none (compiledError, one line).
    std::optional<CompiledLatency> compiled;
    std::string compiledError;

    /// before.median / after.median: above 1 when the rewrite made it faster.
    double speedup() const { return after.medianMs > 0 ? before.medianMs / after.medianMs : 0; }
    /// One line: "before 1.92 ms, after 1.41 ms (median of 30, libtorch 1.13): 1.36x faster".
    std::string summary() const;
    /// One line for the compiled figures: "compiled: before 0.35 ms, after 0.25 ms
    /// (median of 30, torch.compile, Inductor CPU): 1.40x faster; kernels 32 -> 20,
    /// extern calls 10 -> 3", the error, or "" when not measured.
    std::string compiledSummary() const;
};

/// "1.92 ms", "12.3 ms": a latency as the summaries write it.
std::string formatMilliseconds(double ms);

/// Times `original` and `current` in PyTorch 2 through `bridge` (the bridge's
/// `latency` operation, docs/pt2-bridge.md): both on the same random inputs,
/// eagerly and, with options.compiled, compiled by torch.compile; each variant
/// warms up, then rounds time every variant once, in alternating order.
/// Fusebox's own ops are written as their ATen decompositions and the
/// graphs' constants travel with them. A graph torch.compile cannot compile
/// leaves the eager figures and says why in compiledError. Errors are one line.
Expected<LatencyComparison> compareLatencyInPt2(pt2::Pt2Bridge &bridge, const Graph &original, const Graph &current,
                                                const LatencyOptions &options);
/// The same on options.bridge, else on the bridge Pt2Bridge::find() gives
/// (an Error saying none is set up when there is none).
Expected<LatencyComparison> compareLatencyInPt2(const Graph &original, const Graph &current,
                                                const LatencyOptions &options);

} // namespace fusebox
