#pragma once
// Small hand-built graphs shared by the test binaries.

#include "core/ir/GraphBuilder.h"
#include "core/ir/Graph.h"

namespace fusebox::test {

/// x[8, 64] -> split(16, dim 1) -> 4 getitems -> relu each -> cat(dim 1) -> output,
/// plus a linear on a weight constant. Mirrors an Optimus split/cat shape.
inline Graph splitReluCatGraph()
{
    Graph g;
    GraphBuilder build(g);
    TensorMeta in{DType::Float32, std::vector<Dim>{int64_t(8), int64_t(64)}, std::nullopt, "cpu"};
    NodeId x = build.addInput("x", in);
    NodeId w = build.addConstant("w", "w",
                                 TensorMeta{DType::Float32, std::vector<Dim>{int64_t(64), int64_t(64)}, {}, {}});
    NodeId split = build.addOp("aten::split", {x, int64_t(16), int64_t(1)});
    build.node(split).type = "Tensor[]";
    build.node(split).provenance.scope = "tower.split";
    std::vector<Arg> parts;
    for (int i = 0; i < 4; ++i) {
        NodeId item = build.addOp("getitem", {split, int64_t(i)});
        NodeId relu = build.addOp("aten::relu", {item});
        build.node(relu).meta = TensorMeta{DType::Float32, std::vector<Dim>{int64_t(8), int64_t(16)}, {}, {}};
        build.node(relu).provenance.scope = "tower.branch" + std::to_string(i);
        parts.push_back(relu);
    }
    NodeId cat = build.addOp("aten::cat", {Arg::list(parts), int64_t(1)});
    NodeId lin = build.addOp("aten::linear", {cat, w, NoneArg{}}, {}, "head");
    build.node(lin).meta = TensorMeta{DType::Float32, std::vector<Dim>{std::string("s0"), int64_t(64)},
                                      std::vector<int64_t>{64, 1}, "cpu"};
    build.node(lin).provenance.source = {"model.py", 12, 4};
    build.node(lin).provenance.originalSpelling = "torch.nn.functional.linear";
    build.setOutputs({lin});
    return g;
}

} // namespace fusebox::test
