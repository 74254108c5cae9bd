// fuseHorizontalLive: the horizontal search as Inductor runs it, fusing
// each group the moment it is found (HorizontalSearch.cpp finds all groups
// first).
#include "HorizontalSearchImpl.h"

#include "MatchUtils.h"

#include "core/ir/Traversal.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace fusebox {

using namespace horizontal;

namespace {

/// Levels that grow along every edge, kept true while a live search fuses:
/// a node's level is above each of its inputs'. Levels only grow, so a
/// stale (higher) level still orders a node above its inputs.
class LiveLevels {
public:
    LiveLevels(const Graph &graph, const std::vector<NodeId> &order)
        : m_graph(graph)
        , m_level(graph.idBound(), 0)
    {
        for (NodeId id : order)
            m_level[id.value] = above(id);
    }

    const Positions &positions() const { return m_level; }

    /// After a fusion: `changed` lists the nodes it made or rewired (and
    /// nodes whose users changed); their levels, and their readers', rise
    /// where the new inputs need it.
    void update(const std::vector<NodeId> &changed)
    {
        if (m_level.size() < m_graph.idBound())
            m_level.resize(m_graph.idBound(), 0);
        std::vector<NodeId> work;
        for (NodeId id : changed)
            if (m_graph.contains(id))
                work.push_back(id);
        while (!work.empty()) {
            NodeId id = work.back();
            work.pop_back();
            const uint32_t level = std::max(m_level[id.value], above(id));
            if (level == m_level[id.value] && level != 0)
                continue;
            m_level[id.value] = level;
            m_graph.forEachUse(id, [&](NodeId user) {
                if (m_level[user.value] <= level)
                    work.push_back(user);
            });
        }
    }

private:
    uint32_t above(NodeId id) const
    {
        uint32_t level = 0;
        m_graph.forEachInput(id, [&](NodeId in) { level = std::max(level, m_level[in.value] + 1); });
        return level;
    }

    const Graph &m_graph;
    Positions m_level;
};

/// Marks every node within `depth` edges downstream of `from` (included).
/// Each node is walked once per call, at its shortest distance, which is
/// where it has the most depth left (a diamond-shaped graph would otherwise
/// push a node once per path).
class DownstreamMarker {
public:
    void mark(const Graph &graph, const std::vector<NodeId> &from, int64_t depth, std::vector<char> &mask)
    {
        if (mask.size() < graph.idBound())
            mask.resize(graph.idBound(), 0);
        if (m_seen.size() < graph.idBound())
            m_seen.resize(graph.idBound(), 0);
        ++m_call;
        m_frontier.clear();
        for (NodeId id : from)
            if (graph.contains(id) && m_seen[id.value] != m_call) {
                m_seen[id.value] = m_call;
                mask[id.value] = 1;
                m_frontier.push_back(id);
            }
        for (int64_t d = 0; d < depth && !m_frontier.empty(); ++d) {
            m_next.clear();
            for (NodeId id : m_frontier)
                graph.forEachUse(id, [&](NodeId user) {
                    if (m_seen[user.value] == m_call)
                        return;
                    m_seen[user.value] = m_call;
                    mask[user.value] = 1;
                    m_next.push_back(user);
                });
            std::swap(m_frontier, m_next);
        }
    }

private:
    std::vector<uint32_t> m_seen; // == m_call: walked in this call
    uint32_t m_call = 0;
    std::vector<NodeId> m_frontier, m_next;
};

} // namespace

void KeyCache::forget(const std::vector<NodeId> &changed)
{
    if (m_memo.m_slot.size() < m_graph.idBound())
        m_memo.m_slot.resize(m_graph.idBound(), kUnknown);
    for (NodeId id : changed) {
        if (!m_graph.contains(id))
            continue;
        m_memo.m_slot[id.value] = kUnknown;
        // Root-op nodes are keyed now, so that "complete" stays true.
        m_complete = false;
        key(id);
        m_complete = true;
    }
}

namespace {

/// One live pass of a horizontal pattern (fuseHorizontalLive): the state the
/// walk over the roots keeps, and one method per step of it.
class LivePass {
public:
    LivePass(const Graph &graph, const HorizontalPattern &pattern, const LiveFusion &fuse,
             const std::function<bool()> &stopRequested, HorizontalSearchResult *outcomes)
        : m_graph(graph)
        , m_fuse(fuse)
        , m_stopRequested(stopRequested)
        , m_outcomes(outcomes)
        , m_limits(searchLimits(pattern))
        , m_keys(graph, pattern, nullptr)
    {}

    /// Keys the root ops and walks the roots; the number of groups fused.
    size_t run(const HorizontalPattern &pattern)
    {
        const std::vector<NodeId> keyed = keyRootOps(m_graph, pattern, m_keys);
        if (keyed.empty() || (!m_outcomes && keyed.size() < m_limits.minSize))
            return 0;
        // Roots whose walk may see enough keyed nodes on the graph as the pass
        // starts; a fusion adds the roots within max_fuse_search_depth below
        // what it changed, the only ones whose walks it can change.
        m_searchable = m_outcomes ? std::vector<char>(m_graph.idBound(), 1)
                                  : rootsThatCanSee(m_graph, m_keys, keyed, m_limits.maxDepth, m_limits.minSize);
        if (m_searchable.empty())
            return 0;
        m_levels.emplace(m_graph, topologicalOrder(m_graph));
        m_finder.emplace(m_graph, m_keys, m_limits.maxDepth);
        m_fused.assign(m_graph.idBound(), 0);
        // reversed(graph.nodes), live: the next root is the node before this
        // one, as the fusions at this root left the program order.
        const std::vector<NodeId> program = m_graph.nodeIds();
        for (NodeId root = program.empty() ? NodeId() : program.back(); root.isValid() && !m_stopped;) {
            const NodeId before = m_graph.prev(root);
            if (root.value < m_searchable.size() && m_searchable[root.value]
                && !isOp(*m_graph.node(root), ops::kGetItem))
                searchAt(root);
            root = m_graph.contains(root) ? m_graph.prev(root) : m_graph.contains(before) ? before : NodeId();
        }
        return m_fusedGroups;
    }

private:
    /// The candidates of each key the walk up from `root` finds, in subsets.
    void searchAt(NodeId root)
    {
        for (auto &entry : m_finder->find(root, m_fused)) {
            const std::string &key = entry.first; // captured below: no structured binding (clang 14)
            std::vector<NodeId> &candidates = entry.second;
            if (m_stopped)
                break;
            // A fusion at this root may have erased a later key's candidate.
            std::erase_if(candidates, [&](NodeId c) { return !m_graph.contains(c); });
            if (candidates.size() < m_limits.minSize) {
                recordAll(candidates, {CandidateOutcome::Kind::GroupTooSmall, key, -1, candidates.size(), 0, {}});
                continue;
            }
            if (!m_scratch)
                m_scratch.emplace(m_graph.idBound());
            const size_t found = candidates.size();
            forEachIndependentSubset(m_graph, candidates, m_limits.maxSize, m_levels->positions(), *m_scratch,
                                     [&](Subset &subset) { fuseSubset(key, subset, found, root); });
        }
    }

    /// One independent subset: too small (recorded), or fused at once.
    void fuseSubset(const std::string &key, const Subset &subset, size_t found, NodeId root)
    {
        if (m_stopped)
            return;
        if (subset.members.size() < m_limits.minSize) {
            recordAll(subset.members, {CandidateOutcome::Kind::SubsetTooSmall, key, -1, found, subset.members.size(),
                                       subset.conflicts});
            return;
        }
        if (m_stopRequested && m_stopRequested()) {
            m_stopped = true;
            return;
        }
        // Members are old nodes or nodes of earlier fusions; `m_fused` grows
        // after each fusion.
        for (NodeId m : subset.members)
            m_fused[m.value] = 1;
        m_changed.clear();
        const FusionGroup group{key, subset.members, root};
        if (m_outcomes) {
            const int index = static_cast<int>(m_outcomes->groups.size());
            for (NodeId m : subset.members)
                m_outcomes->outcomes.insert_or_assign(m, CandidateOutcome{CandidateOutcome::Kind::Grouped,
                                                                          key,
                                                                          index,
                                                                          found,
                                                                          subset.members.size(),
                                                                          {}});
            m_outcomes->groups.push_back(group);
        }
        if (!m_fuse(group, m_changed))
            return;
        ++m_fusedGroups;
        if (m_fused.size() < m_graph.idBound())
            m_fused.resize(m_graph.idBound(), 0);
        m_levels->update(m_changed);
        m_keys.forget(m_changed);
        m_downstream.mark(m_graph, m_changed, m_limits.maxDepth, m_searchable);
    }

    void recordAll(const std::vector<NodeId> &nodes, const CandidateOutcome &outcome)
    {
        if (m_outcomes)
            for (NodeId c : nodes)
                record(m_outcomes->outcomes, c, outcome);
    }

    const Graph &m_graph;
    const LiveFusion &m_fuse;
    const std::function<bool()> &m_stopRequested;
    HorizontalSearchResult *m_outcomes;
    const SearchLimits m_limits;
    KeyCache m_keys;
    /// Made once the pass has roots to search (it allocates per node).
    std::optional<CandidateFinder> m_finder;
    std::vector<char> m_searchable;
    std::optional<LiveLevels> m_levels;
    std::vector<char> m_fused;
    std::optional<DependencyScratch> m_scratch;
    std::vector<NodeId> m_changed;
    DownstreamMarker m_downstream;
    bool m_stopped = false;
    size_t m_fusedGroups = 0;
};

} // namespace

size_t fuseHorizontalLive(const Graph &graph, const HorizontalPattern &pattern, const LiveFusion &fuse,
                          const std::function<bool()> &stopRequested, HorizontalSearchResult *outcomes)
{
    if (!pattern.unavailableReason().empty())
        return 0;
    return LivePass(graph, pattern, fuse, stopRequested, outcomes).run(pattern);
}

} // namespace fusebox
