#pragma once

// Shape inference of the TorchScript importer. libtorch types are only
// forward-declared here (see TorchValueConversion.h).

#include "core/ir/DType.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch::jit {
struct Graph;
}

namespace fusebox::torchimport {

/// The shape and dtype of one tensor input of a model.
struct InputSpec {
    std::vector<int64_t> shape;
    DType dtype = DType::Float32;
};

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
void inferShapes(const std::shared_ptr<torch::jit::Graph> &graph, const std::vector<InputSpec> &specs,
                 bool runExample, const std::string &displayName, std::vector<std::string> &warnings);

} // namespace fusebox::torchimport
