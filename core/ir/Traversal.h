#pragma once

#include "Graph.h"

#include <cstdint>
#include <vector>

namespace fusebox {

/// True when program order is topological: every node comes after the nodes
/// it reads (Graph::isTopologicallySorted, which remembers the answer until
/// an edit that can change it).
bool isTopologicallySorted(const Graph &graph);

/// Each live node's index in program order, indexed by NodeId value (0 for
/// ids that are not live): sorting nodes by position without a walk per test.
std::vector<uint32_t> programPositions(const Graph &graph);

/// A topological order of the live nodes that keeps program order wherever it
/// is already valid: program order itself when it is topological; otherwise a
/// node read before its definition moves up to just before its first reader
/// (with whatever it reads in turn). Deterministic, O(nodes + edges).
/// Returns an empty vector when the graph has a cycle.
std::vector<NodeId> topologicalOrder(const Graph &graph);

/// Inductor 2.6's stable_topological_sort (torch/_inductor/pattern_matcher.py):
/// walks program order; a node read before its definition waits, and is
/// emitted right after the last of its inputs that was not ready when it was
/// reached (topologicalOrder() instead hoists the inputs above the reader).
/// Program order itself when it is topological. Deterministic,
/// O(nodes + edges). Returns an empty vector when the graph has a cycle.
std::vector<NodeId> stableTopologicalOrder(const Graph &graph);

/// True when the graph's dataflow has a cycle (no topological order exists).
/// Cheap when program order is already topological (the graph remembers
/// it); otherwise O(nodes + edges).
bool hasCycle(const Graph &graph);

/// Every node `from` depends on, transitively (not including `from`).
/// Iterative, so deep graphs do not overflow the stack.
std::vector<NodeId> ancestors(const Graph &graph, NodeId from);

/// Every node that depends on `from`, transitively (not including `from`).
std::vector<NodeId> descendants(const Graph &graph, NodeId from);

/// True when `ancestor` is a transitive input of `node`.
bool isAncestor(const Graph &graph, NodeId ancestor, NodeId node);

/// Nodes within `hops` edges of `center`, in either direction, center included.
std::vector<NodeId> neighbourhood(const Graph &graph, NodeId center, int hops);

} // namespace fusebox
