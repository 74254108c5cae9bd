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

size_t fuseHorizontalLive(const Graph &graph, const HorizontalPattern &pattern, const LiveFusion &fuse,
                          const std::function<bool()> &stopRequested, HorizontalSearchResult *outcomes)
{
    size_t fusedGroups = 0;
    if (!pattern.unavailableReason().empty())
        return fusedGroups;
    const SearchLimits limits = searchLimits(pattern);
    const size_t minSize = limits.minSize, maxSize = limits.maxSize;
    const int64_t maxDepth = limits.maxDepth;
    KeyCache keys(graph, pattern, nullptr);
    const std::vector<NodeId> keyed = keyRootOps(graph, pattern, keys);
    if (keyed.empty() || (!outcomes && keyed.size() < minSize))
        return fusedGroups;
    // Roots whose walk may see enough keyed nodes on the graph as the pass
    // starts; a fusion adds the roots within max_fuse_search_depth below
    // what it changed, the only ones whose walks it can change.
    std::vector<char> searchable = outcomes ? std::vector<char>(graph.idBound(), 1)
                                            : rootsThatCanSee(graph, keys, keyed, maxDepth, minSize);
    if (searchable.empty())
        return fusedGroups;

    LiveLevels levels(graph, topologicalOrder(graph));
    CandidateFinder finder(graph, keys, maxDepth);
    std::vector<char> fused(graph.idBound(), 0);
    std::optional<DependencyScratch> scratch;
    std::vector<NodeId> changed;
    DownstreamMarker downstream;
    bool stopped = false;

    // reversed(graph.nodes), live: the next root is the node before this
    // one, as the fusions at this root left the program order.
    const std::vector<NodeId> program = graph.nodeIds();
    for (NodeId root = program.empty() ? NodeId() : program.back(); root.isValid() && !stopped;) {
        const NodeId before = graph.prev(root);
        const bool search = root.value < searchable.size() && searchable[root.value]
                            && !isOp(*graph.node(root), ops::kGetItem);
        if (search) {
            for (auto &entry : finder.find(root, fused)) {
                const std::string &key = entry.first; // captured below: no structured binding (clang 14)
                std::vector<NodeId> &candidates = entry.second;
                if (stopped)
                    break;
                // A fusion at this root may have erased a later key's candidate.
                std::erase_if(candidates, [&](NodeId c) { return !graph.contains(c); });
                if (candidates.size() < minSize) {
                    if (outcomes)
                        for (NodeId c : candidates)
                            record(outcomes->outcomes, c,
                                   {CandidateOutcome::Kind::GroupTooSmall, key, -1, candidates.size(), 0, {}});
                    continue;
                }
                if (!scratch)
                    scratch.emplace(graph.idBound());
                const size_t found = candidates.size();
                forEachIndependentSubset(graph, candidates, maxSize, levels.positions(), *scratch, [&](Subset &subset) {
                    if (stopped)
                        return;
                    if (subset.members.size() < minSize) {
                        if (outcomes)
                            for (NodeId c : subset.members)
                                record(outcomes->outcomes, c,
                                       {CandidateOutcome::Kind::SubsetTooSmall, key, -1, found, subset.members.size(),
                                        subset.conflicts});
                        return;
                    }
                    if (stopRequested && stopRequested()) {
                        stopped = true;
                        return;
                    }
                    // Members are old nodes or nodes of earlier fusions; `fused`
                    // grows after each fusion.
                    for (NodeId m : subset.members)
                        fused[m.value] = 1;
                    changed.clear();
                    const FusionGroup group{key, subset.members, root};
                    if (outcomes) {
                        const int index = static_cast<int>(outcomes->groups.size());
                        for (NodeId m : subset.members)
                            outcomes->outcomes.insert_or_assign(m, CandidateOutcome{CandidateOutcome::Kind::Grouped,
                                                                                    key,
                                                                                    index,
                                                                                    found,
                                                                                    subset.members.size(),
                                                                                    {}});
                        outcomes->groups.push_back(group);
                    }
                    if (!fuse(group, changed))
                        return;
                    ++fusedGroups;
                    if (fused.size() < graph.idBound())
                        fused.resize(graph.idBound(), 0);
                    levels.update(changed);
                    keys.forget(changed);
                    downstream.mark(graph, changed, maxDepth, searchable);
                });
            }
        }
        root = graph.contains(root) ? graph.prev(root) : graph.contains(before) ? before : NodeId();
    }
    return fusedGroups;
}

} // namespace fusebox
