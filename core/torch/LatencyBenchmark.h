#pragma once

#include "Executor.h"

#include "core/pt2/Latency.h" // LatencyResult, summarizeLatency

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace fusebox {

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
