#pragma once
// Graphs compared up to node names: what "Fusebox's result is Inductor's
// result" means when the two name their new nodes differently.

#include "Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// A node's structural signature: its kind and op (with overload), its
/// arguments with every node reference replaced by the referenced node's
/// signature, its dtype and shape; inputs by position, constants by
/// metadata. Names, provenance, spelling and program order do not count.
/// One 64-bit hash per node, indexed by NodeId value (0 for dead ids).
std::vector<uint64_t> structuralSignatures(const Graph &graph);

/// Where two graphs differ structurally.
struct StructuralDifference {
    /// One line: "aten::bmm %bmm (f32[5, 4, 16]) is in the first graph only".
    std::string description;
    /// Nodes of each graph with no structurally equal node in the other (a
    /// multiset difference), in program order: what a diff view marks.
    std::vector<NodeId> onlyInA, onlyInB;
};

/// What a pass that keeps the names of the nodes it leaves alone (FX does)
/// removed and added: the nodes of `a` with no node of the same name in `b`,
/// and the reverse, in program order. A structural difference marks every
/// node downstream of a change as well; this marks the replaced nodes only.
struct NamedDifference {
    std::vector<NodeId> onlyInA, onlyInB;
    bool empty() const { return onlyInA.empty() && onlyInB.empty(); }
};
NamedDifference namedDifference(const Graph &a, const Graph &b);

/// nullopt when the graphs are the same up to node names: equal multisets of
/// node signatures and the same outputs in order. Otherwise the first node in
/// program order (of a, then of b) without a counterpart, and all such nodes.
std::optional<StructuralDifference> firstStructuralDifference(const Graph &a, const Graph &b);

} // namespace fusebox
