#pragma once

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <string>

namespace fusebox {

/// Writes graph as a TorchScript archive that Python's torch.jit.load (and
/// fusebox::loadModel) reads: one module of class `__torch__.fusebox.ExportedModule`
/// whose forward(self, <inputs>) is the lowered graph (IrToTorchGraph.h), so
/// the arguments are named after the graph's inputs and it returns one tensor,
/// or a tuple when the output node lists several values.
///
/// Tensor constants become buffers of the module, named after their constant
/// nodes (made unique; one buffer per weight key) and read with prim::GetAttr:
/// state_dict() shows them, torch.jit.freeze folds them, and re-importing the
/// archive gives the constant nodes their names back. The module is in eval
/// mode (training = False). When every input has a static shape, the archive
/// carries fusebox/inputs.json with the input names, shapes and dtypes, so
/// that Fusebox re-imports it with shapes.
///
/// Errors are one line starting with the path: a graph that cannot be lowered
/// ("out.pt: cannot export: %if_1 (prim::If): control flow ..."), or a file
/// that cannot be written.
Status exportTorchScript(const Graph &graph, const std::string &path);

} // namespace fusebox
