#pragma once
// A Fusebox graph as the bridge's Python rebuilds it (docs/pt2-bridge.md):
// FX text, with Fusebox's own fused ops written as the ATen ops they are
// defined by (stock PyTorch has no fusebox:: ops), and the values of its
// constants beside it.

#include "core/ir/Graph.h"

#include <nlohmann/json.hpp>

#include <string>

namespace fusebox::pt2 {

/// writeFxText() of the graph, its Fusebox ops decomposed first (decomposeFuseboxOps).
std::string bridgeGraphText(const Graph &graph);

/// The payloads of the graph's constants the bridge's `weights` argument
/// carries: {key: {"dtype": "f32", "shape": [..], "base64": ".."}}, keyed as
/// the FX text names them (self.<weightKey>, else self.<name>). Constants
/// without a payload are left out (the bridge gives them random values).
nlohmann::json bridgeWeights(const Graph &graph);

} // namespace fusebox::pt2
