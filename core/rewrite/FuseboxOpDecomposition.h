#pragma once
// Fusebox's own fused ops (fusebox::linear_relu, ...; core/torch/FuseboxOps.h)
// run in Fusebox's executor, but stock PyTorch does not know them: an archive
// that uses them fails torch.jit.load ("Unknown builtin op"). Exports
// therefore write each as the ATen ops it is defined by, unless asked to keep
// them (for a runtime that registers the fused kernels).

#include "core/ir/Graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// The ATen ops a Fusebox op computes, applied in order: the first takes the
/// Fusebox op's arguments, each next one the previous result alone
/// (fusebox::linear_relu -> {"aten::linear", "aten::relu"}). Empty for any
/// other op. The same definitions as the kernels in core/torch/FuseboxOps.cpp
/// (a [torch] test runs both on the same inputs).
std::vector<std::string> fuseboxOpDecomposition(std::string_view op);

/// The graph with every Fusebox op replaced by its decomposition (through
/// the rewriter, on a copy); `decomposed` receives the ops replaced, each
/// once, sorted. The copy equals `graph` when there is none.
Graph decomposeFuseboxOps(const Graph &graph, std::vector<std::string> *decomposed = nullptr);

/// The Fusebox ops the graph uses, each once, sorted.
std::vector<std::string> fuseboxOpsIn(const Graph &graph);

} // namespace fusebox
