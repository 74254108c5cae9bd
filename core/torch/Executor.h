#pragma once

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"
#include "core/ir/WeightStore.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fusebox {

/// A tensor in host memory: contiguous row-major bytes of meta's dtype and
/// static shape. The same struct as a constant's payload, so inputs and
/// outputs can be kept in a WeightStore and payloads run as inputs.
using HostTensor = Weight;

/// A graph lowered once to TorchScript (core/torch/IrToTorchGraph.h) and run
/// as often as needed by libtorch's interpreter, without graph optimizations:
/// it computes exactly the ops the graph names, so that a before/after
/// comparison measures the rewrite and nothing else. Running is const and
/// may happen from several threads.
class Executor {
public:
    /// Lowers graph. Errors are lowerGraph()'s: one line naming the node
    /// ("%w (constant): ... no payload", "%if (prim::If): control flow ...").
    static Expected<Executor> create(const Graph &graph);

    Executor(Executor &&) noexcept;
    Executor &operator=(Executor &&) noexcept;
    ~Executor();

    /// Runs the graph under torch::NoGradGuard on `inputs`, one per graph
    /// input in order. An input's dtype must be the recorded one when one is
    /// recorded; its shape may differ from the recorded one (the lowered graph
    /// is shape-generic). Returns the outputs flattened in order: each tensor
    /// the output node lists; a list or tuple value contributes its items; an
    /// int/float/bool becomes a 0-d tensor. When outputNames is given, it
    /// receives one name per output: the IR node's name, "name[i]" for item i
    /// of a list-valued node, "" for a literal. Errors are one line; a failing
    /// op is named ("%linear_3 (aten::linear): mat1 and mat2 shapes ...").
    Expected<std::vector<HostTensor>> run(const std::vector<HostTensor> &inputs,
                                          std::vector<std::string> *outputNames = nullptr) const;

    /// Number of graph inputs run() expects.
    size_t inputCount() const;

private:
    struct Impl;
    explicit Executor(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

/// Lowers and runs graph once (Executor::create + run). Callers that run a
/// graph repeatedly keep an Executor instead, which lowers once.
Expected<std::vector<HostTensor>> runGraph(const Graph &graph, const std::vector<HostTensor> &inputs);

/// Deterministic random inputs (same seed, same bytes) from the input nodes'
/// recorded static shapes and dtypes, drawn in input order from one libtorch
/// CPU generator seeded with `seed`:
/// - floating-point inputs: standard normal N(0, 1);
/// - bool inputs: uniform false/true;
/// - integer inputs: uniform in [0, high), where high is the smallest bound
///   found by following the input through view-like ops (getitem, select,
///   slice, view, reshape, flatten, squeeze, unsqueeze, split, unbind,
///   contiguous, ...) to an index argument: the row count of aten::embedding's
///   weight, or self.size(dim) of aten::index_select; without one, high = 2
///   (indices 0 and 1 are valid for any non-empty table).
/// An unknown dtype is taken as f32. Errors name the input whose shape is
/// unknown or symbolic ("%x: input shape [s0, 8] is not static").
Expected<std::vector<HostTensor>> randomInputs(const Graph &graph, uint64_t seed);

/// Runs a TorchScript archive's forward as libtorch loads it (torch::jit::load,
/// eval, no freezing) on `inputs`; outputs flattened as Executor::run does.
/// The reference a lowered graph is compared against. Errors name the path.
Expected<std::vector<HostTensor>> runTorchScriptModule(const std::string &path, const std::vector<HostTensor> &inputs);

} // namespace fusebox
