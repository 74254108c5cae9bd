#pragma once

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <string>

namespace fusebox {

/// The graph formats Fusebox writes, chosen by the file's extension.
/// Pt2Archive: a torch.export archive, made in PyTorch 2 through the bridge
/// (core/pt2/Pt2Export.h), not by saveModel().
enum class OutputFormat { TorchScript, GraphJson, FxText, Pt2Archive, Unknown };

/// .pt -> TorchScript, .json -> graph JSON, .py/.txt -> FX text, .pt2 ->
/// torch.export archive (case-insensitive).
OutputFormat outputFormatOf(const std::string &path);

/// Writes graph to path in the format its extension names: a TorchScript
/// archive that loads with torch.jit.load, graph JSON (with the weights when
/// embedWeights), or print_readable()-style FX text. Errors are one line; a
/// .pt2 is one (it is made by exportForPyTorch2(), in PyTorch 2).
/// What `fusebox-pass run/convert -o` and the IDE's Export Model use.
Status saveModel(const Graph &graph, const std::string &path, bool embedWeights);

} // namespace fusebox
