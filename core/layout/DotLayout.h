#pragma once

#include "LayoutTypes.h"

#include "core/ir/Expected.h"

namespace fusebox {

/// Lays out a directed graph with Graphviz `dot` (ranks top to bottom, spline
/// edges, boxes of the given fixed sizes) and copies the result into plain
/// structs; nothing of Graphviz outlives the call.
///
/// Thread-safe: Graphviz is not, so every call into it is serialised by one
/// process-wide mutex. Meant to run off the GUI thread. An empty input gives an
/// empty result. Errors: an edge naming an unknown key, a duplicate key, a
/// non-finite or negative size, or a failure Graphviz reports (its message is
/// kept). Cost grows fast with size (about 0.4 s for 500 boxes, 8 s for 2000 on
/// a slow machine): callers should only lay out bounded pieces of a graph.
Expected<LayoutResult> layoutWithDot(const LayoutInput &input);

/// The size of the graph dot really works on: the boxes plus one virtual node
/// per rank that each edge crosses, ranks estimated by longest path. Layout
/// time grows with it (superlinearly): callers can use it to decide to lay out
/// less. Unknown keys count as nothing; cycles are estimated.
double estimatedLayoutSize(const LayoutInput &input);

} // namespace fusebox
