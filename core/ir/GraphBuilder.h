#pragma once

#include "Graph.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fusebox {

/// The one way to make a graph (importers, generators, tests). A graph is
/// built here and changed afterwards only through PatternRewriter (and the
/// EditLog's undo/redo): Graph's building and editing primitives are private,
/// with these as its only friends, so the compiler holds the rule.
///
/// A builder is a view on a graph being made, cheap to construct (and to
/// copy: a copy builds into the same graph). The constructor takes a new
/// graph only; import-time fix-ups on a graph that already holds nodes
/// (inlining a submodule, shapes, metadata) go through reopen(), before
/// anyone else sees the graph.
class GraphBuilder {
public:
    /// A builder for a new graph. Precondition: `graph` holds no nodes (its
    /// metadata may be set already); otherwise throws std::logic_error, so
    /// that no code builds into a graph it was handed (that is
    /// PatternRewriter's work, which the edit log records).
    explicit GraphBuilder(Graph &graph)
        : m_graph(graph)
    {
        if (graph.size() != 0)
            throwNotNew();
    }

    /// A builder on a graph that may hold nodes. Only for an importer's or
    /// loader's fix-ups on a graph it made and has not handed out yet: shape
    /// inference, metadata, weights, inlining. Every other change goes
    /// through PatternRewriter. Callers live in core/ (io, ir, torch, pt2),
    /// bench/, fuzz/ and tests/ only: a test in tests/core/ir_graph_tests.cpp
    /// reads the sources and fails on any other.
    static GraphBuilder reopen(Graph &graph) { return GraphBuilder(graph, ReopenTag{}); }

    const Graph &graph() const { return m_graph; }

    /// Appends an input (placeholder). name is made unique if taken.
    /// Graph::reserve().
    void reserve(size_t nodes) { m_graph.reserve(nodes); }
    NodeId addInput(std::string name, TensorMeta meta = {}, std::string type = "Tensor")
    {
        return m_graph.addInput(std::move(name), std::move(meta), std::move(type));
    }
    /// Appends a constant whose payload is weights()[weightKey].
    NodeId addConstant(std::string name, std::string weightKey, TensorMeta meta = {})
    {
        return m_graph.addConstant(std::move(name), std::move(weightKey), std::move(meta));
    }
    /// Inserts an op call before `before` (appends when invalid); the name is
    /// derived from the op when empty ("aten::linear" -> "linear_4").
    NodeId addOp(std::string op, std::vector<Arg> args, std::vector<NamedArg> kwargs = {}, std::string name = {},
                 NodeId before = {})
    {
        return m_graph.addOp(std::move(op), std::move(args), std::move(kwargs), std::move(name), before);
    }
    /// Creates the output node, or replaces its values when it exists.
    NodeId setOutputs(std::vector<Arg> values) { return m_graph.setOutputs(std::move(values)); }

    /// The node, writable while the graph is built (meta, provenance, type).
    /// Changing its op goes through setOp(); its arguments through setArgs().
    Node &node(NodeId id) { return *m_graph.mutableNode(id); }
    WeightStore &weights() { return m_graph.mutableWeights(); }
    /// The graph's metadata, writable (Graph::metadata() reads it).
    std::map<std::string, std::string> &metadata() { return m_graph.m_metadata; }

    // --- import-time fix-ups (Graph's primitives, before the graph is shared)
    void setArgs(NodeId id, std::vector<Arg> args, std::vector<NamedArg> kwargs)
    {
        m_graph.setArgs(id, std::move(args), std::move(kwargs));
    }
    void replaceAllUsesWith(NodeId from, NodeId to) { m_graph.replaceAllUsesWith(from, to); }
    bool erase(NodeId id) { return m_graph.erase(id); }
    void moveBefore(NodeId id, NodeId before) { m_graph.moveBefore(id, before); }
    bool reorder(const std::vector<NodeId> &order) { return m_graph.reorder(order); }
    void setOp(NodeId id, std::string op) { m_graph.setOp(id, std::move(op)); }

private:
    struct ReopenTag {};
    GraphBuilder(Graph &graph, ReopenTag)
        : m_graph(graph)
    {}
    /// Out of line: the check above stays one comparison where it is inlined.
    [[noreturn]] static void throwNotNew();

    Graph &m_graph;
};

/// [1, 2, 3] as an argument.
Arg intList(const std::vector<int64_t> &values);
/// [%a, %b] as an argument.
Arg nodeList(const std::vector<NodeId> &ids);
/// Metadata of a tensor with a static shape.
TensorMeta tensorMeta(DType dtype, const std::vector<int64_t> &shape, std::string device = {});
/// tensorMeta(DType::Float32, shape, device): the tests' and generators' commonest.
TensorMeta f32(const std::vector<int64_t> &shape, std::string device = {});

} // namespace fusebox
