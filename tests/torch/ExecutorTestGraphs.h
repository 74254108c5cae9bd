#pragma once
// Hand-built graph pairs for the executor, verifier and exporter tests: each
// `before` graph and its Optimus-style rewrite, built from the ops the
// rewrites create (stack, unbind, bmm, baddbmm, transpose, split_with_sizes,
// slice, movedim, select, layer_norm without affine).

#include "core/ir/GraphBuilder.h"
#include "core/ir/Graph.h"
#include "core/torch/Executor.h"

#include <cstring>
#include <string>
#include <vector>

namespace fusebox::test {

inline std::vector<Dim> shapeOf(std::initializer_list<int64_t> sizes)
{
    return {sizes.begin(), sizes.end()};
}

/// A deterministic f32 tensor with values in [-1, 1).
inline HostTensor floats(std::initializer_list<int64_t> sizes, uint32_t seed)
{
    HostTensor t;
    t.meta = f32(sizes, "cpu");
    int64_t n = 1;
    for (int64_t s : sizes)
        n *= s;
    std::vector<float> values(static_cast<size_t>(n));
    uint32_t state = seed * 2654435761u + 1;
    for (float &v : values) {
        state = state * 1664525u + 1013904223u;
        v = static_cast<float>(state >> 8) / static_cast<float>(1 << 23) - 1.0f;
    }
    t.data.resize(values.size() * sizeof(float));
    std::memcpy(t.data.data(), values.data(), t.data.size());
    return t;
}

/// A constant node whose payload is floats(sizes, seed), stored under its name
/// (added by the builder of the graph being made).
inline NodeId addWeight(GraphBuilder &build, const std::string &name, std::initializer_list<int64_t> sizes,
                        uint32_t seed)
{
    build.weights().put(name, floats(sizes, seed));
    return build.addConstant(name, name, f32(sizes, "cpu"));
}

/// Three linears on three [4, 8] inputs (weights [6, 8], biases [6]) and,
/// when batched, Optimus's batch_linear rewrite of them: stack, transpose,
/// baddbmm with unsqueezed stacked biases, unbind, getitem. swapWeights
/// stacks the first two weights in the wrong order (a semantic change).
inline Graph linearsGraph(bool batched, bool swapWeights = false)
{
    Graph g;
    GraphBuilder build(g);
    std::vector<Arg> xs, ws, bs;
    for (int i = 0; i < 3; ++i)
        xs.emplace_back(build.addInput("x" + std::to_string(i), f32({4, 8}, "cpu")));
    for (int i = 0; i < 3; ++i) {
        ws.emplace_back(addWeight(build, "w" + std::to_string(i), {6, 8}, 10 + i));
        bs.emplace_back(addWeight(build, "b" + std::to_string(i), {6}, 20 + i));
    }
    if (!batched) {
        std::vector<Arg> outs;
        for (int i = 0; i < 3; ++i)
            outs.emplace_back(build.addOp("aten::linear", {xs[i], ws[i], bs[i]}));
        build.setOutputs(outs);
        return g;
    }
    if (swapWeights)
        std::swap(ws[0], ws[1]);
    NodeId x = build.addOp("aten::stack", {Arg::list(xs), int64_t(0)});
    NodeId w = build.addOp("aten::stack", {Arg::list(ws)}); // dim defaults to 0
    NodeId wt = build.addOp("aten::transpose", {w, int64_t(1), int64_t(2)});
    build.node(wt).overload = "int";
    NodeId b = build.addOp("aten::unsqueeze", {build.addOp("aten::stack", {Arg::list(bs), int64_t(0)}), int64_t(1)});
    NodeId y = build.addOp("aten::baddbmm", {b, x, wt});
    NodeId parts = build.addOp("aten::unbind", {y, int64_t(0)});
    build.node(parts).type = "Tensor[]";
    std::vector<Arg> outs;
    for (int i = 0; i < 3; ++i)
        outs.emplace_back(build.addOp("getitem", {parts, int64_t(i)}));
    build.setOutputs(outs);
    return g;
}

/// A linear without bias on a [4, 8] input and, when batched, its bmm form:
/// bmm(unsqueeze(x, 0), unsqueeze(t(w), 0)) then select(0, 0).
inline Graph linearNoBiasGraph(bool batched)
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4, 8}, "cpu"));
    NodeId w = addWeight(build, "w", {6, 8}, 7);
    if (!batched) {
        build.setOutputs({build.addOp("aten::linear", {x, w, NoneArg{}})});
        return g;
    }
    NodeId wt = build.addOp("aten::unsqueeze", {build.addOp("aten::t", {w}), int64_t(0)});
    NodeId y = build.addOp("aten::bmm", {build.addOp("aten::unsqueeze", {x, int64_t(0)}), wt});
    build.setOutputs({build.addOp("aten::select", {y, int64_t(0), int64_t(0)})});
    return g;
}

/// Two layer_norms ([4, 16] inputs, affine [16]) as the importer writes them
/// (all six args), and Optimus's batch_layernorm rewrite: stack at dim -2,
/// layer_norm without affine (trailing args omitted, eps by name), multiply
/// by the stacked weights, add the stacked biases, unbind(-2).
inline Graph layerNormsGraph(bool batched)
{
    Graph g;
    GraphBuilder build(g);
    std::vector<Arg> xs, ws, bs;
    for (int i = 0; i < 2; ++i) {
        xs.emplace_back(build.addInput("x" + std::to_string(i), f32({4, 16}, "cpu")));
        ws.emplace_back(addWeight(build, "w" + std::to_string(i), {16}, 30 + i));
        bs.emplace_back(addWeight(build, "b" + std::to_string(i), {16}, 40 + i));
    }
    const Arg normalized = Arg::list({Arg(int64_t(16))});
    if (!batched) {
        std::vector<Arg> outs;
        for (int i = 0; i < 2; ++i)
            outs.emplace_back(build.addOp("aten::layer_norm", {xs[i], normalized, ws[i], bs[i], 1e-5, true}));
        build.setOutputs(outs);
        return g;
    }
    NodeId x = build.addOp("aten::stack", {Arg::list(xs), int64_t(-2)});
    NodeId n = build.addOp("aten::layer_norm", {x, normalized}, {{"eps", 1e-5}});
    NodeId scaled = build.addOp("aten::mul", {n, build.addOp("aten::stack", {Arg::list(ws), int64_t(0)})});
    NodeId shifted = build.addOp("aten::add", {scaled, build.addOp("aten::stack", {Arg::list(bs), int64_t(0)})});
    NodeId parts = build.addOp("aten::unbind", {shifted, int64_t(-2)});
    build.setOutputs({build.addOp("getitem", {parts, int64_t(0)}), build.addOp("getitem", {parts, int64_t(1)})});
    return g;
}

/// Split/cat shapes on x [8, 64] and y [2, 3, 4]: split_with_sizes -> getitems
/// -> cat of the first two; unbind(y, 1) -> stack(dim 0); an unbind item; a
/// cast to f64. The rewrite: slice, movedim, select, and the same cast.
inline Graph splitCatGraph(bool rewritten)
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({8, 64}, "cpu"));
    NodeId y = build.addInput("y", f32({2, 3, 4}, "cpu"));
    if (!rewritten) {
        NodeId split = build.addOp("aten::split_with_sizes",
                                   {x, Arg::list({Arg(int64_t(16)), Arg(int64_t(16)), Arg(int64_t(32))}), int64_t(1)});
        NodeId a = build.addOp("getitem", {split, int64_t(0)});
        NodeId b = build.addOp("getitem", {split, int64_t(1)});
        NodeId c = build.addOp("getitem", {split, int64_t(-1)});
        NodeId cat = build.addOp("aten::cat", {Arg::list({a, b}), int64_t(1)});
        NodeId unbind = build.addOp("aten::unbind", {y, int64_t(1)});
        std::vector<Arg> items;
        for (int i = 0; i < 3; ++i)
            items.emplace_back(build.addOp("getitem", {unbind, int64_t(i)}));
        NodeId stack = build.addOp("aten::stack", {Arg::list(items), int64_t(0)});
        NodeId cast = build.addOp("aten::to", {c, DType::Float64});
        build.setOutputs({cat, stack, items[2], cast});
        return g;
    }
    NodeId cat = build.addOp("aten::slice", {x, int64_t(1), int64_t(0), int64_t(32), int64_t(1)});
    build.node(cat).overload = "Tensor";
    NodeId c = build.addOp("aten::slice", {x, int64_t(1), int64_t(32)}, {{"end", int64_t(64)}});
    NodeId moved = build.addOp("aten::movedim", {y, int64_t(1), int64_t(0)});
    NodeId item = build.addOp("aten::select", {y, int64_t(1), int64_t(2)});
    NodeId cast = build.addOp("aten::to", {c, DType::Float64});
    build.setOutputs({cat, moved, item, cast});
    return g;
}

} // namespace fusebox::test
