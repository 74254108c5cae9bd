#include "Explainer.h"

#include "MatchUtils.h"

#include <algorithm>
#include <map>

namespace fusebox {
namespace {

std::string joinNames(const Graph &graph, const std::vector<NodeId> &ids, size_t limit = 4)
{
    std::string text;
    for (size_t i = 0; i < ids.size() && i < limit; ++i)
        text += (i ? ", " : "") + nodeRef(graph, ids[i]);
    if (ids.size() > limit)
        text += ", ... (" + std::to_string(ids.size()) + " in all)";
    return text;
}

void explainGroupOutcome(const Graph &graph, const HorizontalPattern &pattern, NodeId node,
                         const HorizontalSearchResult &search, MatchTrace &trace)
{
    const int64_t minSize = pattern.options().getInt("min_fuse_set_size", search_defaults::kMinFuseSetSize);
    const int64_t depth = pattern.options().getInt("max_fuse_search_depth", search_defaults::kMaxFuseSearchDepth);
    auto it = search.outcomes.find(node);
    MatchTrace::Source candidates(trace, "group_batch_fusion.py:1294 get_fusion_candidates (breadth-first "
                                         "from each root, max_fuse_search_depth)");
    const bool found = it != search.outcomes.end();
    if (!trace.check(found, "found by a root's upward search", [&] {
            return found ? "a root's search reached it within max_fuse_search_depth " + std::to_string(depth)
                         : "no node within max_fuse_search_depth " + std::to_string(depth)
                               + " below it reached it, or it was fused already";
        }))
        return;
    const CandidateOutcome &o = it->second;
    // The whole candidate group (the same key), not only this node: the IDE
    // rings every member when the group is too small.
    std::vector<NodeId> sameKey{node};
    for (const auto &[other, outcome] : search.outcomes)
        if (other != node && outcome.key == o.key && outcome.kind == o.kind && outcome.candidates == o.candidates)
            sameKey.push_back(other);
    std::sort(sameKey.begin() + 1, sameKey.end());
    MatchTrace::Source minSizeSource(trace, "group_batch_fusion.py:1346 apply_group_batch_fusion "
                                            "(len(candidate_nodes) < min_fuse_set_size)");
    trace.check(
        o.candidates >= static_cast<size_t>(minSize), "candidate group reaches min_fuse_set_size",
        [&] {
            return "candidate group of " + std::to_string(o.candidates)
                   + (o.candidates >= static_cast<size_t>(minSize) ? " ≥ " : " < ") + "min_fuse_set_size "
                   + std::to_string(minSize);
        },
        sameKey);
    if (o.kind == CandidateOutcome::Kind::GroupTooSmall)
        return;
    MatchTrace::Source subsetSource(
        trace, "group_batch_fusion.py:1212 find_independent_subset_greedy (len(subset) >= min_fuse_set_size, :1283)");
    trace.check(
        o.kind == CandidateOutcome::Kind::Grouped, "independent subset reaches min_fuse_set_size",
        [&] {
            if (o.kind == CandidateOutcome::Kind::Grouped)
                return "in a group of " + std::to_string(o.subsetSize) + " independent nodes";
            return "dependencies left it in a subset of " + std::to_string(o.subsetSize) + " < "
                   + std::to_string(minSize) + "; dependent candidates: " + joinNames(graph, o.conflicts);
        },
        o.conflicts);
}

} // namespace

const Check *Explanation::failure() const
{
    for (const Check &c : checks)
        if (!c.passed)
            return &c;
    return nullptr;
}

bool checkCanStartAt(const Graph &graph, const Pattern &pattern, NodeId node, MatchTrace &trace)
{
    const Node *n = graph.node(node);
    const bool ok = trace.check(pattern.unavailableReason().empty(), "pattern can run in this build",
                                [&] { return pattern.unavailableReason(); });
    return ok
           && trace.check(n && n->isOp() && pattern.isRootOp(n->op), "node is a root op of the pattern",
                          [&] {
                              std::string roots;
                              for (const std::string &r : pattern.rootOps())
                                  roots += (roots.empty() ? "" : ", ") + r;
                              return nodeRef(graph, node) + " is "
                                     + (n ? (n->isOp() ? n->op : std::string(toString(n->kind()))) : "missing")
                                     + "; the pattern starts at " + roots;
                          },
                          {node});
}

bool traceRuleChecks(const Graph &graph, const Pattern &pattern, NodeId node, const HorizontalSearchResult *search,
                     MatchTrace &trace)
{
    if (pattern.family() == PatternFamily::Vertical) {
        auto m = static_cast<const VerticalPattern &>(pattern).match(graph, node, trace);
        return m.has_value() && !trace.failed();
    }
    const auto &h = static_cast<const HorizontalPattern &>(pattern);
    if (!h.key(graph, node, trace) || trace.failed())
        return false;
    HorizontalSearchResult local;
    if (!search) {
        local = searchHorizontal(graph, h);
        search = &local;
    }
    explainGroupOutcome(graph, h, node, *search, trace);
    return !trace.failed();
}

std::string failureSummary(const Check &failed)
{
    if (failed.undecided)
        return "undecided, the answer depends on a shape Fusebox does not know: " + failed.description + " ("
               + (failed.actual.empty() ? "unknown" : failed.actual)
               + "); give the inputs' shapes or infer them with PyTorch 2";
    return failed.description + ": " + (failed.actual.empty() ? "failed" : failed.actual);
}

std::vector<NodeId> rootNodes(const Graph &graph, const Pattern &pattern)
{
    std::vector<NodeId> nodes;
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id)) {
        const Node &n = *graph.node(id);
        if (n.isOp() && pattern.isRootOp(n.op))
            nodes.push_back(id);
    }
    return nodes;
}

Explanation explain(const Graph &graph, const Pattern &pattern, NodeId node)
{
    return explain(graph, pattern, node, nullptr);
}

Explanation explain(const Graph &graph, const Pattern &pattern, NodeId node, const HorizontalSearchResult *search)
{
    Explanation e;
    e.pattern = pattern.name();
    e.node = node;
    e.context = "Fusebox's greedy search";
    MatchTrace trace(MatchTrace::Mode::Explain);
    MatchTrace::Source source(trace, pattern.inductorSource());
    e.matched = checkCanStartAt(graph, pattern, node, trace) && traceRuleChecks(graph, pattern, node, search, trace);
    e.checks = trace.checks();
    if (e.matched) {
        e.summary = pattern.name() + " fires at " + nodeRef(graph, node);
    } else if (const Check *f = e.failure()) {
        e.summary = failureSummary(*f);
    }
    return e;
}

NearMissSummary nearMisses(const Graph &graph, const Pattern &pattern)
{
    HorizontalSearchResult search;
    if (pattern.family() == PatternFamily::Horizontal && pattern.unavailableReason().empty())
        search = searchHorizontal(graph, static_cast<const HorizontalPattern &>(pattern));
    std::vector<Explanation> explanations;
    for (NodeId id : rootNodes(graph, pattern))
        explanations.push_back(explain(graph, pattern, id, &search));
    return summarizeNearMisses(pattern.name(), std::move(explanations));
}

NearMissSummary summarizeNearMisses(const std::string &pattern, std::vector<Explanation> explanations)
{
    NearMissSummary summary;
    summary.pattern = pattern;
    std::map<std::string, size_t> groupIndex;
    for (Explanation &e : explanations) {
        ++summary.attempted;
        if (e.matched) {
            ++summary.matched;
            continue;
        }
        const Check *f = e.failure();
        const std::string check = f ? f->description : "no check failed";
        auto [it, inserted] = groupIndex.try_emplace(check, summary.groups.size());
        if (inserted)
            summary.groups.push_back({check, {}, 0});
        summary.groups[it->second].nodes.push_back(std::move(e));
    }
    auto progress = [](const Explanation &e) {
        return static_cast<int>(
            std::count_if(e.checks.begin(), e.checks.end(), [](const Check &c) { return c.passed; }));
    };
    for (NearMissGroup &g : summary.groups) {
        std::stable_sort(g.nodes.begin(), g.nodes.end(),
                         [&](const Explanation &a, const Explanation &b) { return progress(a) > progress(b); });
        g.bestProgress = g.nodes.empty() ? 0 : progress(g.nodes.front());
    }
    std::stable_sort(summary.groups.begin(), summary.groups.end(), [](const NearMissGroup &a, const NearMissGroup &b) {
        if (a.bestProgress != b.bestProgress)
            return a.bestProgress > b.bestProgress;
        return a.nodes.size() > b.nodes.size();
    });
    return summary;
}

} // namespace fusebox
