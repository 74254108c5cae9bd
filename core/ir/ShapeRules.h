#pragma once
// Internal to ShapeInference.cpp: what inference knows about a value, and the
// per-op rules that compute it.

#include "Graph.h"
#include "TensorMeta.h"

#include <functional>
#include <optional>
#include <vector>

namespace fusebox::shapes {

/// What is known of one value: a tensor, a list of tensors (split, unbind), a
/// scalar size (size(1), "s0"), or a list of sizes (size()).
struct Value {
    enum class Kind { Unknown, Tensor, TensorList, Scalar, ScalarList };
    Kind kind = Kind::Unknown;
    TensorMeta tensor;
    std::vector<TensorMeta> tensors;
    Dim scalar = int64_t(0);
    std::vector<Dim> scalars;

    bool known() const { return kind != Kind::Unknown; }
    static Value ofTensor(TensorMeta meta);
    static Value ofTensors(std::vector<TensorMeta> metas);
    static Value ofScalar(Dim d);
    static Value ofScalars(std::vector<Dim> dims);
};

/// The values of the nodes computed so far, by NodeId.
using Lookup = std::function<const Value &(NodeId)>;

/// The value node `id` computes from its inputs' values; Unknown when its op
/// has no rule (then *ruled is set false) or an input it needs is unknown.
Value inferNode(const Graph &graph, const Node &node, const Lookup &valueOf, bool *ruled);

/// Broadcasts two shapes as PyTorch does; nullopt when they cannot broadcast.
std::optional<std::vector<Dim>> broadcast(const std::vector<Dim> &a, const std::vector<Dim> &b);

/// The dtype of a binary op on tensors of dtypes a and b (PyTorch's
/// promotion among bool < integers < floating types).
DType promote(DType a, DType b);

} // namespace fusebox::shapes
