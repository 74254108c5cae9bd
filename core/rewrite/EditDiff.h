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

    /// Net removed/added nodes and rewrites per pattern (from the group
    /// labels "pattern@anchor" or "pattern#n"; reorderings are not counted).
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

/// Computes the diff of `groups` (oldest first), which turned `before` into
/// `after`. Group labels name the pattern before '@' or '#'
/// (GreedyDriver::apply labels "pattern@anchor", run "pattern#n"); a group
/// with another label counts for no pattern.
GraphDiff diffFromEdits(const Graph &before, const Graph &after, const std::vector<const EditGroup *> &groups);

} // namespace fusebox
