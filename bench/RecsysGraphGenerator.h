#pragma once
// Deterministic generator of recommendation-style benchmark graphs (plain
// Fusebox IR, no libtorch). Constants carry TensorMeta but no payloads: the
// graphs are for matching/rewriting benchmarks, not for running.

#include "core/ir/Graph.h"

#include <cstddef>
#include <cstdint>

namespace fusebox::bench {

struct RecsysGraphOptions {
    /// The generator adds towers until the graph has at least this many nodes.
    size_t targetNodes = 1000;
    /// Seed of the structure (branch counts, widths, activations).
    uint64_t seed = 42;
    /// Batch size of every input.
    int64_t batch = 32;
    /// Towers joined by one cat + linear per group.
    int towersPerGroup = 8;
};

/// A graph of repeated "towers":
///   x_t [B, k*d] -> aten::split_with_sizes / aten::split(.Tensor) + getitems
///   -> per branch: aten::linear(chunk, W, b) -> relu | tanh | sigmoid
///      -> aten::layer_norm(., [h], g, beta, 1e-5, true)
///   -> aten::cat(branches, 1) (every fourth tower instead stacks the branch
///      outputs, applies tanh and unbinds them before the cat)
///   -> aten::linear -> aten::relu (the tower head).
/// Every towersPerGroup towers are joined by aten::cat + aten::linear; the
/// group outputs are the graph's outputs. Every tensor node has f32 dtype and a
/// static shape; scopes are "towerT", "towerT.branchJ", "groupG".
Graph generateRecsysGraph(const RecsysGraphOptions &options);

} // namespace fusebox::bench
