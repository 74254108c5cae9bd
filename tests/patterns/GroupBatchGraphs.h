#pragma once
// Hand-built graphs on which each group/batch rule fires, shared by the
// pattern tests (structure, explanations) and the numeric tests (libtorch
// runs them before and after). Constants carry payloads so they can run.

#include "core/ir/GraphBuilder.h"
#include "core/ir/Graph.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace fusebox::test::gb {

/// A graph and the nodes a rule should group, in candidate order.
struct GroupGraph {
    Graph graph;
    std::vector<NodeId> members;
};

// The helpers below add to a graph the test is still making, one call at a
// time, so each reopens it (GraphBuilder's constructor takes a new graph only).

inline NodeId input(Graph &g, const std::string &name, std::vector<int64_t> shape)
{
    return GraphBuilder::reopen(g).addInput(name, f32(std::move(shape), "cpu"));
}

/// A constant with a deterministic float32 payload in [lo, hi).
inline NodeId weight(Graph &g, const std::string &name, std::vector<int64_t> shape, uint32_t seed, float lo = -1.0f,
                     float hi = 1.0f)
{
    TensorMeta meta = f32(shape, "cpu");
    int64_t count = 1;
    for (int64_t d : shape)
        count *= d;
    std::vector<std::byte> bytes(static_cast<size_t>(count) * sizeof(float));
    uint32_t state = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < count; ++i) {
        state = state * 1664525u + 1013904223u;
        const float v = lo + (hi - lo) * static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
        std::memcpy(bytes.data() + i * sizeof(float), &v, sizeof(float));
    }
    GraphBuilder build = GraphBuilder::reopen(g);
    build.weights().put(name, Weight{meta, std::move(bytes)});
    return build.addConstant(name, name, meta);
}

/// An op node with overload and output metadata.
inline NodeId op(Graph &g, const std::string &name, const std::string &overload, std::vector<Arg> args,
                 std::vector<int64_t> shape)
{
    GraphBuilder build = GraphBuilder::reopen(g);
    NodeId id = build.addOp(name, std::move(args));
    build.node(id).overload = overload;
    build.node(id).meta = f32(std::move(shape), "cpu");
    return id;
}

/// n aten::linear(x_i [4, 8], w_i [6, 8], b_i [6]) -> [4, 6], each returned.
/// interleaved: x_i = tanh(in_i) is computed just before linear_i, so fused
/// operands are defined after the group's first member (the driver's
/// topological restore puts them back in order).
inline GroupGraph linearGraph(int n = 5, bool bias = true, bool interleaved = false)
{
    GroupGraph r;
    Graph &g = r.graph;
    std::vector<NodeId> xs, ws, bs;
    for (int i = 0; i < n; ++i) {
        xs.push_back(input(g, "x" + std::to_string(i), {4, 8}));
        ws.push_back(weight(g, "w" + std::to_string(i), {6, 8}, 10 + i));
        if (bias)
            bs.push_back(weight(g, "b" + std::to_string(i), {6}, 40 + i));
    }
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId x = xs[i];
        if (interleaved)
            x = op(g, "aten::tanh", "", {x}, {4, 8});
        std::vector<Arg> args{x, ws[i], NoneArg{}};
        if (bias)
            args[2] = bs[i];
        NodeId lin = op(g, "aten::linear", "", std::move(args), {4, 6});
        r.members.push_back(lin);
        outs.emplace_back(lin);
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

/// n aten::linear(x [4, 8], w_i [3 + i, 8], b_i [3 + i]) reading one input.
inline GroupGraph linearLhsGraph(int n = 5, bool bias = true)
{
    GroupGraph r;
    Graph &g = r.graph;
    NodeId x = input(g, "x", {4, 8});
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId w = weight(g, "w" + std::to_string(i), {3 + i, 8}, 20 + i);
        std::vector<Arg> args{x, w, NoneArg{}};
        if (bias)
            args[2] = weight(g, "b" + std::to_string(i), {3 + i}, 60 + i);
        NodeId lin = op(g, "aten::linear", "", std::move(args), {4, 3 + i});
        r.members.push_back(lin);
        outs.emplace_back(lin);
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

/// n aten::layer_norm(x_i [2, 3, 16], [16], w_i [16]?, b_i [16]?, 1e-5, true).
inline GroupGraph layerNormGraph(int n = 5, bool affineWeight = true, bool affineBias = true)
{
    GroupGraph r;
    Graph &g = r.graph;
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId x = input(g, "x" + std::to_string(i), {2, 3, 16});
        std::vector<Arg> args{x, Arg::list({int64_t(16)}), NoneArg{}, NoneArg{}, 1e-5, true};
        if (affineWeight)
            args[2] = weight(g, "w" + std::to_string(i), {16}, 80 + i, 0.5f, 1.5f);
        if (affineBias)
            args[3] = weight(g, "b" + std::to_string(i), {16}, 90 + i);
        NodeId ln = op(g, "aten::layer_norm", "", std::move(args), {2, 3, 16});
        r.members.push_back(ln);
        outs.emplace_back(ln);
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

/// n `opName`(x_i [4, 8]) (a one-tensor op: aten::tanh, aten::relu_, ...).
inline GroupGraph unaryGraph(const std::string &opName, int n = 5, std::vector<int64_t> shape = {4, 8})
{
    GroupGraph r;
    Graph &g = r.graph;
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId x = input(g, "x" + std::to_string(i), shape);
        NodeId y = op(g, opName, "", {x}, shape);
        r.members.push_back(y);
        outs.emplace_back(y);
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

/// n `opName`(x_i [4, 8], extra...), each read by aten::relu (the first user
/// the math rules key on), the relus returned.
inline GroupGraph mathGraph(const std::string &opName, const std::vector<Arg> &extra, int n = 5)
{
    GroupGraph r;
    Graph &g = r.graph;
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId x = input(g, "x" + std::to_string(i), {4, 8});
        std::vector<Arg> args{x};
        args.insert(args.end(), extra.begin(), extra.end());
        NodeId y = op(g, opName, "", std::move(args), {4, 8});
        r.members.push_back(y);
        outs.emplace_back(op(g, "aten::relu", "", {y}, {4, 8}));
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

/// n aten::addmm(b_i [6], x_i [4, 8], w_i [8, 6], 1, 1), or aten::mm(x_i, w_i).
inline GroupGraph mmGraph(int n = 5, bool bias = true)
{
    GroupGraph r;
    Graph &g = r.graph;
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId x = input(g, "x" + std::to_string(i), {4, 8});
        NodeId w = weight(g, "w" + std::to_string(i), {8, 6}, 30 + i);
        NodeId y;
        if (bias)
            y = op(g, "aten::addmm", "",
                   {weight(g, "b" + std::to_string(i), {6}, 70 + i), x, w, int64_t(1), int64_t(1)}, {4, 6});
        else
            y = op(g, "aten::mm", "", {x, w}, {4, 6});
        r.members.push_back(y);
        outs.emplace_back(y);
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

/// n `opName`.`overload`(a_i [4, 8], b_i [4, 8], extra...) (aten::add.Tensor ...).
inline GroupGraph binaryGraph(const std::string &opName, const std::string &overload, const std::vector<Arg> &extra,
                              int n = 5)
{
    GroupGraph r;
    Graph &g = r.graph;
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId a = input(g, "a" + std::to_string(i), {4, 8});
        // Divisors kept away from zero so the numeric comparison is well conditioned.
        NodeId b = weight(g, "c" + std::to_string(i), {4, 8}, 50 + i, 0.5f, 2.0f);
        std::vector<Arg> args{a, b};
        args.insert(args.end(), extra.begin(), extra.end());
        NodeId y = op(g, opName, overload, std::move(args), {4, 8});
        r.members.push_back(y);
        outs.emplace_back(y);
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

} // namespace fusebox::test::gb
