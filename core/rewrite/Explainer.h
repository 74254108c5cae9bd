#pragma once

#include "HorizontalSearch.h"
#include "Pattern.h"

#include <string>
#include <vector>

namespace fusebox {

/// Why a pattern does (or does not) fire at one node: the ordered checks of
/// the very code path the driver runs, with pass/fail and actual values.
struct Explanation {
    std::string pattern;
    NodeId node;
    bool matched = false;
    std::vector<Check> checks;
    /// "fires here: ..." or the first failed check in one line.
    std::string summary;
    /// Whose answer this is: "Inductor 2.6's pre_grad schedule, pass 3 of 7"
    /// or "Fusebox's greedy search".
    std::string context;

    /// The first failed check, or nullptr when it matched.
    const Check *failure() const;
    /// True when the first failed check is undecided (Check::undecided): the
    /// rule might fire once the shape is known.
    bool undecided() const { return failure() && failure()->undecided; }
};

/// The first two checks of every explanation: the pattern can run in this
/// build, and `node` has one of its root ops. Returns whether both passed.
bool checkCanStartAt(const Graph &graph, const Pattern &pattern, NodeId node, MatchTrace &trace);

/// The rule's own checks at `node` (after checkCanStartAt passed), recorded
/// in `trace`; returns whether it fires. Vertical: the match attempt.
/// Horizontal: the key, then what the search (`search`, or one run here when
/// null) did with the node.
bool traceRuleChecks(const Graph &graph, const Pattern &pattern, NodeId node, const HorizontalSearchResult *search,
                     MatchTrace &trace);

/// "description: actual" (or ": failed") of a failed check, an explanation's
/// summary.
std::string failureSummary(const Check &failed);

/// The nodes `pattern` is tried at: those with one of its root ops, in
/// program order.
std::vector<NodeId> rootNodes(const Graph &graph, const Pattern &pattern);

/// Explains `pattern` at `node`. Vertical: the match attempt's checks.
/// Horizontal: the key checks, then what the greedy search did with the node
/// (grouped; candidate group below min_fuse_set_size; left in a subset too
/// small because of dependencies, naming them; never reached by a search).
/// Nodes whose op is not a root op, and unavailable patterns, fail a first
/// check that says so.
Explanation explain(const Graph &graph, const Pattern &pattern, NodeId node);

/// Same, reusing a search result of this pattern on this graph (horizontal
/// patterns only; saves the search when explaining many nodes).
Explanation explain(const Graph &graph, const Pattern &pattern, NodeId node, const HorizontalSearchResult *search);

/// Nodes that failed the same check, furthest attempts first.
struct NearMissGroup {
    /// The failed check's description ("getitem used once").
    std::string check;
    /// The explanations, sorted by how many checks passed (descending).
    std::vector<Explanation> nodes;
    /// Checks passed by the furthest attempt in the group.
    int bestProgress = 0;
};

/// Where a pattern got furthest before failing, over the whole graph.
struct NearMissSummary {
    std::string pattern;
    /// Nodes with a root op (where a match was attempted).
    size_t attempted = 0;
    size_t matched = 0;
    /// Groups by failed check, the group with the furthest attempt first.
    std::vector<NearMissGroup> groups;
};

/// Attempts the pattern at every node with a root op and groups the failures
/// by their failed check.
NearMissSummary nearMisses(const Graph &graph, const Pattern &pattern);

/// Groups explanations of `pattern` (one per node tried) by failed check, the
/// furthest attempts first, as nearMisses does.
NearMissSummary summarizeNearMisses(const std::string &pattern, std::vector<Explanation> explanations);

} // namespace fusebox
