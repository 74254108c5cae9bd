#pragma once

#include "Pattern.h"

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox {

/// Why a candidate of a horizontal rule did or did not end up in a group.
struct CandidateOutcome {
    enum class Kind {
        Grouped,        ///< in a yielded group
        GroupTooSmall,  ///< its key had fewer than min_fuse_set_size candidates
        SubsetTooSmall, ///< dependencies split the candidates into subsets below the minimum
    };
    Kind kind = Kind::Grouped;
    std::string key;
    /// Grouped: the group's index in HorizontalSearchResult::groups.
    int group = -1;
    /// Nodes with the same key found together with this one (by the same root's search).
    size_t candidates = 0;
    /// SubsetTooSmall: the size of the subset it was left in.
    size_t subsetSize = 0;
    /// Candidates it depends on or that depend on it (why subsets split).
    std::vector<NodeId> conflicts;
};

/// Keys a rule gave to nodes, kept between searches on the same graph (the
/// driver's rounds) so that only the nodes near a change are keyed again.
class HorizontalKeyMemo {
public:
    /// Forgets the keys of every node marked in `changed` (indexed by NodeId).
    void invalidate(const std::vector<char> &changed);

private:
    friend class KeyCache;
    std::vector<int32_t> m_slot; // per NodeId: -1 unknown, -2 no key, else index into m_keys
    std::deque<std::optional<std::string>> m_keys;
};

/// One group a horizontal rule would fuse.
struct FusionGroup {
    std::string key;
    /// Members in candidate order; mutually independent.
    std::vector<NodeId> members;
    /// The node whose upward search found them (Inductor's root).
    NodeId root;
};

/// The outcome of Inductor's greedy search for one rule on one graph.
struct HorizontalSearchResult {
    std::vector<FusionGroup> groups;
    /// Every node the rule gave a key, with what became of it.
    std::unordered_map<NodeId, CandidateOutcome> outcomes;
};

/// Inductor's search (group_batch_fusion.py): visit nodes from last to first
/// (topological order); from each root that is not a getitem, BFS upward from
/// its inputs, depth from 1; nodes already grouped are skipped; a node the rule
/// keys is recorded under its key and not expanded; other nodes' inputs are
/// queued while depth < max_fuse_search_depth. Keys with fewer than
/// min_fuse_set_size candidates are dropped; the rest go through
/// find_independent_subset_greedy (max_fuse_set_size per subset, candidate
/// order kept). Groups never overlap and no member depends on another, so
/// fusing them cannot create a cycle.
///
/// This finds groups without rewriting, as if each were fused before the search
/// moved on (a fused member is never a candidate again); unlike Inductor, the
/// later BFS walks see the original nodes rather than the fused replacement,
/// which only matters when a fusion's output feeds the same rule again (the
/// driver's next round finds those).
HorizontalSearchResult searchHorizontal(const Graph &graph, const HorizontalPattern &pattern);

/// What a search must produce.
enum class HorizontalSearchMode {
    /// Groups and every keyed node's outcome (explanations).
    WithOutcomes,
    /// Groups only (the driver). Skips the upward walk from every root that
    /// provably cannot see min_fuse_set_size keyed nodes: an upper bound on
    /// what each root's walk can find is propagated downstream from the keyed
    /// nodes along the users index. The groups are the same as WithOutcomes'.
    GroupsOnly,
};

/// The same with the graph's topological order already computed (the driver
/// shares one order between all rules of a round). `roots`, when given, is a
/// mask by NodeId of the only roots to search from (the driver's later rounds);
/// `memo`, when given, keeps keys from one search to the next (the caller
/// invalidates those of changed nodes).
HorizontalSearchResult searchHorizontal(const Graph &graph, const HorizontalPattern &pattern,
                                        const std::vector<NodeId> &topologicalOrder,
                                        HorizontalSearchMode mode = HorizontalSearchMode::WithOutcomes,
                                        const std::vector<char> *roots = nullptr, HorizontalKeyMemo *memo = nullptr);

/// Fuses one group the moment the live search finds it; fills `changed`
/// with the nodes the fusion made or edited and those whose users it
/// changed (TouchTracker::seeds). False when the group was not fused.
using LiveFusion = std::function<bool(const FusionGroup &group, std::vector<NodeId> &changed)>;

/// Inductor's apply_group_batch_fusion as it runs (group_batch_fusion.py:1334):
/// the roots from last to first in program order, read live, so that nodes a
/// fusion inserts before the root are roots later; each subset
/// find_independent_subset_greedy yields is fused (by `fuse`) before the next
/// is formed, and every later walk, key and dependency test reads the graph
/// as the fusions left it: a later root sees the fused nodes (which the rule
/// may key again), and candidates that a fusion made dependent on each other
/// go to different subsets. Members of every yielded subset count as fused
/// whether or not `fuse` applied them. The caller sorts the graph first, as
/// 2.6 does, and mends the order after. Returns the groups fused.
///
/// Walks stay cheap as in searchHorizontal: dependency walks stop at levels
/// (kept true across fusions) at or below the earliest candidate's, and roots
/// are searched only where the start-of-pass bound or a fusion nearby allows.
/// With `outcomes`, every root is searched and every keyed node's outcome is
/// recorded there as the live search saw it (explanations), with the groups.
size_t fuseHorizontalLive(const Graph &graph, const HorizontalPattern &pattern, const LiveFusion &fuse,
                          const std::function<bool()> &stopRequested = {}, HorizontalSearchResult *outcomes = nullptr);

} // namespace fusebox
