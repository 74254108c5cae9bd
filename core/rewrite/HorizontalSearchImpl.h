#pragma once
// The parts of the horizontal search that HorizontalSearch.cpp (the search
// of all groups at once) and HorizontalLiveSearch.cpp (the search that fuses
// as it goes) share: the key cache, the upward walk, the independence test
// and the root bound. Private to those files.

#include "HorizontalSearch.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fusebox {

/// pattern.key() for each node, computed once per search (or once per memo).
/// Per node only an index is kept (keys are few), so a search on a large graph
/// stays light.
class KeyCache {
public:
    KeyCache(const Graph &graph, const HorizontalPattern &pattern, HorizontalKeyMemo *memo)
        : m_graph(graph)
        , m_pattern(pattern)
        , m_memo(memo ? *memo : m_own)
    {
        m_memo.m_slot.resize(graph.idBound(), kUnknown);
    }

    /// Every root-op node has been keyed: any other node has no key, and
    /// key() answers without reading it.
    void setComplete() { m_complete = true; }

    /// Keys `changed` again (nodes a fusion made or edited, and the nodes
    /// whose users it changed): a key may read a node's args and users.
    void forget(const std::vector<NodeId> &changed);

    const std::optional<std::string> &key(NodeId id)
    {
        if (id.value >= m_memo.m_slot.size())
            m_memo.m_slot.resize(m_graph.idBound(), kUnknown);
        int32_t &slot = m_memo.m_slot[id.value];
        if (slot == kUnknown && m_complete)
            return m_none;
        if (slot == kUnknown) {
            slot = kNone;
            const Node &n = *m_graph.node(id);
            if (n.isOp() && m_pattern.isRootOp(n.op)) {
                MatchTrace trace;
                if (auto k = m_pattern.key(m_graph, id, trace)) {
                    slot = static_cast<int32_t>(m_memo.m_keys.size());
                    m_memo.m_keys.push_back(std::move(k));
                }
            }
        }
        return slot == kNone ? m_none : m_memo.m_keys[slot];
    }

private:
    static constexpr int32_t kUnknown = -1, kNone = -2;
    const Graph &m_graph;
    const HorizontalPattern &m_pattern;
    HorizontalKeyMemo m_own;
    HorizontalKeyMemo &m_memo;
    const std::optional<std::string> m_none;
    bool m_complete = false;
};

namespace horizontal {

/// The upward BFS from one root (Inductor's get_fusion_candidates). Buffers
/// are reused across roots: visited marks are stamped with the root's number.
class CandidateFinder {
public:
    CandidateFinder(const Graph &graph, KeyCache &keys, int64_t maxDepth)
        : m_graph(graph)
        , m_keys(keys)
        , m_maxDepth(maxDepth)
        , m_stamp(graph.idBound(), 0)
    {}

    /// Candidates by key, in discovery order.
    std::vector<std::pair<std::string, std::vector<NodeId>>> find(NodeId root, const std::vector<char> &fused)
    {
        ++m_round;
        std::vector<std::pair<std::string, std::vector<NodeId>>> byKey;
        m_queue.clear();
        if (m_stamp.size() < m_graph.idBound())
            m_stamp.resize(m_graph.idBound(), 0);
        auto enqueue = [&](NodeId in, int64_t depth) {
            if (m_stamp[in.value] != m_round) {
                m_stamp[in.value] = m_round;
                m_queue.push_back({depth, in});
            }
        };
        m_graph.forEachInput(root, [&](NodeId in) { enqueue(in, 1); });
        for (size_t head = 0; head < m_queue.size(); ++head) {
            // Named copies, not a structured binding: clang 14 cannot capture
            // bindings in a lambda (P1091 came with clang 16).
            const auto depth = m_queue[head].first;
            const NodeId id = m_queue[head].second;
            if (fused[id.value])
                continue;
            if (const auto &key = m_keys.key(id)) {
                auto it = std::find_if(byKey.begin(), byKey.end(), [&](const auto &e) { return e.first == *key; });
                if (it == byKey.end())
                    byKey.push_back({*key, {id}});
                else if (std::find(it->second.begin(), it->second.end(), id) == it->second.end())
                    it->second.push_back(id);
            } else if (depth < m_maxDepth) {
                m_graph.forEachInput(id, [&](NodeId in) { enqueue(in, depth + 1); });
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

/// Numbers that grow along every edge (a node's is above its inputs'):
/// topological positions, or the live search's levels. They prune upward
/// walks: a node numbered at or below a candidate cannot lead to it.
using Positions = std::vector<uint32_t>;

/// Per-node marks that are cleared in O(1) by moving to a new stamp.
class StampSet {
public:
    explicit StampSet(size_t size)
        : m_stamp(size, 0)
    {}
    void clear() { ++m_current; }
    bool contains(NodeId id) const { return id.value < m_stamp.size() && m_stamp[id.value] == m_current; }
    /// Marks id; true when it was not marked yet. Grows for nodes made after
    /// the set (the live search's fusions).
    bool insert(NodeId id)
    {
        if (id.value >= m_stamp.size())
            m_stamp.resize(id.value + 1, 0);
        if (m_stamp[id.value] == m_current)
            return false;
        m_stamp[id.value] = m_current;
        return true;
    }

private:
    std::vector<uint32_t> m_stamp;
    uint32_t m_current = 1;
};

/// The independence test's scratch space, sized once per search.
struct DependencyScratch {
    explicit DependencyScratch(size_t size)
        : remaining(size)
        , visited(size)
        , found(size)
        , inSubset(size)
        , subsetDeps(size)
    {}
    StampSet remaining, visited, found, inSubset, subsetDeps;
    std::vector<NodeId> work;
};

/// The candidates among `scratch.remaining` that `node` transitively reads.
/// The walk stops below the earliest interesting node: nothing topologically
/// before it can lead to one (Inductor walks every ancestor; same result).
std::vector<NodeId> dependentNodes(const Graph &graph, NodeId node, DependencyScratch &scratch,
                                   const Positions &position, uint32_t earliest);

struct Subset {
    std::vector<NodeId> members;
    std::vector<NodeId> conflicts;
};

/// find_independent_subset_greedy: calls onSubset with every subset it
/// forms, in order (the caller keeps those of at least min_fuse_set_size).
/// Like 2.6's generator, the next subset is formed after onSubset returns,
/// on the graph as it left it: a caller may fuse the subset first, and the
/// dependencies of the rest are then read through the fused nodes (with
/// `position` kept valid for them).
template<typename OnSubset>
void forEachIndependentSubset(const Graph &graph, std::vector<NodeId> nodes, size_t maxSize, const Positions &position,
                              DependencyScratch &scratch, OnSubset &&onSubset)
{
    std::unordered_map<NodeId, std::vector<NodeId>> cache;
    while (!nodes.empty()) {
        scratch.remaining.clear();
        uint32_t earliest = UINT32_MAX;
        for (NodeId n : nodes) {
            scratch.remaining.insert(n);
            earliest = std::min(earliest, position[n.value]);
        }
        Subset subset;
        scratch.inSubset.clear();
        scratch.subsetDeps.clear();
        std::vector<NodeId> nextRound;
        for (NodeId node : nodes) {
            const bool dependedOn = scratch.subsetDeps.contains(node);
            if (subset.members.size() >= maxSize || dependedOn) {
                if (dependedOn)
                    subset.conflicts.push_back(node);
                nextRound.push_back(node);
                continue;
            }
            std::vector<NodeId> deps;
            if (auto it = cache.find(node); it != cache.end()) {
                deps = std::move(it->second);
                cache.erase(it);
            } else {
                deps = dependentNodes(graph, node, scratch, position, earliest);
            }
            bool independent = true;
            for (NodeId d : deps)
                if (scratch.inSubset.contains(d)) {
                    independent = false;
                    break;
                }
            if (independent) {
                subset.members.push_back(node);
                scratch.inSubset.insert(node);
                for (NodeId d : deps)
                    scratch.subsetDeps.insert(d);
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
                if (scratch.inSubset.contains(d)) {
                    touches = true;
                    break;
                }
            it = touches ? cache.erase(it) : std::next(it);
        }
        onSubset(subset);
        nodes = std::move(nextRound);
    }
}

/// Marks the roots whose upward walk may find at least minSize keyed nodes.
///
/// A root's walk (CandidateFinder) reaches a keyed node at depth d only along
/// a path of d edges whose inner nodes are not keyed (keyed nodes are not
/// expanded). So the number of such paths of length 1..maxDepth ending at the
/// root bounds what it can find. Those counts flow downstream from the keyed
/// nodes over the users index, level by level, touching only the nodes within
/// maxDepth below a keyed node; counts saturate at minSize. Returns an empty
/// vector when no root qualifies.
std::vector<char> rootsThatCanSee(const Graph &graph, KeyCache &keys, const std::vector<NodeId> &keyed,
                                  int64_t maxDepth, size_t minSize);

/// Keeps the most telling outcome of a candidate seen by several roots'
/// searches: grouped beats split-by-dependencies beats too-few, and among
/// equals the search that saw more candidates.
void record(std::unordered_map<NodeId, CandidateOutcome> &outcomes, NodeId id, CandidateOutcome outcome);

/// The graph_search_options a search reads.
struct SearchLimits {
    size_t minSize = 0, maxSize = 0;
    int64_t maxDepth = 0;
};

/// The pattern's options, Inductor's defaults where unset.
SearchLimits searchLimits(const HorizontalPattern &pattern);

/// Keys every node with a root op (rules whose root ops do not occur have
/// nothing to find) and marks the cache complete; returns the keyed ones.
std::vector<NodeId> keyRootOps(const Graph &graph, const HorizontalPattern &pattern, KeyCache &keys);

} // namespace horizontal
} // namespace fusebox
