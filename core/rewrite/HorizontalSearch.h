#pragma once

#include "Pattern.h"

#include <map>
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
/// The same with the graph's topological order already computed (the driver
/// shares one order between all rules of a round).
HorizontalSearchResult searchHorizontal(const Graph &graph, const HorizontalPattern &pattern,
                                        const std::vector<NodeId> &topologicalOrder);

} // namespace fusebox
