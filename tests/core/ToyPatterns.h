#pragma once
// Toy patterns and graphs for the driver tests: neg(neg(x)) -> x and a
// stack/relu/unbind fusion of equal-shaped relus, small enough to count by hand.

#include "core/ir/GraphBuilder.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/MatchUtils.h"

namespace fusebox::toy {

/// neg(neg(x)) -> x.
class DoubleNeg final : public VerticalPattern {
public:
    DoubleNeg()
        : VerticalPattern("double_neg", PassStage::PreGrad, 50, {"aten::neg"}, "neg(neg(x)) is x")
    {}
    std::optional<Match> match(const Graph &g, NodeId anchor, MatchTrace &trace) const override
    {
        NodeId inner = nodeArgAt(*g.node(anchor), 0, "self");
        const Node *in = g.node(inner);
        if (!trace.check(in && isOp(*in, "aten::neg"), "input is a neg",
                         [&] { return "input " + nodeRef(g, inner) + " is " + (in ? in->op : "?"); }, {inner}))
            return std::nullopt;
        if (!trace.check(g.useCount(inner) == 1, "inner neg used once",
                         [&] { return nodeRef(g, inner) + " has " + std::to_string(g.useCount(inner)) + " users"; }))
            return std::nullopt;
        return Match{name(), anchor, {anchor, inner}, {}, benefit()};
    }
    LogicalResult rewrite(PatternRewriter &r, const Match &m) const override
    {
        NodeId x = nodeArgAt(*r.graph().node(m.nodes[1]), 0, "self");
        r.replaceAndErase(m.anchor, x);
        return success();
    }
};

/// neg(neg(x)) -> x only where x is not a neg itself: in a chain it takes the
/// first pair, so a later pair matches only after an earlier rewrite.
class FirstDoubleNeg final : public VerticalPattern {
public:
    FirstDoubleNeg()
        : VerticalPattern("first_double_neg", PassStage::PreGrad, 50, {"aten::neg"}, "toy")
    {}
    std::optional<Match> match(const Graph &g, NodeId anchor, MatchTrace &trace) const override
    {
        NodeId inner = nodeArgAt(*g.node(anchor), 0, "self");
        const Node *in = g.node(inner);
        if (!trace.check(in && isOp(*in, "aten::neg"), "input is a neg", [] { return std::string(); }))
            return std::nullopt;
        const Node *x = g.node(nodeArgAt(*in, 0, "self"));
        if (!trace.check(!x || !isOp(*x, "aten::neg"), "the pair is the chain's first", [] { return std::string(); }))
            return std::nullopt;
        return Match{name(), anchor, {anchor, inner}, {}, benefit()};
    }
    LogicalResult rewrite(PatternRewriter &r, const Match &m) const override
    {
        r.replaceAndErase(m.anchor, nodeArgAt(*r.graph().node(m.nodes[1]), 0, "self"));
        return success();
    }
};

/// Toy horizontal rule: relus of equal shape -> stack, relu, unbind.
class BatchToyRelu final : public HorizontalPattern {
public:
    BatchToyRelu()
        : HorizontalPattern("batch_toy_relu", PassStage::PreGrad, 20, {"aten::relu"}, "toy")
    {}
    std::optional<std::string> key(const Graph &g, NodeId id, MatchTrace &trace) const override
    {
        const Node &n = *g.node(id);
        if (!trace.check(n.meta.hasStaticShape(), "shape known", [&] { return n.meta.toString(); }))
            return std::nullopt;
        return n.meta.toString();
    }
    LogicalResult fuse(PatternRewriter &r, const std::vector<NodeId> &group) const override
    {
        const Graph &g = r.graph();
        std::vector<Arg> inputs;
        for (NodeId m : group)
            inputs.push_back(g.node(m)->args()[0]);
        NodeId stack = r.createOp("aten::stack", {Arg::list(inputs), int64_t(0)}, {}, group.front());
        NodeId relu = r.createOp("aten::relu", {stack}, {}, group.front());
        NodeId unbind = r.createOp("aten::unbind", {relu, int64_t(0)}, {}, group.front());
        for (size_t i = 0; i < group.size(); ++i) {
            NodeId item = r.createOp("getitem", {unbind, int64_t(i)}, {}, group.front(), g.node(group[i])->meta);
            r.replaceAndErase(group[i], item);
        }
        return success();
    }
};

/// x -> 6 independent relus -> one neg(neg()) each -> cat.
inline Graph toyGraph(int branches = 6)
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4, 8}));
    std::vector<Arg> outs;
    for (int i = 0; i < branches; ++i) {
        NodeId r = build.addOp("aten::relu", {x});
        build.node(r).meta = f32({4, 8});
        NodeId n1 = build.addOp("aten::neg", {r});
        NodeId n2 = build.addOp("aten::neg", {n1});
        outs.push_back(n2);
    }
    NodeId cat = build.addOp("aten::cat", {Arg::list(outs), int64_t(0)});
    build.setOutputs({cat});
    return g;
}

inline PatternSet toySet()
{
    PatternSet set;
    set.add(std::make_unique<DoubleNeg>());
    set.add(std::make_unique<BatchToyRelu>());
    return set;
}

} // namespace fusebox::toy
