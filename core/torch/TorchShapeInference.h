#pragma once

// Shape inference of the TorchScript importer. libtorch types are only
// forward-declared here (see TorchValueConversion.h).

#include "core/ir/DType.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace at {
class Tensor;
}
namespace torch::jit {
struct Graph;
}

namespace fusebox::torchimport {

/// The shape and dtype of one tensor input of a model.
struct InputSpec {
    std::vector<int64_t> shape;
    DType dtype = DType::Float32;
};

/// The archive's extra file that records the input shapes and dtypes.
inline constexpr const char *kInputSpecsFile = "fusebox/inputs.json";

/// The text parseInputSpecs() reads back: {"inputs": [{"name", "shape",
/// "dtype" (short name, "f32")}, ...]}, one entry per (name, spec) pair.
std::string formatInputSpecs(const std::vector<std::string> &names, const std::vector<InputSpec> &specs);

/// Parses the archive's fusebox/inputs.json ({"inputs": [{"name", "shape",
/// "dtype"}, ...]}; dtype defaults to f32). On malformed text, appends a
/// warning naming displayName and returns an empty list.
std::vector<InputSpec> parseInputSpecs(const std::string &displayName, const std::string &json,
                                       std::vector<std::string> &warnings);

/// Types the graph's tensor inputs (all but `self`) from example tensors
/// (zeros of each spec) and runs libtorch's PropagateInputShapes. When
/// runExample, then runs the graph once on those examples and gives every
/// tensor value the complete type of what it computed (libtorch's static pass
/// only knows the rank of many ops, e.g. convolutions); prim::If runs the
/// branch taken, prim::Loop its iterations. Nodes that fail, and what depends
/// on them, keep the static result. Problems become warnings naming
/// displayName; nothing throws.
void inferShapes(const std::shared_ptr<torch::jit::Graph> &graph, const std::vector<InputSpec> &specs, bool runExample,
                 const std::string &displayName, std::vector<std::string> &warnings);

/// Runs the graph once, node by node, on `inputs` (one per graph input, in
/// order) the way inferShapes() runs its example, and returns the first
/// failure as "%value (aten::op): message", or "" when every node ran. Meant
/// for finding which node a failed interpreter run failed at (the
/// interpreter's own message names no node); it refines the graph's value
/// types, so pass a copy.
std::string findFailingNode(torch::jit::Graph &graph, const std::vector<at::Tensor> &inputs);

} // namespace fusebox::torchimport
