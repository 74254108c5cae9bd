#pragma once

#include "core/ir/Graph.h"

#include <string>
#include <vector>

namespace fusebox {

/// A graph read from a file, with what the reader had to say about it.
struct LoadedModel {
    Graph graph;
    /// Non-fatal findings, one line each ("prim::If at model.py:12 imported as an opaque node").
    std::vector<std::string> warnings;
};

} // namespace fusebox
