#pragma once
// Hand-built graphs and waiting helpers for the [views] tests.

#include "core/ir/Graph.h"
#include "views/GraphScene.h"

#include <QtTest/QTest>

#include <string>

namespace fusebox::viewtest {

inline TensorMeta f32(std::vector<int64_t> dims)
{
    std::vector<Dim> shape(dims.begin(), dims.end());
    return TensorMeta{DType::Float32, shape, std::nullopt, "cpu"};
}

/// x -> enc{fc1: linear(x, w), act: relu, fc2: linear, add(fc2, relu)} -> head{mul(d, d)} -> output.
/// Scopes: "enc.fc1", "enc.act", "enc.fc2", "enc" (the add), "head".
inline Graph encoderGraph()
{
    Graph g;
    NodeId x = g.addInput("x", f32({4, 16}));
    NodeId w = g.addConstant("w", "w", f32({16, 16}));
    g.node(w)->provenance.scope = "enc.fc1";
    NodeId a = g.addOp("aten::linear", {x, w, NoneArg{}}, {}, "fc1");
    g.node(a)->provenance.scope = "enc.fc1";
    g.node(a)->meta = f32({4, 16});
    NodeId b = g.addOp("aten::relu", {a}, {}, "act");
    g.node(b)->provenance.scope = "enc.act";
    g.node(b)->meta = f32({4, 16});
    NodeId w2 = g.addConstant("w2", "w2", f32({16, 16}));
    g.node(w2)->provenance.scope = "enc.fc2";
    NodeId c = g.addOp("aten::linear", {b, w2, NoneArg{}}, {}, "fc2");
    g.node(c)->provenance.scope = "enc.fc2";
    g.node(c)->meta = f32({4, 16});
    NodeId d = g.addOp("aten::add", {c, b}, {}, "residual");
    g.node(d)->provenance.scope = "enc";
    g.node(d)->meta = f32({4, 16});
    NodeId e = g.addOp("aten::mul", {d, d}, {}, "square");
    g.node(e)->provenance.scope = "head";
    g.node(e)->meta = f32({4, 16});
    g.node(e)->provenance.source = {"model.py", 42, 8};
    g.node(e)->provenance.originalSpelling = "torch.mul";
    g.node(e)->overload = "Tensor";
    g.setOutputs({e});
    return g;
}

/// A model-like graph of blocks x units x opsPerUnit ops in scopes
/// "block{b}.unit{u}", each unit a chain of linear/relu with a weight constant,
/// each block ending in an add of its first and last values.
inline Graph blockGraph(int blocks, int units, int opsPerUnit)
{
    Graph g;
    NodeId cur = g.addInput("x", f32({8, 32}));
    for (int b = 0; b < blocks; ++b) {
        const std::string block = "block" + std::to_string(b);
        NodeId blockIn = cur;
        for (int u = 0; u < units; ++u) {
            const std::string scope = block + ".unit" + std::to_string(u);
            NodeId w = g.addConstant("w_" + std::to_string(b) + "_" + std::to_string(u),
                                     "w" + std::to_string(b * 1000 + u), f32({32, 32}));
            g.node(w)->provenance.scope = scope;
            for (int k = 0; k < opsPerUnit; ++k) {
                NodeId n = k % 2 == 0 ? g.addOp("aten::linear", {cur, w, NoneArg{}}) : g.addOp("aten::relu", {cur});
                g.node(n)->provenance.scope = scope;
                g.node(n)->meta = f32({8, 32});
                cur = n;
            }
        }
        NodeId add = g.addOp("aten::add", {cur, blockIn});
        g.node(add)->provenance.scope = block;
        g.node(add)->meta = f32({8, 32});
        cur = add;
    }
    g.setOutputs({cur});
    return g;
}

/// Collapsed-graph options that leave the constants out.
inline CollapsedGraph::Options withoutConstants()
{
    CollapsedGraph::Options options;
    options.showConstants = false;
    return options;
}

/// Waits until the scene has no layout running; false on timeout.
inline bool waitForLayout(const GraphScene &scene, int timeoutMs = 60000)
{
    return QTest::qWaitFor([&scene] { return !scene.isLayoutRunning(); }, timeoutMs);
}

} // namespace fusebox::viewtest
