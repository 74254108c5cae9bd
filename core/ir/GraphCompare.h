#pragma once

#include "Graph.h"

#include <optional>
#include <string>

namespace fusebox {

/// Compares two graphs structurally, node by node in program order: names,
/// kinds, ops, overloads, types, tensor metadata, provenance, weight keys,
/// opaque bodies, args and kwargs (references compared by the referenced
/// node's name), and graph metadata. NodeIds are not compared.
/// Returns a description of the first difference, or nullopt when equal.
std::optional<std::string> firstDifference(const Graph &a, const Graph &b);

} // namespace fusebox
