// What TorchTrace.h's index holds, apart from reading it (TorchTrace.cpp):
// compile ids as tlparse writes them, a compile's graphs and Optimus steps,
// which artifacts are graphs, and graph addresses ("0/1/before_pre_grad_graph").
#include "TorchTrace.h"

#include "TorchTraceLines.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace fusebox {

std::string TraceCompileId::str() const
{
    std::string text;
    if (compiledAutogradId) {
        text = "!" + std::to_string(*compiledAutogradId);
        if (frameId)
            text += "/" + std::to_string(*frameId) + "/" + std::to_string(frameCompileId.value_or(0));
    } else if (frameId) {
        text = std::to_string(*frameId) + "/" + std::to_string(frameCompileId.value_or(0));
    } else {
        return "-";
    }
    if (attempt != 0)
        text += "_" + std::to_string(attempt);
    if (generation > 1)
        text += "@" + std::to_string(generation);
    return text;
}

std::optional<TraceCompileId> TraceCompileId::parse(std::string_view text)
{
    TraceCompileId id;
    if (auto at = text.rfind('@'); at != std::string_view::npos) {
        auto generation = parseTraceInt(text.substr(at + 1));
        if (!generation || *generation < 2)
            return std::nullopt;
        id.generation = *generation;
        text = text.substr(0, at);
    }
    if (auto underscore = text.rfind('_'); underscore != std::string_view::npos) {
        auto attempt = parseTraceInt(text.substr(underscore + 1));
        if (!attempt)
            return std::nullopt;
        id.attempt = *attempt;
        text = text.substr(0, underscore);
    }
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        auto slash = text.find('/', start);
        parts.push_back(text.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
        if (slash == std::string_view::npos)
            break;
        start = slash + 1;
    }
    if (!parts.empty() && parts[0].starts_with('!')) {
        id.compiledAutogradId = parseTraceInt(parts[0].substr(1));
        if (!id.compiledAutogradId)
            return std::nullopt;
        parts.erase(parts.begin());
        if (parts.empty())
            return id;
    }
    if (parts.size() != 2)
        return std::nullopt;
    id.frameId = parseTraceInt(parts[0]);
    id.frameCompileId = parseTraceInt(parts[1]);
    if (!id.frameId || !id.frameCompileId)
        return std::nullopt;
    return id;
}

bool TraceCompile::fxGraphCacheHit() const
{
    return std::find(cacheEvents.begin(), cacheEvents.end(), "fx_graph_cache_hit") != cacheEvents.end();
}

bool TraceCompile::ranNoPreGradPasses() const
{
    return fxGraphCacheHit() && logsPreGradStages
           && std::none_of(payloads.begin(), payloads.end(), [](const TracePayload &p) {
                  return p.kind == "before_pre_grad_graph" || p.kind == "after_pre_grad_graph";
              });
}

std::vector<const TracePayload *> TraceCompile::graphs() const
{
    std::vector<const TracePayload *> result;
    for (const TracePayload &payload : payloads)
        if (payload.isGraph)
            result.push_back(&payload);
    return result;
}

std::vector<const TracePayload *> optimusStepsOf(const TraceCompile &compile)
{
    std::vector<const TracePayload *> steps;
    enum { Before, PreGrad, BetweenStages, PostGrad } at = Before;
    const TracePayload *postGradStart = nullptr;
    std::vector<const TracePayload *> postGrad;
    for (const TracePayload &payload : compile.payloads) {
        if (!payload.isGraph)
            continue;
        const std::string &kind = payload.kind;
        if (at == Before && kind == "before_pre_grad_graph") {
            at = PreGrad;
            steps.push_back(&payload);
        } else if (at == PreGrad && kind == "after_pre_grad_graph") {
            at = BetweenStages;
            steps.push_back(&payload);
        } else if (at == PreGrad && (kind.starts_with("optimus_") || kind.ends_with("_pre_grad"))) {
            steps.push_back(&payload);
        } else if (at == BetweenStages && kind == "before_post_grad_graph") {
            at = PostGrad;
            postGradStart = &payload;
        } else if (at == PostGrad && (kind.starts_with("optimus_") || kind.ends_with("_post_grad"))) {
            postGrad.push_back(&payload);
        }
    }
    if (at == Before)
        return {};
    if (postGradStart && !postGrad.empty()) {
        steps.push_back(postGradStart);
        steps.insert(steps.end(), postGrad.begin(), postGrad.end());
    }
    return steps;
}

bool isOptimusStart(const TracePayload &payload)
{
    return payload.kind == "before_pre_grad_graph" || payload.kind == "before_post_grad_graph";
}

std::string TraceCompile::label() const
{
    return (rank ? std::to_string(*rank) + "/" : std::string()) + id.str();
}

std::vector<TraceLog::GraphRef> TraceLog::graphs() const
{
    std::vector<GraphRef> result;
    for (const TraceCompile &compile : compiles)
        for (const TracePayload &payload : compile.payloads)
            if (payload.isGraph)
                result.push_back({&compile, &payload});
    return result;
}

bool isTraceGraphKind(std::string_view kind)
{
    static constexpr std::string_view envelopeGraphs[] = {
        "dynamo_output_graph",      "aot_forward_graph",       "aot_backward_graph",
        "aot_inference_graph",      "aot_joint_graph",         "inductor_pre_grad_graph",
        "inductor_post_grad_graph", "compiled_autograd_graph", "optimize_ddp_split_child",
    };
    if (std::find(std::begin(envelopeGraphs), std::end(envelopeGraphs), kind) != std::end(envelopeGraphs))
        return true;
    // Inductor names its graph artifacts with Python names; any other name
    // (an edited or damaged log's) is listed as a payload, not addressed as a
    // graph: its address could not be read back (torch_trace_fuzz found
    // "before_pre_grad:00:00.000000 4242 torch/_loggin_graph").
    const bool plainName = !kind.empty() && std::all_of(kind.begin(), kind.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!plainName)
        return false;
    // Artifacts: before_/after_{pre_grad,post_grad,joint}_graph, the older
    // before_/after_recompile_pre_grad, optimus_<FusionClass> and a pattern
    // pass's <pass>_pre_grad / <pass>_post_grad.
    if ((kind.starts_with("before_") || kind.starts_with("after_")) && kind.ends_with("_graph"))
        return kind.find("grad") != std::string_view::npos || kind.find("joint") != std::string_view::npos;
    return kind.starts_with("optimus_") || kind.ends_with("_pre_grad") || kind.ends_with("_post_grad");
}

std::string TraceGraphAddress::str() const
{
    std::string text = (rank ? std::to_string(*rank) + "/" : std::string()) + compileId.str() + "/" + kind;
    if (occurrence > 0)
        text += "." + std::to_string(occurrence);
    return text;
}

std::optional<TraceGraphAddress> TraceGraphAddress::parse(std::string_view text)
{
    auto slash = text.rfind('/');
    if (slash == std::string_view::npos || slash + 1 >= text.size())
        return std::nullopt;
    TraceGraphAddress address;
    std::string_view kind = text.substr(slash + 1);
    // Artifact names hold dots ("torch._functorch.config"): only an all-digit
    // suffix is an occurrence.
    if (auto dot = kind.rfind('.'); dot != std::string_view::npos) {
        if (auto occurrence = parseTraceInt(kind.substr(dot + 1))) {
            address.occurrence = *occurrence;
            kind = kind.substr(0, dot);
        }
    }
    address.kind = std::string(kind);
    std::string_view id = text.substr(0, slash);
    // A rank is a leading number before a compile id of its own: "1/0/0",
    // "1/!2/0/0".
    if (auto first = id.find('/'); first != std::string_view::npos) {
        std::string_view rest = id.substr(first + 1);
        const bool restIsId = rest.starts_with('!') || std::count(rest.begin(), rest.end(), '/') == 1;
        if (restIsId && !id.starts_with('!')) {
            address.rank = parseTraceInt(id.substr(0, first));
            if (!address.rank)
                return std::nullopt;
            id = rest;
        }
    }
    auto compileId = TraceCompileId::parse(id);
    if (!compileId)
        return std::nullopt;
    address.compileId = *compileId;
    return address;
}

std::optional<std::pair<std::string, std::string>> splitTraceGraphPath(const std::string &text)
{
    auto hash = text.rfind('#');
    if (hash == std::string::npos || hash == 0)
        return std::nullopt;
    std::string path = text.substr(0, hash);
    std::error_code ec;
    if (fs::exists(text, ec) || !fs::exists(path, ec) || !isTorchTracePath(path))
        return std::nullopt;
    return std::make_pair(path, text.substr(hash + 1));
}

Expected<TraceLog::GraphRef> findTraceGraph(const TraceLog &log, const TraceGraphAddress &address)
{
    // The compiles the address names: those of its rank; without a rank, the
    // unranked ones (a log can mix both), else those of the one rank that
    // has the id (a user may leave out a single-rank log's rank), and with
    // several ranks the address must name one.
    std::vector<const TraceCompile *> named;
    for (const TraceCompile &compile : log.compiles)
        if (compile.id == address.compileId && (!address.rank || compile.rank == address.rank))
            named.push_back(&compile);
    if (!address.rank) {
        std::set<int> ranks;
        for (const TraceCompile *c : named)
            ranks.insert(c->rank.value_or(-1));
        if (ranks.count(-1))
            std::erase_if(named, [](const TraceCompile *c) { return c->rank.has_value(); });
        else if (ranks.size() > 1)
            return Error{log.path + "#" + address.str() + ": compile " + address.compileId.str() + " ran on "
                         + std::to_string(ranks.size()) + " ranks (" + std::to_string(*ranks.begin()) + ", "
                         + std::to_string(*std::next(ranks.begin())) + (ranks.size() > 2 ? ", …" : "")
                         + "): name one, as RANK/" + address.compileId.str() + "/" + address.kind};
    }
    std::vector<std::string> kindsThere;
    const bool compileFound = !named.empty();
    for (const TraceCompile *c : named) {
        const TraceCompile &compile = *c;
        for (const TracePayload &payload : compile.payloads) {
            if (!payload.isGraph)
                continue;
            if (payload.kind == address.kind && payload.occurrence == address.occurrence)
                return TraceLog::GraphRef{&compile, &payload};
            kindsThere.push_back(payload.kind + (payload.occurrence ? "." + std::to_string(payload.occurrence) : ""));
        }
    }
    if (!compileFound)
        return Error{log.path + "#" + address.str() + ": the log has no compile " + address.compileId.str()
                     + (address.rank ? " on rank " + std::to_string(*address.rank) : std::string())
                     + " (fusebox-pass trace " + log.path + " lists them)"};
    std::string list;
    for (const std::string &kind : kindsThere)
        list += (list.empty() ? "" : ", ") + kind;
    return Error{log.path + "#" + address.str() + ": compile " + address.compileId.str() + " has no graph "
                 + address.kind + (address.occurrence ? "." + std::to_string(address.occurrence) : "")
                 + (list.empty() ? std::string(" (it has no graph at all)") : "; it has " + list)};
}

TraceGraphAddress traceGraphAddress(const TraceLog &log, const TraceLog::GraphRef &graph)
{
    TraceGraphAddress address;
    const bool ranked = std::any_of(log.compiles.begin(), log.compiles.end(),
                                    [](const TraceCompile &c) { return c.rank.has_value(); });
    if (ranked)
        address.rank = graph.compile->rank;
    address.compileId = graph.compile->id;
    address.kind = graph.payload->kind;
    address.occurrence = graph.payload->occurrence;
    return address;
}

std::string traceGraphPath(const TraceLog &log, const TraceLog::GraphRef &graph)
{
    return log.path + "#" + traceGraphAddress(log, graph).str();
}

} // namespace fusebox
