// fusebox-pass trace: what a TORCH_TRACE log holds, compile by compile, with
// every graph opened as `inspect` would open it (core/io/TorchTrace.h).
#include "Commands.h"

#include "core/io/TorchTraceGraphs.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <iomanip>
#include <iostream>

namespace fusebox::cli {
namespace {

/// One graph payload, opened.
struct OpenedGraph {
    TraceLog::GraphRef ref;
    std::string address;
    std::optional<size_t> nodes;
    std::string error;
};

std::vector<OpenedGraph> openEveryGraph(const TraceLog &log)
{
    std::vector<OpenedGraph> opened;
    for (const TraceLog::GraphRef &graph : log.graphs()) {
        OpenedGraph entry{graph, traceGraphPath(log, graph), std::nullopt, {}};
        auto model = loadModel(entry.address);
        if (model)
            entry.nodes = model->graph.size();
        else
            entry.error = model.error().message;
        opened.push_back(std::move(entry));
        leakAtExit(std::move(model));
    }
    return opened;
}

/// "served from the FX graph cache: no Optimus pass ran" and the like.
std::string compileNote(const TraceCompile &compile)
{
    std::string note;
    auto add = [&](const std::string &text) { note += (note.empty() ? "" : "; ") + text; };
    if (!compile.failure.empty())
        add("failed: " + compile.failure);
    if (!compile.recompileReason.empty())
        add("recompile: " + compile.recompileReason);
    for (const std::string &event : compile.cacheEvents)
        add(event);
    if (compile.ranNoPreGradPasses())
        add("served from the FX graph cache: no pre-grad (Optimus) pass ran in this compile");
    return note;
}

nlohmann::json optionalRank(const std::optional<int> &rank)
{
    return rank ? nlohmann::json(*rank) : nlohmann::json(nullptr);
}

nlohmann::json jsonListing(const TraceLog &log, const std::vector<OpenedGraph> &opened, double seconds)
{
    nlohmann::json j;
    j["path"] = log.path;
    j["torch_version"] = log.torchVersion.empty() ? nlohmann::json(nullptr) : nlohmann::json(log.torchVersion);
    j["files"] = nlohmann::json::array();
    for (const TraceFile &file : log.files)
        j["files"].push_back(
            {{"path", file.path}, {"rank", optionalRank(file.rank)}, {"bytes", file.bytes}, {"lines", file.lines}});
    j["compiles"] = nlohmann::json::array();
    for (const TraceCompile &compile : log.compiles) {
        nlohmann::json c{{"rank", optionalRank(compile.rank)},
                         {"compile_id", compile.id.str()},
                         {"frame", compile.frame},
                         {"attempt", compile.id.attempt},
                         {"cache", compile.cacheEvents},
                         {"fx_graph_cache_hit", compile.fxGraphCacheHit()},
                         {"ran_no_pre_grad_passes", compile.ranNoPreGradPasses()},
                         {"failure",
                          compile.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(compile.failure)},
                         {"recompile_reason", compile.recompileReason.empty()
                                                  ? nlohmann::json(nullptr)
                                                  : nlohmann::json(compile.recompileReason)}};
        c["payloads"] = nlohmann::json::array();
        for (const TracePayload &payload : compile.payloads)
            c["payloads"].push_back({{"kind", payload.kind}, {"line", payload.line}, {"graph", payload.isGraph}});
        j["compiles"].push_back(std::move(c));
    }
    j["graphs"] = nlohmann::json::array();
    for (const OpenedGraph &graph : opened) {
        j["graphs"].push_back({{"rank", optionalRank(graph.ref.compile->rank)},
                               {"compile_id", graph.ref.compile->id.str()},
                               {"kind", graph.ref.payload->kind},
                               {"occurrence", graph.ref.payload->occurrence},
                               {"line", graph.ref.payload->line},
                               {"address", graph.address},
                               {"nodes", graph.nodes ? nlohmann::json(*graph.nodes) : nlohmann::json(nullptr)},
                               {"error", graph.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(graph.error)}});
    }
    j["warnings"] = log.warnings;
    j["index_seconds"] = seconds;
    return j;
}

void printListing(const TraceLog &log, const std::vector<OpenedGraph> &opened, double seconds, const ParsedArgs &args)
{
    size_t openedCount = 0;
    for (const OpenedGraph &graph : opened)
        openedCount += graph.nodes.has_value();
    std::cout << log.path << ": " << log.files.size() << (log.files.size() == 1 ? " log file" : " rank logs") << ", "
              << log.compiles.size() << " compiles, " << opened.size() << " graphs (" << openedCount << " opened)";
    std::cout << ", torch " << (log.torchVersion.empty() ? "version not recorded" : log.torchVersion);
    std::cout << "; indexed in " << std::fixed << std::setprecision(2) << seconds << " s\n";
    std::optional<int> lastRank = -2;
    size_t next = 0;
    for (const TraceCompile &compile : log.compiles) {
        if (compile.rank != lastRank && compile.rank) {
            std::cout << "rank " << *compile.rank << "\n";
        }
        lastRank = compile.rank;
        std::cout << "  [" << compile.id.str() << "]";
        if (!compile.frame.empty())
            std::cout << " " << compile.frame;
        if (const std::string note = compileNote(compile); !note.empty())
            std::cout << "  — " << note;
        std::cout << "\n";
        for (; next < opened.size() && opened[next].ref.compile == &compile; ++next) {
            const OpenedGraph &graph = opened[next];
            std::string kind = graph.ref.payload->kind;
            if (graph.ref.payload->occurrence)
                kind += "." + std::to_string(graph.ref.payload->occurrence);
            std::cout << "      line " << std::setw(7) << std::left << graph.ref.payload->line << std::right << " "
                      << std::setw(44) << std::left << kind << std::right;
            if (graph.nodes)
                std::cout << " " << *graph.nodes << " nodes";
            else if (!graph.error.empty() && !args.has("--no-open"))
                std::cout << " not opened: " << graph.error;
            std::cout << "\n";
        }
    }
    if (!opened.empty())
        std::cout << "Open a graph with any command as PATH#ADDRESS, e.g. " << opened.front().address << "\n";
    for (const std::string &warning : log.warnings)
        std::cerr << "warning: " << warning << "\n";
}

int runTrace(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass trace: expected one PATH (a TORCH_TRACE log or a directory of rank logs)\n";
        return kExitUsage;
    }
    const std::string &path = args.positionals[0];
    const auto start = std::chrono::steady_clock::now();
    auto log = cachedTraceIndex(path);
    if (!log) {
        std::cerr << "fusebox-pass trace: " << log.error().message << "\n";
        return kExitFailure;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if ((*log)->compiles.empty() && (*log)->unattached.empty() && !isTorchTracePath(path)) {
        std::cerr << "fusebox-pass trace: " << path << ": not a TORCH_TRACE log (no line is a glog prefix followed by "
                  << "a JSON record)\n";
        return kExitFailure;
    }
    if (args.has("--replay"))
        return runTraceReplay(**log, args);
    std::vector<OpenedGraph> opened;
    if (args.has("--no-open")) {
        for (const TraceLog::GraphRef &graph : (*log)->graphs())
            opened.push_back({graph, path + "#" + traceGraphAddress(**log, graph).str(), std::nullopt, {}});
    } else {
        opened = openEveryGraph(**log);
    }
    if (args.has("--json"))
        std::cout << jsonListing(**log, opened, seconds).dump(2) << "\n";
    else
        printListing(**log, opened, seconds, args);
    return kExitOk;
}

} // namespace

Command traceCommand()
{
    return {"trace",
            "trace PATH [--json] [--no-open] [--replay [--inductor-version X.Y] [--python CMD]]",
            "list a TORCH_TRACE log's ranks, compiles and graphs; replay its Optimus passes",
            "Reads a TORCH_TRACE log (TORCH_TRACE=DIR python job.py writes one\n"
            "dedicated_log_torch_trace_*.log per rank; PATH is one of them or the directory)\n"
            "and lists its ranks and compiles (compile id as tlparse writes it, frame,\n"
            "cache hits and misses, failures, recompile reasons) and, per compile, every\n"
            "graph it holds, each opened as `inspect` opens a file. Any command that takes\n"
            "a MODEL takes one of these graphs as PATH#[rank/]compile_id/kind[.N], e.g.\n"
            "run.log#0/0/before_pre_grad_graph. A line that does not parse is a warning\n"
            "with its line number; the rest of the log is read.\n\n"
            "--replay runs Fusebox's Inductor profile for the log's torch version on each\n"
            "compile's before_pre_grad_graph and compares it, pass by pass, with the\n"
            "graphs production Inductor logged (torch 2.14 logs one after each Optimus pass\n"
            "that changed the graph; torch 2.6 logs none, which the replay says).",
            {{"--json", "", "print the listing (or the replay) as JSON"},
             {"--no-open", "", "list without opening the graphs (no node counts): one pass over the log's bytes"},
             {"--replay", "", "replay each compile's Optimus passes and compare with the log"},
             {"--inductor-version", "X.Y", "with --replay: the Inductor profile when the log names no torch version"},
             pythonOption(),
             timeoutOption()},
            runTrace};
}

} // namespace fusebox::cli
