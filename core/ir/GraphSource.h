#pragma once

#include "Graph.h"

namespace fusebox {

/// True when the graph was read from a PyTorch 2 form: FX text (a Dynamo,
/// AOT or TORCH_COMPILE_DEBUG dump, str(graph)), a torch.export archive or
/// program (its "source.format" metadata, which graph JSON keeps). Such a
/// graph is verified, timed and exported in PyTorch 2 through the bridge;
/// TorchScript and hand-built graphs are not PT2 graphs.
bool isPt2Graph(const Graph &graph);

/// True for a torch-level call, as Dynamo records one: spelled so (F.linear,
/// x.view, torch.cat; not torch.ops.* or operator.*), or kept as written (an
/// einsum whose arguments fit no ATen schema stays torch.functional.einsum).
bool isTorchLevelCall(const Node &node);

/// True when some node of the graph is a torch-level call: a Dynamo (pre-grad)
/// graph, not an AOT one. Scans the graph; readers record the answer as
/// metadata "source.stage" (see isPreGradGraph).
bool hasTorchLevelCalls(const Graph &graph);

/// True for a PT2 graph that Inductor's pre-grad passes see and its post-grad
/// passes never do: metadata "source.stage" is "pre_grad" (the FX reader
/// records it at load, so a node a rewrite later spells torch.ops.* does not
/// change the answer), or, without it, hasTorchLevelCalls.
bool isPreGradGraph(const Graph &graph);

} // namespace fusebox
