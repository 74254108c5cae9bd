// einsum_to_pointwise_pass (Inductor 2.14, split_cat.py
// replace_einsum_to_pointwise): an einsum of two tensors of the form
// "abc,abcd->abd" (input and weights share their first three letters, the
// result keeps the weights' last) that some `+` reads becomes a broadcast
// multiply and a sum:
//   torch.einsum("bij,bijk->bik", x, w) + b  =>  (x.unsqueeze(-1) * w).sum(-2) + b
// Inductor traces the replacement with make_fx, so the new nodes are ATen
// calls (unsqueeze.default, mul.Tensor, sum.dim_IntList) even before grad.

#include "NodeBuilder.h"
#include "PlannedPattern.h"
#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

#include <algorithm>

namespace fusebox::splitcat {
namespace {

struct EinsumToPointwisePlan {
    std::vector<NodeId> nodes; // the einsum
    NodeId input, weights;
};

/// match_einsum_strings: "3 letters, 4 letters -> 3 letters", the three
/// sharing their first two letters, the first two their third, the last two
/// their last.
bool isPointwiseEquation(std::string equation)
{
    std::string normalized;
    for (size_t i = 0; i < equation.size(); ++i)
        normalized += equation.compare(i, 2, "->") == 0 ? (++i, ',') : equation[i];
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t comma; (comma = normalized.find(',', start)) != std::string::npos; start = comma + 1)
        parts.push_back(normalized.substr(start, comma - start));
    parts.push_back(normalized.substr(start));
    for (std::string &p : parts) {
        const auto first = p.find_first_not_of(" \t"), last = p.find_last_not_of(" \t");
        p = first == std::string::npos ? std::string() : p.substr(first, last - first + 1);
    }
    if (parts.size() != 3 || parts[0].size() != 3 || parts[1].size() != 4 || parts[2].size() != 3)
        return false;
    const std::string &s1 = parts[0], &s2 = parts[1], &s3 = parts[2];
    return s1.substr(0, 2) == s2.substr(0, 2) && s2.substr(0, 2) == s3.substr(0, 2) && s1[2] == s2[2] && s2[3] == s3[2];
}

class EinsumToPointwise final : public PlannedPattern<EinsumToPointwisePlan> {
public:
    EinsumToPointwise()
        : PlannedPattern("einsum_to_pointwise_pass", PassStage::PreGrad, 40,
                         {"torch.functional.einsum", "torch.einsum"},
                         "Inductor 2.14: replaces torch.einsum(\"abc,abcd->abd\", x, w) that a + reads by "
                         "(x.unsqueeze(-1) * w).sum(-2).")
    {}

protected:
    std::optional<EinsumToPointwisePlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const Node &einsum = *graph.node(anchor);
        const auto &args = einsum.args();
        if (!require(trace, args.size() == 3 && einsum.kwargs().empty(), "einsum has an equation and two operands",
                     [&] { return nodeRef(graph, anchor) + " has " + std::to_string(args.size()) + " arguments"; },
                     {anchor}))
            return std::nullopt;
        EinsumToPointwisePlan plan;
        plan.nodes = {anchor};
        plan.input = args[1].isNode() ? args[1].node() : NodeId();
        plan.weights = args[2].isNode() ? args[2].node() : NodeId();
        if (!require(trace, plan.input.isValid() && plan.weights.isValid(), "both operands are tensors",
                     [&] { return nodeRef(graph, anchor) + " has a literal operand"; }, {anchor}))
            return std::nullopt;
        for (NodeId operand : {plan.input, plan.weights})
            if (!requireShape(trace, graph.node(operand)->meta.shape.has_value(), "operand has example_value metadata",
                              [&] { return nodeRef(graph, operand) + " has no recorded shape"; }, {operand}))
                return std::nullopt;
        bool addUser = false;
        graph.forEachUse(anchor, [&](NodeId user) {
            const Node &u = *graph.node(user);
            const std::string &spelled = u.provenance.originalSpelling;
            addUser = addUser || (u.op == "aten::add" && (spelled == "operator.add" || spelled == "Tensor.add"));
        });
        if (!require(trace, addUser, "some user is a + (operator.add or x.add)",
                     [&] { return "no user of " + nodeRef(graph, anchor) + " adds to it"; }, {anchor}))
            return std::nullopt;
        const auto *equation = std::get_if<std::string>(&args[0].value);
        if (!require(trace, equation && isPointwiseEquation(*equation),
                     "the equation is \"abc,abcd->abd\" in form (match_einsum_strings)",
                     [&] { return "the equation is " + argText(graph, args[0]); }, {anchor}))
            return std::nullopt;
        return plan;
    }

    // CallFunctionVarArgs(torch.functional.einsum): every einsum the pass
    // visits is a one-node match, counted whether or not it is replaced.
    InductorCounts countsOf(const Graph &graph, const EinsumToPointwisePlan &plan) const override
    {
        return patternMatcherCounts(1, PlannedPattern::countsOf(graph, plan));
    }
    InductorCounts inductorCountsWithoutRewrite(const Graph &, NodeId) const override
    {
        return patternMatcherCounts(1);
    }

    void apply(PatternRewriter &rewriter, const EinsumToPointwisePlan &plan) const override
    {
        const NodeId einsum = plan.nodes.front();
        NodeBuilder build(rewriter, einsum, einsum);
        const NodeId unsqueezed = build.unsqueeze(plan.input, -1);
        const Graph &graph = rewriter.graph();
        TensorMeta productMeta = graph.node(plan.weights)->meta;
        const auto a = graph.node(unsqueezed)->meta.shape, b = productMeta.shape;
        if (a && b && a->size() == b->size())
            for (size_t i = 0; i < a->size(); ++i)
                if ((*b)[i] == Dim(int64_t(1)))
                    (*productMeta.shape)[i] = (*a)[i];
        productMeta.strides.reset();
        productMeta.dtype = graph.node(einsum)->meta.dtype;
        const NodeId product = build.op("aten::mul", "Tensor", {unsqueezed, plan.weights}, productMeta);
        const NodeId sum = build.op("aten::sum", "dim_IntList", {product, Arg::list({Arg(int64_t(-2))})},
                                    graph.node(einsum)->meta);
        rewriter.replaceAllUsesWith(einsum, sum);
        rewriter.erase(einsum);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeEinsumToPointwisePass()
{
    return std::make_unique<EinsumToPointwise>();
}

} // namespace fusebox::splitcat
