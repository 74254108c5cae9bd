#include "HorizontalSearch.h"

#include "MatchUtils.h"

#include "core/ir/Traversal.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_set>

namespace fusebox {
namespace {

/// pattern.key() for each node, computed once per search.
class KeyCache {
public:
    KeyCache(const Graph &graph, const HorizontalPattern &pattern)
        : m_graph(graph), m_pattern(pattern), m_state(graph.idBound(), 0), m_keys(graph.idBound())
    {
    }

    const std::optional<std::string> &key(NodeId id)
    {
        if (!m_state[id.value]) {
            m_state[id.value] = 1;
            const Node &n = *m_graph.node(id);
            if (n.isOp() && m_pattern.isRootOp(n.op)) {
                MatchTrace trace;
                m_keys[id.value] = m_pattern.key(m_graph, id, trace);
            }
        }
        return m_keys[id.value];
    }

private:
    const Graph &m_graph;
    const HorizontalPattern &m_pattern;
    std::vector<char> m_state;
    std::vector<std::optional<std::string>> m_keys;
};

/// The upward BFS from one root (Inductor's get_fusion_candidates). Buffers
/// are reused across roots: visited marks are stamped with the root's number.
class CandidateFinder {
public:
    CandidateFinder(const Graph &graph, KeyCache &keys, int64_t maxDepth)
        : m_graph(graph), m_keys(keys), m_maxDepth(maxDepth), m_stamp(graph.idBound(), 0)
    {
    }

    /// Candidates by key, in discovery order.
    std::vector<std::pair<std::string, std::vector<NodeId>>> find(NodeId root, const std::vector<char> &fused)
    {
        ++m_round;
        std::vector<std::pair<std::string, std::vector<NodeId>>> byKey;
        m_queue.clear();
        auto enqueue = [&](NodeId in, int64_t depth) {
            if (m_stamp[in.value] != m_round) {
                m_stamp[in.value] = m_round;
                m_queue.push_back({depth, in});
            }
        };
        m_graph.node(root)->forEachInput([&](NodeId in) { enqueue(in, 1); });
        for (size_t head = 0; head < m_queue.size(); ++head) {
            auto [depth, id] = m_queue[head];
            if (fused[id.value])
                continue;
            if (const auto &key = m_keys.key(id)) {
                auto it = std::find_if(byKey.begin(), byKey.end(), [&](const auto &e) { return e.first == *key; });
                if (it == byKey.end())
                    byKey.push_back({*key, {id}});
                else if (std::find(it->second.begin(), it->second.end(), id) == it->second.end())
                    it->second.push_back(id);
            } else if (depth < m_maxDepth) {
                m_graph.node(id)->forEachInput([&](NodeId in) { enqueue(in, depth + 1); });
            }
        }
        return byKey;
    }

private:
    const Graph &m_graph;
    KeyCache &m_keys;
    int64_t m_maxDepth;
    std::vector<uint32_t> m_stamp;
    uint32_t m_round = 0;
    std::vector<std::pair<int64_t, NodeId>> m_queue;
};

/// Topological positions, for pruning upward walks.
using Positions = std::vector<uint32_t>;

/// The candidates among `interesting` that `node` transitively reads. The
/// walk stops below the earliest interesting node: nothing topologically
/// before it can lead to one (Inductor walks every ancestor; same result).
std::unordered_set<NodeId> dependentNodes(const Graph &graph, NodeId node,
                                          const std::unordered_set<NodeId> &interesting,
                                          const Positions &position, uint32_t earliest)
{
    std::unordered_set<NodeId> deps;
    std::unordered_set<NodeId> visited{node};
    std::vector<NodeId> work{node};
    while (!work.empty()) {
        NodeId id = work.back();
        work.pop_back();
        graph.node(id)->forEachInput([&](NodeId in) {
            if (interesting.count(in))
                deps.insert(in);
            if (position[in.value] > earliest && visited.insert(in).second)
                work.push_back(in);
        });
    }
    return deps;
}

struct Subset {
    std::vector<NodeId> members;
    std::vector<NodeId> conflicts;
};

/// find_independent_subset_greedy, returning every subset it forms (the
/// caller keeps those of at least min_fuse_set_size).
std::vector<Subset> independentSubsets(const Graph &graph, std::vector<NodeId> nodes, size_t maxSize,
                                       const Positions &position)
{
    std::vector<Subset> subsets;
    std::unordered_map<NodeId, std::unordered_set<NodeId>> cache;
    while (!nodes.empty()) {
        std::unordered_set<NodeId> remaining(nodes.begin(), nodes.end());
        uint32_t earliest = UINT32_MAX;
        for (NodeId n : nodes)
            earliest = std::min(earliest, position[n.value]);
        Subset subset;
        std::unordered_set<NodeId> inSubset, subsetDeps;
        std::vector<NodeId> nextRound;
        for (NodeId node : nodes) {
            if (subset.members.size() >= maxSize || subsetDeps.count(node)) {
                if (subsetDeps.count(node))
                    subset.conflicts.push_back(node);
                nextRound.push_back(node);
                continue;
            }
            std::unordered_set<NodeId> deps;
            if (auto it = cache.find(node); it != cache.end()) {
                deps = std::move(it->second);
                cache.erase(it);
            } else {
                deps = dependentNodes(graph, node, remaining, position, earliest);
            }
            bool independent = true;
            for (NodeId d : deps)
                if (inSubset.count(d)) {
                    independent = false;
                    break;
                }
            if (independent) {
                subset.members.push_back(node);
                inSubset.insert(node);
                subsetDeps.insert(deps.begin(), deps.end());
            } else {
                subset.conflicts.push_back(node);
                nextRound.push_back(node);
                cache[node] = std::move(deps);
            }
        }
        // Cache entries touching the yielded subset may grow once it is fused.
        for (auto it = cache.begin(); it != cache.end();) {
            bool touches = false;
            for (NodeId d : it->second)
                if (inSubset.count(d)) {
                    touches = true;
                    break;
                }
            it = touches ? cache.erase(it) : std::next(it);
        }
        subsets.push_back(std::move(subset));
        nodes = std::move(nextRound);
    }
    return subsets;
}

/// Keeps the most telling outcome of a candidate seen by several roots'
/// searches: grouped beats split-by-dependencies beats too-few, and among
/// equals the search that saw more candidates.
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

} // namespace

HorizontalSearchResult searchHorizontal(const Graph &graph, const HorizontalPattern &pattern)
{
    return searchHorizontal(graph, pattern, topologicalOrder(graph));
}

HorizontalSearchResult searchHorizontal(const Graph &graph, const HorizontalPattern &pattern,
                                        const std::vector<NodeId> &order)
{
    HorizontalSearchResult result;
    if (!pattern.unavailableReason().empty())
        return result;
    const auto minSize = static_cast<size_t>(pattern.options().getInt("min_fuse_set_size", search_defaults::kMinFuseSetSize));
    const auto maxSize = static_cast<size_t>(pattern.options().getInt("max_fuse_set_size", search_defaults::kMaxFuseSetSize));
    const int64_t maxDepth = pattern.options().getInt("max_fuse_search_depth", search_defaults::kMaxFuseSearchDepth);

    // Rules whose root ops do not occur in the graph have nothing to find.
    bool anyRoot = false;
    for (NodeId id : order) {
        const Node &n = *graph.node(id);
        if (n.isOp() && pattern.isRootOp(n.op)) {
            anyRoot = true;
            break;
        }
    }
    if (!anyRoot)
        return result;

    KeyCache keys(graph, pattern);
    CandidateFinder finder(graph, keys, maxDepth);
    std::vector<char> fused(graph.idBound(), 0);
    Positions position(graph.idBound(), 0);
    for (uint32_t i = 0; i < order.size(); ++i)
        position[order[i].value] = i;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        NodeId root = *it;
        // Inductor skips getitem roots: their searches repeat their parent's.
        if (isOp(*graph.node(root), ops::kGetItem))
            continue;
        for (auto &[key, candidates] : finder.find(root, fused)) {
            if (candidates.size() < minSize) {
                for (NodeId c : candidates)
                    record(result.outcomes, c, {CandidateOutcome::Kind::GroupTooSmall, key, -1, candidates.size(), 0, {}});
                continue;
            }
            for (Subset &subset : independentSubsets(graph, candidates, maxSize, position)) {
                if (subset.members.size() < minSize) {
                    for (NodeId c : subset.members)
                        record(result.outcomes, c, {CandidateOutcome::Kind::SubsetTooSmall, key, -1,
                                                    candidates.size(), subset.members.size(), subset.conflicts});
                    continue;
                }
                const int index = static_cast<int>(result.groups.size());
                for (NodeId m : subset.members) {
                    fused[m.value] = 1;
                    result.outcomes.insert_or_assign(m, CandidateOutcome{CandidateOutcome::Kind::Grouped, key, index,
                                                                         candidates.size(), subset.members.size(), {}});
                }
                result.groups.push_back({key, std::move(subset.members), root});
            }
        }
    }
    return result;
}

} // namespace fusebox
