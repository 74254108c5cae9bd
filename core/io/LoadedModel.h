#pragma once

#include "core/ir/Graph.h"

#include <string>
#include <vector>

namespace fusebox {

/// A graph read from a file, with what the reader had to say about it.
struct LoadedModel {
    Graph graph;
    /// Non-fatal findings, one line each ("model.py:12: prim::If imported as an
    /// opaque node"); WarningSummary.h groups them by kind.
    std::vector<std::string> warnings;
    /// The line of the file each node was read from, indexed by NodeId value
    /// (0 where unknown; may be shorter than the graph's id bound). Lets a
    /// warning's "file:line" lead to its nodes. Filled by the FX text reader.
    std::vector<int> nodeLines;
};

} // namespace fusebox
