#pragma once

#include "LatencyBenchmark.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"
#include "core/pt2/Latency.h" // LatencyOptions, LatencyComparison

namespace fusebox {

/// Times `original` and `current` as they run, never a cost model, on the same
/// inputs; each graph warms up, then the timed runs alternate between the two
/// (before, after, after, before, ...) so that drift of a noisy machine falls
/// on both alike.
/// - A PT2 graph (isPt2Graph) runs where users run it, in PyTorch 2 through
///   the bridge (compareLatencyInPt2: eager and, with options.compiled,
///   compiled by torch.compile); when no PyTorch 2 is set up (or
///   !allowBridge), in libtorch, with why in compiledError.
/// - Any other graph runs in libtorch's GraphExecutor (as measureLatency()
///   does) on randomInputs(original, seed), and in PyTorch 2 only when
///   libtorch cannot run the original (ops it lacks).
/// Errors are one line.
Expected<LatencyComparison> compareLatency(const Graph &original, const Graph &current,
                                           const LatencyOptions &options = {});

} // namespace fusebox
