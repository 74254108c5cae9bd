#pragma once

#include "EditLog.h"

#include "core/ir/Graph.h"

#include <map>
#include <string>
#include <vector>

namespace fusebox {

/// What a sequence of applied edit groups did to a graph, read from the edit
/// log (exact: no graph matching heuristics). A node inserted and erased
/// again within the groups is in neither list.
struct GraphDiff {
    /// Nodes of `before` the groups erased (and did not bring back).
    std::vector<NodeId> removed;
    /// Nodes the groups inserted that `after` still has.
    std::vector<NodeId> added;
    /// Nodes of both graphs whose op, arguments or metadata the groups modified.
    std::vector<NodeId> changed;

    /// Rewrites per pattern and the sum of their netNodeChange(): what each
    /// did when it was applied, as the review's rows and `fusebox-pass run`'s
    /// report count it (from the group labels "pattern@anchor" or
    /// "pattern#n"). A node one rewrite adds and a later one removes counts
    /// in both; `removed` and `added` above are the net change from `before`.
    struct PatternChange {
        std::string pattern;
        size_t rewrites = 0;
        size_t removed = 0;
        size_t added = 0;
    };
    std::vector<PatternChange> byPattern;

    /// For every op in either graph: its node count before and after.
    std::map<std::string, std::pair<size_t, size_t>> opCounts;
};

/// What one rewrite's edit group did to the node set: nodes it erased that
/// existed before it, and nodes it inserted that it did not erase again.
struct NodeChange {
    size_t removed = 0;
    size_t added = 0;
};
NodeChange netNodeChange(const EditGroup &group);

/// Computes the diff of `groups` (oldest first), which turned `before` into
/// `after`. Group labels name the pattern before '@' or '#'
/// (GreedyDriver::apply labels "pattern@anchor", run "pattern#n"); a group
/// with another label counts for no pattern.
GraphDiff diffFromEdits(const Graph &before, const Graph &after, const std::vector<const EditGroup *> &groups);

} // namespace fusebox
