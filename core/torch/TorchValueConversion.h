#pragma once

// Helpers of the TorchScript importer that convert single libtorch values
// (types, tensors, constants, scopes) into core types. libtorch types are only
// forward-declared here: libtorch headers stay confined to core/torch/*.cpp.

#include "core/ir/Arg.h"
#include "core/ir/Node.h"
#include "core/ir/TensorMeta.h"
#include "core/ir/WeightStore.h"

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace at {
class Tensor;
}
namespace c10 {
struct IValue;
struct TensorType;
enum class ScalarType : int8_t;
} // namespace c10
namespace torch::jit {
struct Module;
struct Node;
} // namespace torch::jit

namespace fusebox::torchimport {

/// The core dtype of a libtorch scalar type; DType::Unknown when core has none.
DType toDType(c10::ScalarType type);
/// The libtorch scalar type of a core dtype, or nullopt when libtorch has none.
std::optional<c10::ScalarType> toScalarType(DType dtype);

/// What a TensorType records: dtype, sizes (unknown dims as the symbol "?"),
/// strides when all are known, device. Empty fields stay empty.
TensorMeta metaFromType(const c10::TensorType &type);
/// Dtype, shape, strides and device of a concrete tensor.
TensorMeta metaFromTensor(const at::Tensor &tensor);
/// The tensor as a contiguous CPU payload (bytes in row-major order).
Weight weightFromTensor(const at::Tensor &tensor);
/// A CPU tensor holding a copy of the payload (the inverse of weightFromTensor).
/// Throws std::runtime_error (one line, naming `what`) when the dtype has no
/// libtorch type, the shape is not static, or the byte count does not match.
at::Tensor tensorFromWeight(const Weight &weight, const std::string &what);

/// A graph's inputs as IValues for a run: tensorFromWeight() of each, named
/// "input <i>" in errors.
std::vector<c10::IValue> ivaluesFromWeights(const std::vector<Weight> &inputs);

/// A non-tensor constant as a literal Arg: None, bool, int, float, str,
/// Device, lists and tuples of those (recursively). Returns nullopt for
/// values with no literal form (objects, tensors).
std::optional<Arg> literalFromIValue(const c10::IValue &value);

/// Turns the module instances of an inlined call stack into a module path of
/// the (unfrozen) root module. The call stack names only the modules that were
/// called, so containers that are indexed but never called (ModuleList,
/// ModuleDict) are found by searching the root's hierarchy: ("dense", "0")
/// -> "dense.branches.0".
class ModulePathResolver {
public:
    /// root may be null: paths are then the instance names joined with dots.
    explicit ModulePathResolver(const torch::jit::Module *root)
        : m_root(root)
    {}
    /// chain: (instance name, class name) from the outermost call inwards.
    std::string resolve(const std::vector<std::pair<std::string, std::string>> &chain);

private:
    const torch::jit::Module *m_root;
    std::unordered_map<std::string, std::string> m_cache;
};

/// Provenance of a TorchScript node: the module scope ("layer1.0.conv1", from
/// the trace scope, else from the inlined call stack), the source location in
/// the user's code (the range the serialized code was generated from, when the
/// archive records it) and the original spelling (the node kind).
Provenance provenanceOf(torch::jit::Node &node, ModulePathResolver &modules);

/// The module path of a trace scope string as namesFromRoot() writes it:
/// "__module.layer1/__module.layer1.0/__module.layer1.0.conv1" -> "layer1.0.conv1";
/// the older "ResNet/Sequential[layer1]/BasicBlock[0]" -> "layer1.0".
std::string modulePathFromScope(const std::string &scope);

/// "file:line" of a node's source location, or "an unknown location".
std::string describeLocation(const SourceLocation &location);

/// Identifier-like text: every character outside [A-Za-z0-9_] becomes '_',
/// and a leading digit (or empty text) gets a '_' in front.
std::string sanitizeIdentifier(std::string_view text);

/// The first line of an exception's message, without libtorch's stack trace
/// (c10::Error) or caffe2's "[enforce fail at file.cc:165] . " prefix.
std::string oneLineMessage(const std::exception &e);

} // namespace fusebox::torchimport
