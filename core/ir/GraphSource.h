#pragma once

#include "Graph.h"

namespace fusebox {

/// True when the graph was read from a PyTorch 2 form: FX text (a Dynamo,
/// AOT or TORCH_COMPILE_DEBUG dump, str(graph)), a torch.export archive or
/// program (its "source.format" metadata, which graph JSON keeps). Such a
/// graph is verified, timed and exported in PyTorch 2 through the bridge;
/// TorchScript and hand-built graphs are not PT2 graphs.
bool isPt2Graph(const Graph &graph);

} // namespace fusebox
