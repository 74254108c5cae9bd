#pragma once

#include "Graph.h"

#include <string>
#include <vector>

namespace fusebox {

/// One problem the verifier found, naming the node ("%linear_3: argument 0
/// refers to node #17, which is not in the graph").
struct VerifierIssue {
    NodeId node;
    std::string message;
};

/// Checks that the graph is well formed: every reference names a live node,
/// the graph is acyclic and in topological program order, an output node is
/// present and last, names are unique and non-empty, inputs carry no args,
/// constants have a weight key, ops have an op name, getitem nodes have the form
/// getitem(node, int). Returns every problem found (empty when well formed).
std::vector<VerifierIssue> verify(const Graph &graph);

/// The issues joined one per line, for error messages and logs.
std::string formatIssues(const std::vector<VerifierIssue> &issues);

} // namespace fusebox
