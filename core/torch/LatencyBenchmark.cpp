#include "LatencyBenchmark.h"

#include "IrToTorchGraph.h"
#include "TorchValueConversion.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>

namespace fusebox {
namespace {

namespace jit = torch::jit;

/// Runs `forward` warmup + iterations times; times the latter.
LatencyResult timeRuns(const std::function<void()> &forward, int warmup, int iterations)
{
    at::NoGradGuard noGrad;
    for (int i = 0; i < warmup; ++i)
        forward();
    std::vector<double> ms;
    ms.reserve(iterations);
    for (int i = 0; i < iterations; ++i) {
        auto start = std::chrono::steady_clock::now();
        forward();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return summarizeLatency(std::move(ms));
}

} // namespace

Expected<LatencyResult> measureLatency(const Graph &graph, const std::vector<HostTensor> &inputs, int warmup,
                                       int iterations)
{
    if (auto error = checkLatencyCounts(warmup, iterations))
        return *error;
    Expected<torchlower::LoweredGraph> lowered = torchlower::lowerGraph(graph);
    if (!lowered)
        return lowered.error();
    if (inputs.size() != lowered->inputs.size())
        return Error{"latency: the graph has " + std::to_string(lowered->inputs.size()) + " inputs, "
                     + std::to_string(inputs.size()) + " given"};
    try {
        const std::vector<c10::IValue> values = torchimport::ivaluesFromWeights(inputs);
        jit::GraphExecutor executor(lowered->graph, "forward");
        return timeRuns(
            [&] {
                jit::Stack stack(values);
                executor.run(stack);
            },
            warmup, iterations);
    } catch (const std::exception &e) {
        return Error{"latency: " + torchimport::oneLineMessage(e)};
    }
}

Expected<LatencyResult> measureLatency(const Graph &graph, int warmup, int iterations)
{
    Expected<std::vector<HostTensor>> inputs = randomInputs(graph, 0);
    if (!inputs)
        return inputs.error();
    return measureLatency(graph, *inputs, warmup, iterations);
}

Expected<LatencyResult> measureOptimizeForInferenceLatency(const std::string &ptPath,
                                                           const std::vector<HostTensor> &inputs, int warmup,
                                                           int iterations)
{
    if (auto error = checkLatencyCounts(warmup, iterations))
        return *error;
    try {
        jit::Module module = jit::load(ptPath);
        module.eval();
        jit::Module frozen = jit::freeze(module);
        jit::Module optimized = jit::optimize_for_inference(frozen);
        const std::vector<c10::IValue> values = torchimport::ivaluesFromWeights(inputs);
        return timeRuns([&] { optimized.forward(values); }, warmup, iterations);
    } catch (const std::exception &e) {
        return Error{ptPath + ": " + torchimport::oneLineMessage(e)};
    }
}

} // namespace fusebox
