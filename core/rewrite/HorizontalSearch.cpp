#include "HorizontalSearchImpl.h"

#include "MatchUtils.h"

#include "core/ir/Traversal.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

namespace fusebox {

void HorizontalKeyMemo::invalidate(const std::vector<char> &changed)
{
    const size_t n = std::min(changed.size(), m_slot.size());
    for (size_t i = 0; i < n; ++i)
        if (changed[i])
            m_slot[i] = -1;
}

namespace horizontal {

std::vector<NodeId> dependentNodes(const Graph &graph, NodeId node, DependencyScratch &scratch,
                                   const Positions &position, uint32_t earliest)
{
    std::vector<NodeId> deps;
    scratch.visited.clear();
    scratch.found.clear();
    scratch.visited.insert(node);
    scratch.work.assign(1, node);
    while (!scratch.work.empty()) {
        NodeId id = scratch.work.back();
        scratch.work.pop_back();
        graph.forEachInput(id, [&](NodeId in) {
            if (scratch.remaining.contains(in) && scratch.found.insert(in))
                deps.push_back(in);
            if (position[in.value] > earliest && scratch.visited.insert(in))
                scratch.work.push_back(in);
        });
    }
    return deps;
}

std::vector<char> rootsThatCanSee(const Graph &graph, KeyCache &keys, const std::vector<NodeId> &keyed,
                                  int64_t maxDepth, size_t minSize)
{
    const uint32_t cap = static_cast<uint32_t>(std::min<size_t>(minSize, UINT32_MAX));
    auto saturatingAdd = [cap](uint32_t a, uint32_t b) { return std::min<uint64_t>(uint64_t(a) + b, cap); };
    std::vector<uint32_t> total(graph.idBound(), 0);
    std::vector<uint32_t> level(graph.idBound(), 0), nextLevel(graph.idBound(), 0);
    std::vector<NodeId> frontier, nextFrontier;
    // Level 1: each use of a keyed node.
    for (NodeId k : keyed)
        graph.forEachUse(k, [&](NodeId user) {
            if (level[user.value] == 0)
                frontier.push_back(user);
            level[user.value] = saturatingAdd(level[user.value], 1);
        });
    bool any = false;
    for (int64_t depth = 1;; ++depth) {
        for (NodeId id : frontier) {
            total[id.value] = saturatingAdd(total[id.value], level[id.value]);
            any = any || total[id.value] >= cap;
        }
        if (depth >= maxDepth)
            break;
        // Paths extend only through nodes the walk would expand: unkeyed ones.
        nextFrontier.clear();
        for (NodeId id : frontier) {
            const uint32_t paths = level[id.value];
            if (!keys.key(id))
                graph.forEachUse(id, [&](NodeId user) {
                    if (nextLevel[user.value] == 0)
                        nextFrontier.push_back(user);
                    nextLevel[user.value] = saturatingAdd(nextLevel[user.value], paths);
                });
        }
        for (NodeId id : frontier)
            level[id.value] = 0;
        std::swap(level, nextLevel);
        std::swap(frontier, nextFrontier);
        if (frontier.empty())
            break;
    }
    if (!any)
        return {};
    std::vector<char> searchable(graph.idBound(), 0);
    for (uint32_t i = 0; i < total.size(); ++i)
        searchable[i] = total[i] >= cap;
    return searchable;
}

void record(std::unordered_map<NodeId, CandidateOutcome> &outcomes, NodeId id, CandidateOutcome outcome)
{
    auto rank = [](const CandidateOutcome &o) {
        switch (o.kind) {
        case CandidateOutcome::Kind::Grouped: return 2;
        case CandidateOutcome::Kind::SubsetTooSmall: return 1;
        case CandidateOutcome::Kind::GroupTooSmall: return 0;
        }
        return 0;
    };
    auto [it, inserted] = outcomes.try_emplace(id, outcome);
    if (inserted)
        return;
    CandidateOutcome &old = it->second;
    if (rank(outcome) > rank(old) || (rank(outcome) == rank(old) && outcome.candidates > old.candidates))
        old = std::move(outcome);
}

SearchLimits searchLimits(const HorizontalPattern &pattern)
{
    const PatternOptions &o = pattern.options();
    return {static_cast<size_t>(o.getInt("min_fuse_set_size", search_defaults::kMinFuseSetSize)),
            static_cast<size_t>(o.getInt("max_fuse_set_size", search_defaults::kMaxFuseSetSize)),
            o.getInt("max_fuse_search_depth", search_defaults::kMaxFuseSearchDepth)};
}

std::vector<NodeId> keyRootOps(const Graph &graph, const HorizontalPattern &pattern, KeyCache &keys)
{
    std::vector<NodeId> keyed;
    for (const std::string &op : pattern.rootOps())
        for (NodeId id : graph.nodesWithOp(op))
            if (keys.key(id))
                keyed.push_back(id);
    keys.setComplete();
    return keyed;
}

} // namespace horizontal

using namespace horizontal;

namespace {

std::vector<Subset> independentSubsets(const Graph &graph, std::vector<NodeId> nodes, size_t maxSize,
                                       const Positions &position, DependencyScratch &scratch)
{
    std::vector<Subset> subsets;
    forEachIndependentSubset(graph, std::move(nodes), maxSize, position, scratch,
                             [&](Subset &subset) { subsets.push_back(std::move(subset)); });
    return subsets;
}

} // namespace

HorizontalSearchResult searchHorizontal(const Graph &graph, const HorizontalPattern &pattern)
{
    return searchHorizontal(graph, pattern, topologicalOrder(graph));
}

HorizontalSearchResult searchHorizontal(const Graph &graph, const HorizontalPattern &pattern,
                                        const std::vector<NodeId> &order, HorizontalSearchMode mode,
                                        const std::vector<char> *rootMask, HorizontalKeyMemo *memo)
{
    HorizontalSearchResult result;
    if (!pattern.unavailableReason().empty())
        return result;
    const SearchLimits limits = searchLimits(pattern);
    const size_t minSize = limits.minSize, maxSize = limits.maxSize;
    const int64_t maxDepth = limits.maxDepth;
    const bool withOutcomes = mode == HorizontalSearchMode::WithOutcomes;
    KeyCache keys(graph, pattern, memo);
    const std::vector<NodeId> keyed = keyRootOps(graph, pattern, keys);
    if (keyed.empty() || (!withOutcomes && keyed.size() < minSize))
        return result;

    std::vector<char> searchable;
    if (!withOutcomes) {
        searchable = rootsThatCanSee(graph, keys, keyed, maxDepth, minSize);
        if (searchable.empty())
            return result;
    }

    CandidateFinder finder(graph, keys, maxDepth);
    std::vector<char> fused(graph.idBound(), 0);
    std::optional<DependencyScratch> scratch; // made when the first key has enough candidates
    Positions position(graph.idBound(), 0);
    for (uint32_t i = 0; i < order.size(); ++i)
        position[order[i].value] = i;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        NodeId root = *it;
        if ((!withOutcomes && !searchable[root.value]) || (rootMask && !(*rootMask)[root.value]))
            continue;
        // Inductor skips getitem roots: their searches repeat their parent's.
        if (isOp(*graph.node(root), ops::kGetItem))
            continue;
        for (auto &[key, candidates] : finder.find(root, fused)) {
            if (candidates.size() < minSize) {
                if (withOutcomes)
                    for (NodeId c : candidates)
                        record(result.outcomes, c,
                               {CandidateOutcome::Kind::GroupTooSmall, key, -1, candidates.size(), 0, {}});
                continue;
            }
            if (!scratch)
                scratch.emplace(graph.idBound());
            for (Subset &subset : independentSubsets(graph, candidates, maxSize, position, *scratch)) {
                if (subset.members.size() < minSize) {
                    if (withOutcomes)
                        for (NodeId c : subset.members)
                            record(result.outcomes, c,
                                   {CandidateOutcome::Kind::SubsetTooSmall, key, -1, candidates.size(),
                                    subset.members.size(), subset.conflicts});
                    continue;
                }
                const int index = static_cast<int>(result.groups.size());
                for (NodeId m : subset.members) {
                    fused[m.value] = 1;
                    if (withOutcomes)
                        result.outcomes.insert_or_assign(m, CandidateOutcome{CandidateOutcome::Kind::Grouped,
                                                                             key,
                                                                             index,
                                                                             candidates.size(),
                                                                             subset.members.size(),
                                                                             {}});
                }
                result.groups.push_back({key, std::move(subset.members), root});
            }
        }
    }
    return result;
}

} // namespace fusebox
