#pragma once
// Hand-built graphs and waiting helpers for the [views] tests.

#include "core/ir/GraphBuilder.h"
#include "core/ir/Graph.h"
#include "views/GraphScene.h"

#include <QtTest/QTest>

#include <string>

namespace fusebox::viewtest {

/// x -> enc{fc1: linear(x, w), act: relu, fc2: linear, add(fc2, relu)} -> head{mul(d, d)} -> output.
/// Scopes: "enc.fc1", "enc.act", "enc.fc2", "enc" (the add), "head".
inline Graph encoderGraph()
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4, 16}, "cpu"));
    NodeId w = build.addConstant("w", "w", f32({16, 16}, "cpu"));
    build.node(w).provenance.scope = "enc.fc1";
    NodeId a = build.addOp("aten::linear", {x, w, NoneArg{}}, {}, "fc1");
    build.node(a).provenance.scope = "enc.fc1";
    build.node(a).meta = f32({4, 16}, "cpu");
    NodeId b = build.addOp("aten::relu", {a}, {}, "act");
    build.node(b).provenance.scope = "enc.act";
    build.node(b).meta = f32({4, 16}, "cpu");
    NodeId w2 = build.addConstant("w2", "w2", f32({16, 16}, "cpu"));
    build.node(w2).provenance.scope = "enc.fc2";
    NodeId c = build.addOp("aten::linear", {b, w2, NoneArg{}}, {}, "fc2");
    build.node(c).provenance.scope = "enc.fc2";
    build.node(c).meta = f32({4, 16}, "cpu");
    NodeId d = build.addOp("aten::add", {c, b}, {}, "residual");
    build.node(d).provenance.scope = "enc";
    build.node(d).meta = f32({4, 16}, "cpu");
    NodeId e = build.addOp("aten::mul", {d, d}, {}, "square");
    build.node(e).provenance.scope = "head";
    build.node(e).meta = f32({4, 16}, "cpu");
    build.node(e).provenance.source = {"model.py", 42, 8};
    build.node(e).provenance.originalSpelling = "torch.mul";
    build.node(e).overload = "Tensor";
    build.setOutputs({e});
    return g;
}

/// A model-like graph of blocks x units x opsPerUnit ops in scopes
/// "block{b}.unit{u}", each unit a chain of linear/relu with a weight constant,
/// each block ending in an add of its first and last values.
inline Graph blockGraph(int blocks, int units, int opsPerUnit)
{
    Graph g;
    GraphBuilder build(g);
    NodeId cur = build.addInput("x", f32({8, 32}, "cpu"));
    for (int b = 0; b < blocks; ++b) {
        const std::string block = "block" + std::to_string(b);
        NodeId blockIn = cur;
        for (int u = 0; u < units; ++u) {
            const std::string scope = block + ".unit" + std::to_string(u);
            NodeId w = build.addConstant("w_" + std::to_string(b) + "_" + std::to_string(u),
                                         "w" + std::to_string(b * 1000 + u), f32({32, 32}, "cpu"));
            build.node(w).provenance.scope = scope;
            for (int k = 0; k < opsPerUnit; ++k) {
                NodeId n = k % 2 == 0 ? build.addOp("aten::linear", {cur, w, NoneArg{}})
                                      : build.addOp("aten::relu", {cur});
                build.node(n).provenance.scope = scope;
                build.node(n).meta = f32({8, 32}, "cpu");
                cur = n;
            }
        }
        NodeId add = build.addOp("aten::add", {cur, blockIn});
        build.node(add).provenance.scope = block;
        build.node(add).meta = f32({8, 32}, "cpu");
        cur = add;
    }
    build.setOutputs({cur});
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
