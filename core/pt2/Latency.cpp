#include "Latency.h"

#include "BridgeGraph.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace fusebox {

std::optional<Error> checkLatencyCounts(int warmup, int iterations)
{
    if (warmup < 0 || iterations < 1)
        return Error{"latency: need warmup >= 0 and iterations >= 1 (got " + std::to_string(warmup) + ", "
                     + std::to_string(iterations) + ")"};
    return std::nullopt;
}

LatencyResult summarizeLatency(std::vector<double> samplesMs)
{
    LatencyResult result;
    result.iterations = static_cast<int>(samplesMs.size());
    if (samplesMs.empty())
        return result;
    result.meanMs = std::accumulate(samplesMs.begin(), samplesMs.end(), 0.0) / samplesMs.size();
    std::vector<double> sorted = samplesMs;
    std::sort(sorted.begin(), sorted.end());
    auto quantile = [&sorted](double q) {
        const double rank = q * (sorted.size() - 1);
        const size_t below = static_cast<size_t>(rank);
        const size_t above = std::min(below + 1, sorted.size() - 1);
        return sorted[below] + (rank - below) * (sorted[above] - sorted[below]);
    };
    result.minMs = sorted.front();
    result.maxMs = sorted.back();
    result.medianMs = quantile(0.5);
    result.p25Ms = quantile(0.25);
    result.p75Ms = quantile(0.75);
    result.samplesMs = std::move(samplesMs);
    return result;
}

std::string formatMilliseconds(double ms)
{
    char text[32];
    std::snprintf(text, sizeof text, ms < 10 ? "%.3f ms" : ms < 100 ? "%.2f ms" : "%.1f ms", ms);
    return text;
}

namespace {

/// "1.36x faster", "1.10x slower".
std::string ratioText(double speedup)
{
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2fx", speedup >= 1 ? speedup : (speedup > 0 ? 1 / speedup : 0));
    return std::string(ratio) + (speedup >= 1 ? " faster" : " slower");
}

bool cancelled(const LatencyOptions &options)
{
    return options.cancel && options.cancel->load();
}

CompiledStats statsFromJson(const nlohmann::json &stats, double seconds)
{
    CompiledStats s;
    s.compileSeconds = seconds;
    s.kernels = stats.value("kernels", int64_t{0});
    s.externCalls = stats.value("extern_calls", int64_t{0});
    return s;
}

} // namespace

std::string LatencyComparison::summary() const
{
    return "before " + formatMilliseconds(before.medianMs) + ", after " + formatMilliseconds(after.medianMs)
           + " (median of " + std::to_string(before.iterations) + ", " + engine + "): " + ratioText(speedup());
}

std::string LatencyComparison::compiledSummary() const
{
    if (!compiledError.empty())
        return "compiled: not measured: " + compiledError;
    if (!compiled)
        return {};
    const CompiledLatency &c = *compiled;
    return "compiled: before " + formatMilliseconds(c.before.medianMs) + ", after "
           + formatMilliseconds(c.after.medianMs) + " (median of " + std::to_string(c.before.iterations)
           + ", torch.compile, Inductor CPU" + (c.freezing ? ", freezing" : "")
           + (c.isa.empty() ? ", scalar kernels" : "") + "): " + ratioText(c.speedup()) + "; kernels "
           + std::to_string(c.beforeStats.kernels) + " -> " + std::to_string(c.afterStats.kernels) + ", extern calls "
           + std::to_string(c.beforeStats.externCalls) + " -> " + std::to_string(c.afterStats.externCalls);
}

Expected<LatencyComparison> compareLatencyInPt2(pt2::Pt2Bridge &bridge, const Graph &original, const Graph &current,
                                                const LatencyOptions &options)
{
    if (auto error = checkLatencyCounts(options.warmup, options.iterations))
        return *error;
    auto info = bridge.check();
    if (!info)
        return info.error();
    pt2::RequestControl control;
    control.cancel = options.cancel;
    control.timeoutSeconds = 1800; // two compiles of a large graph, then the runs
    control.progress = [&options](const std::string &text, double fraction) {
        if (fraction >= 0 && options.progress)
            options.progress(static_cast<int>(fraction * options.iterations + 0.5), options.iterations);
        else if (fraction < 0 && options.status)
            options.status(text);
    };
    nlohmann::json modes = nlohmann::json::array({"eager"});
    if (options.compiled)
        modes.push_back("compiled");
    auto answer = bridge.request("latency",
                                 {{"before", pt2::bridgeGraphText(original)},
                                  {"after", pt2::bridgeGraphText(current)},
                                  {"weights", pt2::bridgeWeights(original)},
                                  {"modes", modes},
                                  {"freezing", options.freezing},
                                  {"warmup", options.warmup},
                                  {"iterations", options.iterations},
                                  {"seed", options.seed}},
                                 control);
    if (!answer)
        return cancelled(options) ? Error{"cancelled"} : answer.error();
    try {
        const nlohmann::json &a = *answer;
        LatencyComparison comparison;
        comparison.before = summarizeLatency(a.at("before_ms").get<std::vector<double>>());
        comparison.after = summarizeLatency(a.at("after_ms").get<std::vector<double>>());
        comparison.warmup = options.warmup;
        comparison.engine = "PyTorch " + info->torch + " through the bridge";
        if (comparison.before.iterations != options.iterations || comparison.after.iterations != options.iterations)
            return Error{"latency: the bridge answered " + std::to_string(comparison.before.iterations) + " and "
                         + std::to_string(comparison.after.iterations) + " runs, " + std::to_string(options.iterations)
                         + " asked"};
        if (a.contains("compiled_error"))
            comparison.compiledError = a.at("compiled_error").get<std::string>();
        if (a.contains("compiled")) {
            const nlohmann::json &c = a.at("compiled");
            CompiledLatency compiled;
            compiled.before = summarizeLatency(c.at("before_ms").get<std::vector<double>>());
            compiled.after = summarizeLatency(c.at("after_ms").get<std::vector<double>>());
            compiled.beforeStats = statsFromJson(c.at("stats").at("before"), c.at("compile_seconds").at("before"));
            compiled.afterStats = statsFromJson(c.at("stats").at("after"), c.at("compile_seconds").at("after"));
            compiled.isa = c.at("stats").at("before").value("isa", std::string());
            compiled.freezing = c.at("stats").at("before").value("freezing", options.freezing);
            for (const auto &note : c.value("notes", nlohmann::json::array()))
                compiled.notes.push_back(note.get<std::string>());
            comparison.compiled = std::move(compiled);
        }
        return comparison;
    } catch (const std::exception &e) {
        return Error{std::string("latency: the bridge's answer: ") + e.what()};
    }
}

Expected<LatencyComparison> compareLatencyInPt2(const Graph &original, const Graph &current,
                                                const LatencyOptions &options)
{
    if (options.bridge)
        return compareLatencyInPt2(*options.bridge, original, current, options);
    auto found = pt2::Pt2Bridge::find();
    if (!found)
        return found.error();
    return compareLatencyInPt2(**found, original, current, options);
}

} // namespace fusebox
