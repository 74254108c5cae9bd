#include "LatencyComparison.h"

#include "Executor.h"
#include "IrToTorchGraph.h"
#include "TorchValueConversion.h"

#include "core/ir/GraphSource.h"
#include "core/pt2/Pt2Bridge.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <memory>

namespace fusebox {
namespace {

namespace jit = torch::jit;

bool cancelled(const LatencyOptions &options)
{
    return options.cancel && options.cancel->load();
}

/// One graph ready to run in libtorch on fixed inputs.
class TimedGraph {
public:
    static Expected<std::unique_ptr<TimedGraph>> create(const Graph &graph, const std::vector<HostTensor> &inputs,
                                                        const char *which)
    {
        Expected<torchlower::LoweredGraph> lowered = torchlower::lowerGraph(graph);
        if (!lowered)
            return Error{std::string(which) + ": " + lowered.error().message};
        if (inputs.size() != lowered->inputs.size())
            return Error{std::string(which) + ": the graph has " + std::to_string(lowered->inputs.size())
                         + " inputs, the original " + std::to_string(inputs.size())};
        auto timed = std::unique_ptr<TimedGraph>(new TimedGraph(lowered->graph));
        timed->m_values = torchimport::ivaluesFromWeights(inputs);
        return timed;
    }

    /// Milliseconds of one forward pass.
    double run()
    {
        const auto start = std::chrono::steady_clock::now();
        jit::Stack stack(m_values);
        m_executor.run(stack);
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }

private:
    explicit TimedGraph(std::shared_ptr<jit::Graph> graph)
        : m_executor(std::move(graph), "forward")
    {}

    jit::GraphExecutor m_executor;
    std::vector<c10::IValue> m_values;
};

/// Both graphs in libtorch. An Error with `original` set when the original
/// itself cannot run there (the caller then tries the bridge).
Expected<LatencyComparison> compareOnLibtorch(const Graph &original, const Graph &current,
                                              const LatencyOptions &options, bool *originalFailed)
{
    *originalFailed = true;
    auto inputs = randomInputs(original, options.seed);
    if (!inputs)
        return inputs.error();
    try {
        at::NoGradGuard noGrad;
        auto before = TimedGraph::create(original, *inputs, "original");
        if (!before)
            return before.error();
        (*before)->run(); // ops libtorch lacks fail here, before anything is timed
        *originalFailed = false;
        auto after = TimedGraph::create(current, *inputs, "current graph");
        if (!after)
            return after.error();
        for (int i = 0; i < options.warmup; ++i) {
            if (cancelled(options))
                return Error{"cancelled"};
            (*before)->run();
            (*after)->run();
        }
        std::vector<double> beforeMs, afterMs;
        for (int i = 0; i < options.iterations; ++i) {
            if (cancelled(options))
                return Error{"cancelled"};
            // ABBA: neither graph always runs on the other's warm caches.
            if (i % 2 == 0) {
                beforeMs.push_back((*before)->run());
                afterMs.push_back((*after)->run());
            } else {
                afterMs.push_back((*after)->run());
                beforeMs.push_back((*before)->run());
            }
            if (options.progress)
                options.progress(i + 1, options.iterations);
        }
        LatencyComparison comparison;
        comparison.before = summarizeLatency(std::move(beforeMs));
        comparison.after = summarizeLatency(std::move(afterMs));
        comparison.warmup = options.warmup;
        comparison.engine = "libtorch 1.13";
        return comparison;
    } catch (const std::exception &e) {
        return Error{"latency: " + torchimport::oneLineMessage(e)};
    }
}

} // namespace

Expected<LatencyComparison> compareLatency(const Graph &original, const Graph &current, const LatencyOptions &options)
{
    if (auto error = checkLatencyCounts(options.warmup, options.iterations))
        return *error;
    if (isPt2Graph(original) && options.allowBridge) {
        auto onBridge = compareLatencyInPt2(original, current, options);
        if (onBridge || cancelled(options) || pt2::findPythonCommand())
            return onBridge;
        // No PyTorch 2 at all: libtorch's figures, saying why there are no compiled ones.
        bool originalFailed = false;
        auto onLibtorch = compareOnLibtorch(original, current, options, &originalFailed);
        if (!onLibtorch)
            return Error{onBridge.error().message
                         + "; and libtorch 1.13 cannot run it either: " + onLibtorch.error().message};
        onLibtorch->compiledError = onBridge.error().message;
        return onLibtorch;
    }
    bool originalFailed = false;
    auto onLibtorch = compareOnLibtorch(original, current, options, &originalFailed);
    if (onLibtorch || !originalFailed || !options.allowBridge || cancelled(options))
        return onLibtorch;
    auto onBridge = compareLatencyInPt2(original, current, options);
    if (!onBridge && !cancelled(options))
        return Error{onLibtorch.error().message + "; and PyTorch 2 cannot run it either: " + onBridge.error().message};
    return onBridge;
}

} // namespace fusebox
