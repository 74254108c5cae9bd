#pragma once
// Sizes of shape symbols, as a graph printed with its example sizes shows
// them: Inductor 2.14 logs its post-grad Optimus graphs (optimus_*PostGrad*)
// with every symbol of a dynamic compile replaced by its hint, so its
// before_post_grad_graph reads f32[s37, 128] and the graph after a fusion
// f32[16, 128]. A replay compares with production after giving its own
// graph the same sizes.

#include "Graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fusebox {

/// Symbol -> size read from the inputs of `symbolic` and `concrete`, taken
/// by position: each symbol dim of an input against the int dim at the same
/// place of the other graph's input. Empty when no symbol meets a size;
/// nullopt when the inputs do not line up (another count or rank) or one
/// symbol meets two sizes.
std::optional<std::map<std::string, int64_t>> symbolValues(const Graph &symbolic, const Graph &concrete);

/// A copy of `graph` (ids kept) whose shapes have each symbol of `values`
/// replaced by its size, and each expression of them (`2*s37`, as a cat
/// Fusebox made reads) by its value, as Inductor logs them. A dim naming a
/// symbol without a value, or that is no polynomial (SymbolicSize.h), is
/// left as it is.
Graph withSymbolValues(const Graph &graph, const std::map<std::string, int64_t> &values);

/// "s37 = 16, s52 = 4": the values as a replay names them.
std::string formatSymbolValues(const std::map<std::string, int64_t> &values);

} // namespace fusebox
