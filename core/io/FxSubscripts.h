#pragma once
// The Python subscripts (`x[:, :16]`, `h[0, 2:]`) the FX reader lowers to
// aten::slice / aten::select chains, found again so that the writer can write
// them as Dynamo did: one `operator.getitem`, which is what Inductor's passes
// see (batch_linear keys on a getitem's parent).

#include "core/ir/Graph.h"

#include <string>
#include <vector>

namespace fusebox::fx {

/// One subscript the reader lowered, as the graph still holds it.
struct LoweredSubscript {
    /// The value subscripted (the chain's first step reads it).
    NodeId object;
    /// The index as Python writes it, without brackets (":, :16").
    std::string index;
    /// The chain's steps before the last one, first to last; each is read
    /// by the next step only.
    std::vector<NodeId> steps;
};

/// The subscript whose last node is `last`: a node the reader marked
/// (provenance "operator.getitem" with the index written), whose chain of
/// marked slice/select steps still has the dims, bounds and users a subscript
/// gives. nullopt for any other node, or when a rewrite changed the chain.
std::optional<LoweredSubscript> loweredSubscript(const Graph &graph, NodeId last);

} // namespace fusebox::fx
