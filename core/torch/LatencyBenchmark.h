#pragma once

#include "Executor.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

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

/// Times the graph as libtorch runs a scripted model: the lowered graph
/// (IrToTorchGraph.h) under a torch::jit::GraphExecutor (the profiling
/// executor, which specializes and optimizes after its first runs), with
/// torch::NoGradGuard and libtorch's default thread count, on `inputs` (one
/// per graph input). `warmup` untimed runs come first; at least 2 let the
/// profiling executor settle. iterations >= 1. Errors are one line (lowering,
/// a failing run, bad counts).
Expected<LatencyResult> measureLatency(const Graph &graph, const std::vector<HostTensor> &inputs, int warmup,
                                       int iterations);

/// The same on randomInputs(graph, 0).
Expected<LatencyResult> measureLatency(const Graph &graph, int warmup, int iterations);

/// The peer a rewritten graph is compared against: loads the original
/// archive, runs torch::jit::optimize_for_inference(torch::jit::freeze(module))
/// (eval mode; the optimization itself is not timed) and times its forward on
/// `inputs` as measureLatency() does. Errors are one line starting with the path.
Expected<LatencyResult> measureOptimizeForInferenceLatency(const std::string &ptPath,
                                                           const std::vector<HostTensor> &inputs, int warmup,
                                                           int iterations);

} // namespace fusebox
