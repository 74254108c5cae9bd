#pragma once

// The one lowering from a fusebox::Graph to a TorchScript graph, shared by the
// executor, the latency benchmark and the exporter. libtorch types are only
// forward-declared here (see TorchValueConversion.h).

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <memory>
#include <string>
#include <vector>

namespace torch::jit {
struct Graph;
struct Value;
} // namespace torch::jit

namespace fusebox::torchlower {

/// A tensor constant of the lowered graph and the IR constant node it came from.
struct LoweredConstant {
    torch::jit::Value *value = nullptr;
    NodeId node;
};

/// A fusebox::Graph as a TorchScript graph that computes the same outputs.
struct LoweredGraph {
    std::shared_ptr<torch::jit::Graph> graph;
    /// The IR input nodes, in the order of the graph's inputs (all tensors).
    std::vector<NodeId> inputs;
    /// Every tensor constant still used after dead code elimination, in program
    /// order (the exporter turns them into module buffers).
    std::vector<LoweredConstant> constants;
    /// The values the IR output node lists (the items of its list arg, as
    /// Graph::setOutputs writes it). The graph returns the value itself when
    /// there is one, else a tuple of them, as the importer's source did; an
    /// item that is a list/tuple literal becomes a list/tuple value.
    std::vector<Arg> outputs;
};

/// Lowers `graph` into a TorchScript graph, in topological order:
/// - inputs -> graph inputs of type Tensor (only tensor inputs are supported);
/// - constants -> tensor constants holding a copy of their graph.weights()
///   payload;
/// - op nodes -> the node of the schema that accepts their args: the recorded
///   overload first, then the default one, then the others; literal args
///   become constants (typed by the schema argument: ints for float arguments
///   become floats, DType -> ScalarType int, Device -> Device), lists of node
///   references become prim::ListConstruct (prim::TupleConstruct for tuples),
///   omitted trailing args take the schema defaults;
/// - getitem(x, i) -> output i of x when x has several outputs, else
///   aten::__getitem__.t on a list, prim::TupleIndex on a tuple;
/// - the output node -> the graph's return: its one value, or a tuple.
/// Unused nodes are dropped (dead code elimination). Errors are one line
/// naming the node: "%w: constant has no payload ...", "%if_1 (prim::If):
/// control flow cannot be lowered ...", "%x (aten::foo): no schema ...".
Expected<LoweredGraph> lowerGraph(const Graph &graph);

/// "%name (op)" for op nodes, "%name" for the others: how errors name a node.
std::string describeNode(const Node &node);

} // namespace fusebox::torchlower
