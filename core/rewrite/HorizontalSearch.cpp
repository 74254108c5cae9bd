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

void HorizontalKeyMemo::invalidate(const std::vector<char> &changed)
{
    const size_t n = std::min(changed.size(), m_slot.size());
    for (size_t i = 0; i < n; ++i)
        if (changed[i])
            m_slot[i] = -1;
}

/// pattern.key() for each node, computed once per search (or once per memo).
/// Per node only an index is kept (keys are few), so a search on a large graph
/// stays light.
class KeyCache {
public:
    KeyCache(const Graph &graph, const HorizontalPattern &pattern, HorizontalKeyMemo *memo)
        : m_graph(graph), m_pattern(pattern), m_memo(memo ? *memo : m_own)
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

namespace {

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
    explicit StampSet(size_t size) : m_stamp(size, 0) {}
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
    explicit DependencyScratch(size_t size) : remaining(size), visited(size), found(size), inSubset(size), subsetDeps(size) {}
    StampSet remaining, visited, found, inSubset, subsetDeps;
    std::vector<NodeId> work;
};

/// The candidates among `scratch.remaining` that `node` transitively reads.
/// The walk stops below the earliest interesting node: nothing topologically
/// before it can lead to one (Inductor walks every ancestor; same result).
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
template <typename OnSubset>
void forEachIndependentSubset(const Graph &graph, std::vector<NodeId> nodes, size_t maxSize,
                              const Positions &position, DependencyScratch &scratch, OnSubset &&onSubset)
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

std::vector<Subset> independentSubsets(const Graph &graph, std::vector<NodeId> nodes, size_t maxSize,
                                       const Positions &position, DependencyScratch &scratch)
{
    std::vector<Subset> subsets;
    forEachIndependentSubset(graph, std::move(nodes), maxSize, position, scratch,
                             [&](Subset &subset) { subsets.push_back(std::move(subset)); });
    return subsets;
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

/// The graph_search_options a search reads.
struct SearchLimits {
    size_t minSize = 0, maxSize = 0;
    int64_t maxDepth = 0;
};

SearchLimits searchLimits(const HorizontalPattern &pattern)
{
    const PatternOptions &o = pattern.options();
    return {static_cast<size_t>(o.getInt("min_fuse_set_size", search_defaults::kMinFuseSetSize)),
            static_cast<size_t>(o.getInt("max_fuse_set_size", search_defaults::kMaxFuseSetSize)),
            o.getInt("max_fuse_search_depth", search_defaults::kMaxFuseSearchDepth)};
}

/// Keys every node with a root op (rules whose root ops do not occur have
/// nothing to find) and marks the cache complete; returns the keyed ones.
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
                        record(result.outcomes, c, {CandidateOutcome::Kind::GroupTooSmall, key, -1, candidates.size(), 0, {}});
                continue;
            }
            if (!scratch)
                scratch.emplace(graph.idBound());
            for (Subset &subset : independentSubsets(graph, candidates, maxSize, position, *scratch)) {
                if (subset.members.size() < minSize) {
                    if (withOutcomes)
                        for (NodeId c : subset.members)
                            record(result.outcomes, c, {CandidateOutcome::Kind::SubsetTooSmall, key, -1,
                                                        candidates.size(), subset.members.size(), subset.conflicts});
                    continue;
                }
                const int index = static_cast<int>(result.groups.size());
                for (NodeId m : subset.members) {
                    fused[m.value] = 1;
                    if (withOutcomes)
                        result.outcomes.insert_or_assign(m, CandidateOutcome{CandidateOutcome::Kind::Grouped, key, index,
                                                                             candidates.size(), subset.members.size(), {}});
                }
                result.groups.push_back({key, std::move(subset.members), root});
            }
        }
    }
    return result;
}

namespace {

/// Levels that grow along every edge, kept true while a live search fuses:
/// a node's level is above each of its inputs'. Levels only grow, so a
/// stale (higher) level still orders a node above its inputs.
class LiveLevels {
public:
    LiveLevels(const Graph &graph, const std::vector<NodeId> &order) : m_graph(graph), m_level(graph.idBound(), 0)
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
                                record(outcomes->outcomes, c, {CandidateOutcome::Kind::SubsetTooSmall, key, -1, found,
                                                               subset.members.size(), subset.conflicts});
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
                            outcomes->outcomes.insert_or_assign(
                                m, CandidateOutcome{CandidateOutcome::Kind::Grouped, key, index, found,
                                                    subset.members.size(), {}});
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
