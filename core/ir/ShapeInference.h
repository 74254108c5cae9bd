#pragma once
// Shape inference in C++ for the common ops, for graphs that record their
// inputs' shapes but not every value's (Dynamo graphs, GraphNet's model.py
// beside its meta files, a dump opened with --input-shape). PyTorch 2 with
// fake tensors (the bridge's infer_shapes) is the reference and covers every
// op; this covers what recommendation and transformer graphs are made of, so
// that the rules see shapes when no PyTorch 2 is at hand. Symbolic sizes stay
// symbolic ("s0") wherever the op passes them through.

#include "Graph.h"
#include "TensorMeta.h"

#include <cstddef>
#include <map>
#include <string>

namespace fusebox {

/// How many op values have a shape: the figure `inspect --json` reports as
/// "shapes" and the IDE shows. Counted over op nodes whose value is one
/// tensor; list values (split, unbind) and scalars (size()) are not counted,
/// their getitem users are.
struct ShapeCounts {
    size_t known = 0;
    size_t unknown = 0;
    /// The first op value in program order without a shape (where inference
    /// stopped), or an invalid id.
    NodeId firstUnknown;
};

/// Counts the op values of `graph` with and without a shape (see ShapeCounts).
ShapeCounts countShapes(const Graph &graph);

/// True when node `id`'s value is one tensor (not a list, a tuple or a
/// scalar): what ShapeCounts counts. Decided from the node's type and, for
/// the list-returning ops, its op.
bool holdsOneTensor(const Graph &graph, NodeId id);

/// What inferShapes() did.
struct ShapeInferenceReport {
    /// Op values that had no shape and got one.
    size_t inferred = 0;
    /// Op values still without a shape afterwards.
    size_t unknown = 0;
    /// The ops Fusebox has no shape rule for, with how many nodes call them.
    std::map<std::string, size_t> unruledOps;
};

/// Gives every op value whose shape is unknown the shape, dtype and device its
/// op computes from its inputs, in program order, for the common ops (see
/// ShapeRules.cpp). Values that record a shape keep it. A value whose inputs'
/// shapes are unknown, or whose op has no rule, stays unknown, and so does
/// what depends on it: inference never guesses. For importers and loaders
/// (it edits through GraphBuilder, as an import-time fix-up).
ShapeInferenceReport inferShapes(Graph &graph);

} // namespace fusebox
