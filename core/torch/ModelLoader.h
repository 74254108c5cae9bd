#pragma once

#include "core/io/LoadedModel.h"
#include "core/ir/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusebox {

/// How to read a model file.
struct LoadOptions {
    /// Shapes of the model's tensor inputs, in order. A TorchScript archive
    /// takes them over what it records; an FX dump gives them to the tensor
    /// inputs it records no shape for, in order (Dynamo graphs annotated with
    /// torch.Tensor only). Empty: use what the file records (TorchScript
    /// archives made by Fusebox's scripts carry them), else leave shapes
    /// unknown. The other formats record their shapes and ignore these.
    std::vector<std::vector<int64_t>> inputShapes;
};

/// Opens any model file Fusebox reads, choosing the reader by content and
/// extension: TorchScript archives (.pt/.pth/.zip, via libtorch), torch.export
/// archives and programs (.pt2 zip, ExportedProgram JSON), FX text dumps
/// (print_readable / fx_graph_readable.py / str(graph); .py/.txt) and Fusebox
/// graph JSON (.json). Errors are one line naming the file. An FX dump's op
/// values get the shapes that follow from its inputs' (GraphNet's meta files
/// beside it, --input-shape; core/ir/ShapeInference.h).
Expected<LoadedModel> loadModel(const std::string &path, const LoadOptions &options = {});

/// True when loadModel() reads path with libtorch (a TorchScript archive or a
/// legacy torch.save pickle); false for the PT2 formats, graph JSON, FX text
/// and paths that are no file. fusebox-pass uses it to start its libtorch
/// build only when a model needs it.
bool readsWithLibtorch(const std::string &path);

/// True when loadModel() reads path as a PyTorch 2 graph (FX text, a
/// torch.export archive or program), whose graph isPt2Graph() then says is
/// one; false for TorchScript, graph JSON (which may hold either) and paths
/// that are no file. fusebox-pass keeps such a model's --verify and --measure
/// in PyTorch 2, without libtorch.
bool readsAsPt2Graph(const std::string &path);

/// The file extensions loadModel() accepts, for file dialogs: {"pt", "pth", "json", ...}.
std::vector<std::string> supportedModelExtensions();

} // namespace fusebox
