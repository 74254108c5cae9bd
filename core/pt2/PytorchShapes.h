#pragma once
// Every value's shape from PyTorch 2 itself: the bridge's infer_shapes runs
// an FX dump on fake tensors of its inputs' recorded shapes, as Dynamo does
// to record example_value, whatever device it was recorded on (a CUDA graph
// infers on a machine without CUDA). The answers are cached per file, so
// that opening the same dump again starts no Python.

#include "Pt2Bridge.h"
#include "core/io/LoadedModel.h"
#include "core/ir/Expected.h"
#include "core/ir/Graph.h"
#include "core/ir/ShapeInference.h"

#include <map>
#include <string>
#include <vector>

namespace fusebox::pt2 {

/// What PyTorch 2 said about a graph's values.
struct PytorchShapes {
    /// torch.__version__ of the Python that answered ("2.14.1+debian").
    std::string torchVersion;
    /// The annotation of each value PyTorch computed, by node name, as
    /// print_readable writes it ("f32[8, 16][16, 1]cpu").
    std::map<std::string, std::string> values;
    /// One line per node PyTorch could not run on fake tensors ("%nonzero
    /// (torch.nonzero): data-dependent output shape"): it and what depends
    /// on it stay unknown.
    std::vector<std::string> failures;
    /// True when the answer came from the cache.
    bool cached = false;
};

/// Where the answers are kept: fuseboxCacheDir()/shapes.
std::string shapeCacheDir();

/// The placeholders' recorded shapes as the request's `inputs` ([{name,
/// shape, dtype, device}]), for the tensor inputs of `graph` that have one.
nlohmann::json recordedInputs(const Graph &graph);

/// Asks `bridge` for the shapes of fxText's values (sourceName names it in
/// errors), from the tensor inputs' shapes in `graph`; cached by the text,
/// the inputs and the bridge's Python.
Expected<PytorchShapes> inferShapesInPytorch(Pt2Bridge &bridge, const std::string &fxText,
                                             const std::string &sourceName, const Graph &graph);

/// Gives each node of `graph` whose name PyTorch answered for and that has no
/// shape PyTorch's shape, dtype and device; records
/// metadata["shapes.inferred_by"]. A node with a shape that disagrees with
/// PyTorch's takes PyTorch's, with a warning naming both (a rule of Fusebox's
/// that is wrong must not stay hidden). Returns how many nodes changed. For
/// loaders (an import-time fix-up).
size_t applyPytorchShapes(Graph &graph, const PytorchShapes &shapes, std::vector<std::string> &warnings);

/// How the values a dump records no shape for get one.
enum class ShapeSource {
    Auto,    ///< Fusebox's C++ rules, then PyTorch 2 for the rest when one is found
    Pytorch, ///< as Auto, but PyTorch 2 must run: its failure is an error
    Fusebox, ///< Fusebox's C++ rules alone (no Python starts)
};

/// What completeShapes() did.
struct ShapeCompletion {
    ShapeCounts before;
    ShapeCounts after;
    /// True when PyTorch 2 answered (from the cache or a run).
    bool pytorch = false;
};

/// Completes the shapes of an FX dump that loadModel() read from `path` (the
/// C++ rules already ran there): with ShapeSource Auto or Pytorch, and op
/// values still without a shape, asks PyTorch 2 (findPythonCommand(python))
/// through a bridge of its own (inferShapesInPytorch) and gives its answers
/// to the graph (applyPytorchShapes). Under Auto, PyTorch 2 that cannot run
/// (none found, no input shaped, an error) is a warning in model.warnings;
/// under Pytorch it is the error returned. Whatever the source, values still
/// without a shape afterwards are counted in one warning that says rules
/// reading them cannot decide. Other formats record their shapes: nothing
/// is done for them.
Expected<ShapeCompletion> completeShapes(LoadedModel &model, const std::string &path, const std::string &python,
                                         ShapeSource source);

} // namespace fusebox::pt2
