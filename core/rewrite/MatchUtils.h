#pragma once

#include "core/ir/Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// Small queries patterns share. Argument lookups accept both forms a graph
/// can carry: positional (TorchScript import, schema order) and keyword (FX).

/// The argument at schema position `index`, or the keyword `name`; nullptr
/// when neither is present.
const Arg *argAt(const Node &node, size_t index, std::string_view name);
/// That argument as an int; nullopt when absent or not an int.
std::optional<int64_t> intArgAt(const Node &node, size_t index, std::string_view name);
/// That argument as a list of ints ("[2, 2]" or a single int as a one-item list).
std::optional<std::vector<int64_t>> intListArgAt(const Node &node, size_t index, std::string_view name);
/// That argument as a referenced node; invalid when absent or a literal.
NodeId nodeArgAt(const Node &node, size_t index, std::string_view name);
/// That argument's node references when it is a list of nodes; nullopt otherwise.
std::optional<std::vector<NodeId>> nodeListArgAt(const Node &node, size_t index, std::string_view name);

/// True when node is an op call of `op` (overloads ignored: "aten::split"
/// matches aten::split.Tensor and aten::split.sizes).
bool isOp(const Node &node, std::string_view op);
/// True when the node is getitem(x, i); then sets source and index.
bool isGetItem(const Graph &graph, NodeId id, NodeId *source = nullptr, int64_t *index = nullptr);
/// The value a Python subscript reads from, as FX's operator.getitem node has
/// it in args[0]: for getitem(x, i), an opaque operator.getitem call, and the
/// aten::slice/select chain the FX reader makes of `x[:, :8]` (marked
/// operator.getitem), x. Invalid for any other node, and for a chain whose
/// marks a rewrite or a format without them (TorchScript) did not keep.
NodeId subscriptParent(const Graph &graph, NodeId id);

/// dim made non-negative for a tensor of `rank`; nullopt when out of range.
std::optional<int64_t> normalizeDim(int64_t dim, int rank);
/// The node's static shape as ints; nullopt when unknown or symbolic.
std::optional<std::vector<int64_t>> staticShape(const Node &node);
/// "[8, 16]" of a list of ints.
std::string formatInts(const std::vector<int64_t> &values);

} // namespace fusebox
