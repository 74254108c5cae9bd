#include "LatencyComparison.h"

#include "Executor.h"
#include "IrToTorchGraph.h"
#include "TorchValueConversion.h"

#include "core/io/FxText.h"
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
    explicit TimedGraph(std::shared_ptr<jit::Graph> graph) : m_executor(std::move(graph), "forward") {}

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

/// Both graphs in PyTorch 2, in the bridge's "latency" operation.
Expected<LatencyComparison> compareOnBridge(const Graph &original, const Graph &current,
                                            const LatencyOptions &options)
{
    auto found = pt2::Pt2Bridge::find();
    if (!found)
        return found.error();
    std::unique_ptr<pt2::Pt2Bridge> bridge = std::move(*found);
    auto info = bridge->check();
    if (!info)
        return info.error();
    pt2::RequestControl control;
    control.cancel = options.cancel;
    if (options.progress)
        control.progress = [&options](const std::string &, double fraction) {
            if (fraction >= 0)
                options.progress(static_cast<int>(fraction * options.iterations + 0.5), options.iterations);
        };
    auto answer = bridge->request("latency",
                                  {{"before", writeFxText(original)},
                                   {"after", writeFxText(current)},
                                   {"warmup", options.warmup},
                                   {"iterations", options.iterations},
                                   {"seed", options.seed}},
                                  control);
    if (!answer)
        return cancelled(options) ? Error{"cancelled"} : answer.error();
    try {
        LatencyComparison comparison;
        comparison.before = summarizeLatency((*answer).at("before_ms").get<std::vector<double>>());
        comparison.after = summarizeLatency((*answer).at("after_ms").get<std::vector<double>>());
        comparison.warmup = options.warmup;
        comparison.engine = "PyTorch " + info->torch + " through the bridge";
        if (comparison.before.iterations != options.iterations || comparison.after.iterations != options.iterations)
            return Error{"latency: the bridge answered " + std::to_string(comparison.before.iterations) + " and "
                         + std::to_string(comparison.after.iterations) + " runs, "
                         + std::to_string(options.iterations) + " asked"};
        return comparison;
    } catch (const std::exception &e) {
        return Error{std::string("latency: the bridge's answer: ") + e.what()};
    }
}

std::string milliseconds(double ms)
{
    char text[32];
    std::snprintf(text, sizeof text, ms < 10 ? "%.3f ms" : ms < 100 ? "%.2f ms" : "%.1f ms", ms);
    return text;
}

} // namespace

std::string LatencyComparison::summary() const
{
    const double s = speedup();
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2fx", s >= 1 ? s : (s > 0 ? 1 / s : 0));
    return "before " + milliseconds(before.medianMs) + ", after " + milliseconds(after.medianMs) + " (median of "
           + std::to_string(before.iterations) + ", " + engine + "): " + ratio + (s >= 1 ? " faster" : " slower");
}

Expected<LatencyComparison> compareLatency(const Graph &original, const Graph &current, const LatencyOptions &options)
{
    if (auto error = checkLatencyCounts(options.warmup, options.iterations))
        return *error;
    bool originalFailed = false;
    auto onLibtorch = compareOnLibtorch(original, current, options, &originalFailed);
    if (onLibtorch || !originalFailed || !options.allowBridge || cancelled(options))
        return onLibtorch;
    auto onBridge = compareOnBridge(original, current, options);
    if (!onBridge && !cancelled(options))
        return Error{onLibtorch.error().message + "; and PyTorch 2 cannot run it either: " + onBridge.error().message};
    return onBridge;
}

} // namespace fusebox
