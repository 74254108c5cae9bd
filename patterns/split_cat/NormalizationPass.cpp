// normalization_pass (split_cat.py normalize_*_default): one positional call
// form per op, so that the later rules need to recognise only one spelling.
//   split(x, 16, -1)            -> split_with_sizes(x, [16, 16, 16, 16], 1)
//   split_with_sizes(x, s)      -> split_with_sizes(x, s, 0)
//   unbind(x, dim=-1)           -> unbind.int(x, 2)
//   cat([a, b], -1)             -> cat([a, b], 1)        (stack likewise)
//   squeeze(x, [-1])            -> squeeze.dim(x, 2)
//   reshape(x, [-1, 4])         -> reshape(x, [8, 4])   (the static output shape)
//   clamp(x, min=0.0)           -> clamp(x, 0.0, None)
//   x.detach()                  -> torch.detach(x)       (the same ATen call, re-created as a function)
// Fires only when the call changes, so repeated application reaches a fixed point.

#include "SplitCatPatterns.h"

#include "core/ir/GraphBuilder.h"
#include "SplitCatUtils.h"
#include "patterns/InductorProfile.h"

#include <algorithm>
#include <set>

namespace fusebox::splitcat {
namespace {

struct NormalizationPassPlan {
    std::vector<NodeId> nodes;
    std::string op;
    std::string overload;
    std::vector<Arg> args;
    bool respelled = false; // a method call re-created as the function (x.detach() -> torch.detach(x))
};

std::string callText(const Graph &graph, std::string_view op, std::string_view overload, const std::vector<Arg> &args,
                     const std::vector<NamedArg> &kwargs = {})
{
    auto name = [&](NodeId id) { return nodeRef(graph, id); };
    std::string s = std::string(op) + (overload.empty() ? "" : "." + std::string(overload)) + "(";
    bool first = true;
    for (const Arg &a : args) {
        s += (first ? "" : ", ") + a.toString(name);
        first = false;
    }
    for (const NamedArg &kw : kwargs) {
        s += (first ? "" : ", ") + kw.name + "=" + kw.value.toString(name);
        first = false;
    }
    return s + ")";
}

class NormalizationPass final : public PlannedPattern<NormalizationPassPlan> {
public:
    NormalizationPass()
        : PlannedPattern("normalization_pass", PassStage::PreGrad, 100,
                         {"aten::split", "aten::split_with_sizes", "aten::unbind", "aten::cat", "aten::concat",
                          "aten::stack", "aten::squeeze", "aten::reshape", "aten::clamp", "aten::detach"},
                         "Rewrites split/unbind/cat/stack/squeeze/reshape/clamp into one positional form: "
                         "splits become split_with_sizes with the explicit list of sections, dims become "
                         "non-negative, reshape takes the static output shape; x.detach() becomes "
                         "torch.detach(x).")
    {}

protected:
    std::optional<NormalizationPassPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const Node &n = *graph.node(anchor);
        NormalizationPassPlan plan;
        plan.nodes = {anchor};
        bool ok = false;
        if (isSplitOp(n))
            ok = canonicalSplit(graph, n, trace, plan);
        else if (isOp(n, kUnbind))
            ok = canonicalDimOp(graph, n, trace, plan, "unbind", "input", n.meta.rank(), "int");
        else if (isOp(n, kConcat))
            ok = canonicalConcat(graph, n, trace, plan);
        else if (isOp(n, kCat) || isOp(n, kStack))
            ok = canonicalDimOp(graph, n, trace, plan, isOp(n, kCat) ? "cat" : "stack", "tensors",
                                isOp(n, kCat) ? catRank(graph, n) : stackRank(graph, n), {});
        else if (isOp(n, kSqueeze))
            ok = canonicalSqueeze(graph, n, trace, plan);
        else if (isOp(n, "aten::reshape"))
            ok = canonicalReshape(graph, n, trace, plan);
        else if (isOp(n, "aten::detach"))
            ok = canonicalDetach(graph, n, trace, plan);
        else
            ok = canonicalClamp(graph, n, trace, plan);
        if (!ok)
            return std::nullopt;

        const bool changes = plan.respelled || plan.op != n.op || plan.overload != n.overload || plan.args != n.args()
                             || !n.kwargs().empty();
        if (!require(trace, changes, "the call is not in canonical form yet",
                     [&] {
                         return nodeRef(graph, anchor)
                                + " is already canonical: " + callText(graph, n.op, n.overload, n.args());
                     },
                     {anchor}))
            return std::nullopt;
        return plan;
    }

    /// Inductor counts normalization_pass for splits, unbinds, cats and stacks
    /// only (squeeze, reshape, clamp and detach are normalized without a count).
    InductorCounts countsOf(const Graph &graph, const NormalizationPassPlan &plan) const override
    {
        InductorCounts counts;
        const Node &n = *graph.node(plan.nodes.front());
        if (isSplitOp(n) || isOp(n, kUnbind) || isOp(n, kCat) || isOp(n, kConcat) || isOp(n, kStack))
            counts.added[name()] = 1;
        return counts;
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        // The calls 2.6's normalization patterns match (CallFunctionVarArgs /
        // CallMethodVarArgs): each visit counts, whatever the handler does.
        static const std::set<std::string, std::less<>> kMatched = {"torch.split",    "torch.functional.split",
                                                                    "Tensor.split",   "torch.unbind",
                                                                    "Tensor.unbind",  "torch.cat",
                                                                    "torch.stack",    "Tensor.squeeze",
                                                                    "Tensor.reshape", "Tensor.clamp",
                                                                    "torch.clamp",    "Tensor.detach"};
        InductorCounts counts;
        const Node &n = *graph.node(anchor);
        const std::string &spelling = n.provenance.originalSpelling;
        if (!kMatched.contains(spelling) && !(spelling == "torch.concat" && follows(behaviour::kNormalizeConcat)))
            return counts;
        counts.added["pattern_matcher_count"] = 1;
        counts.added["pattern_matcher_nodes"] = 1;
        // normalize_unbind_default and normalize_stack_default re-create the
        // call even when it is normal already, and count it, once the values
        // they read have metadata.
        auto known = [&](NodeId id) { return graph.contains(id) && graph.node(id)->meta.rank() >= 0; };
        bool recreated = false;
        if (spelling.ends_with("unbind")) {
            recreated = known(nodeArgAt(n, 0, "input"));
        } else if (spelling == "torch.stack") {
            const auto tensors = tensorList(n);
            recreated = known(anchor) && tensors && std::all_of(tensors->begin(), tensors->end(), known);
        }
        if (recreated)
            counts.added[name()] = 1;
        return counts;
    }

    void apply(PatternRewriter &rewriter, const NormalizationPassPlan &plan) const override
    {
        const NodeId old = plan.nodes.front();
        const Node &n = *rewriter.graph().node(old);
        NodeBuilder build(rewriter, old, old);
        NodeId fresh = build.op(plan.op, plan.overload, plan.args, n.meta, n.type);
        const Provenance provenance = n.provenance;
        const InductorMeta recorded = n.inductorMeta;
        rewriter.modify(fresh, [&](Node &f) {
            f.provenance.scope = provenance.scope;
            f.provenance.source = provenance.source;
            if (rewriter.inductorMetadata())
                f.inductorMeta = recorded; // 2.6: new_node.meta.update(node.meta)
        });
        rewriter.replaceAllUsesWith(old, fresh);
        rewriter.erase(old);
    }

private:
    /// Rank of the first argument when it is a node.
    static int inputRank(const Graph &graph, const Node &n, std::string_view name)
    {
        NodeId in = nodeArgAt(n, 0, name);
        return in.isValid() ? graph.node(in)->meta.rank() : -1;
    }

    /// A stack's output rank: its meta's, else its first input's plus one.
    static int stackRank(const Graph &graph, const Node &n)
    {
        if (n.meta.rank() >= 0)
            return n.meta.rank();
        auto inputs = tensorList(n);
        if (!inputs || inputs->empty())
            return -1;
        const int r = graph.node(inputs->front())->meta.rank();
        return r < 0 ? -1 : r + 1;
    }

    /// dim made non-negative, recording the literal and rank checks.
    static std::optional<int64_t> normalizedDim(const Graph &graph, const Node &n, const Arg *dimArg, int rank,
                                                MatchTrace &trace)
    {
        std::optional<int64_t> dim = dimArg && !dimArg->isNone() ? dimArg->asInt() : std::optional<int64_t>(0);
        if (!require(trace, dim.has_value(), "dim is a literal int",
                     [&] { return nodeRef(graph, n.id()) + " has dim " + (dimArg ? argText(graph, *dimArg) : "0"); },
                     {n.id()}))
            return std::nullopt;
        if (*dim >= 0)
            return dim;
        if (!requireShape(trace, rank >= 0, "rank is known for a negative dim",
                          [&] {
                              return nodeRef(graph, n.id()) + " has dim " + std::to_string(*dim)
                                     + " and the rank is unknown (no shape metadata)";
                          },
                          {n.id()}))
            return std::nullopt;
        const auto d = normalizeDim(*dim, rank);
        if (!require(trace, d.has_value(), "dim is in range",
                     [&] { return "dim " + std::to_string(*dim) + " is out of range for rank " + std::to_string(rank); },
                     {n.id()}))
            return std::nullopt;
        return d;
    }

    static bool canonicalSplit(const Graph &graph, const Node &n, MatchTrace &trace, NormalizationPassPlan &plan)
    {
        const std::string_view sizeName = isOp(n, kSplit) ? "split_size" : "split_sizes";
        NodeId input = nodeArgAt(n, 0, "self");
        const Arg *sizes = argAt(n, 1, sizeName);
        if (!require(trace, input.isValid() && sizes, "split has an input and sizes",
                     [&] { return nodeRef(graph, n.id()) + " lacks its input or its sizes argument"; }, {n.id()}))
            return false;
        const Node &in = *graph.node(input);
        auto dim = normalizedDim(graph, n, argAt(n, 2, "dim"), in.meta.rank(), trace);
        if (!dim)
            return false;

        std::vector<int64_t> sections;
        if (sizes->isList()) {
            auto list = intListArgAt(n, 1, sizeName);
            if (!require(trace, list.has_value(), "split sections are literal ints",
                         [&] { return nodeRef(graph, n.id()) + " has sections " + argText(graph, *sizes); }, {n.id()}))
                return false;
            sections = *list;
        } else {
            auto size = sizes->asInt();
            if (!require(trace, size && *size > 0, "split_size is a positive literal int",
                         [&] { return nodeRef(graph, n.id()) + " has split_size " + argText(graph, *sizes); }, {n.id()}))
                return false;
            const bool known = in.meta.shape && *dim < in.meta.rank()
                               && std::holds_alternative<int64_t>((*in.meta.shape)[*dim]);
            if (!require(trace, known, "split input size along dim is static",
                         [&] {
                             return "input " + nodeRef(graph, input) + " has shape "
                                    + (in.meta.shape ? in.meta.shapeString() : std::string("unknown"))
                                    + ": the sections of split_size " + std::to_string(*size) + " along dim "
                                    + std::to_string(*dim) + " cannot be computed";
                         },
                         {input}))
                return false;
            const int64_t total = std::get<int64_t>((*in.meta.shape)[*dim]);
            for (int64_t done = 0; done < total; done += *size)
                sections.push_back(std::min(*size, total - done));
            if (sections.empty())
                sections.push_back(0);
        }
        plan.op = std::string(kSplitWithSizes);
        plan.overload.clear();
        plan.args = {input, intList(sections), *dim};
        return true;
    }

    static bool canonicalDimOp(const Graph &graph, const Node &n, MatchTrace &trace, NormalizationPassPlan &plan,
                               std::string_view what, std::string_view firstName, int rank,
                               std::optional<std::string> overload)
    {
        const Arg *first = argAt(n, 0, firstName);
        if (!require(trace, first != nullptr, std::string(what) + " has its " + std::string(firstName) + " argument",
                     [&] { return nodeRef(graph, n.id()) + " has no " + std::string(firstName); }, {n.id()}))
            return false;
        if (what == "unbind")
            rank = inputRank(graph, n, firstName);
        auto dim = normalizedDim(graph, n, argAt(n, 1, "dim"), rank, trace);
        if (!dim)
            return false;
        plan.op = n.op;
        plan.overload = overload ? *overload : n.overload;
        plan.args = {*first, *dim};
        return true;
    }

    /// torch.concat -> torch.cat(tensors, dim) with a non-negative dim: only
    /// Inductors that match torch.concat (2.14: CallFunctionVarArgs([torch.cat,
    /// torch.concat])); 2.6 leaves it, and its later passes see no cat in it.
    bool canonicalConcat(const Graph &graph, const Node &n, MatchTrace &trace, NormalizationPassPlan &plan) const
    {
        if (!require(trace, follows(behaviour::kNormalizeConcat),
                     "the call is torch.cat (this Inductor's normalization_pass does not match torch.concat)",
                     [&] { return nodeRef(graph, n.id()) + " is torch.concat"; }, {n.id()}))
            return false;
        if (!canonicalDimOp(graph, n, trace, plan, "cat", "tensors", catRank(graph, n), {}))
            return false;
        plan.op = std::string(kCat);
        return true;
    }

    static bool canonicalSqueeze(const Graph &graph, const Node &n, MatchTrace &trace, NormalizationPassPlan &plan)
    {
        const Arg *self = argAt(n, 0, "self");
        if (!require(trace, self != nullptr, "squeeze has its input",
                     [&] { return nodeRef(graph, n.id()) + " has no input"; }, {n.id()}))
            return false;
        plan.op = n.op;
        const Arg *dimArg = argAt(n, 1, "dim");
        if (!dimArg || dimArg->isNone()) {
            plan.overload.clear();
            plan.args = {*self};
            return true;
        }
        const int rank = inputRank(graph, n, "self");
        std::vector<int64_t> dims;
        if (const auto *items = dimArg->items()) {
            for (const Arg &item : *items) {
                auto d = normalizedDim(graph, n, &item, rank, trace);
                if (!d)
                    return false;
                dims.push_back(*d);
            }
        } else {
            auto d = normalizedDim(graph, n, dimArg, rank, trace);
            if (!d)
                return false;
            dims.push_back(*d);
        }
        if (dims.size() == 1) {
            plan.overload = "dim";
            plan.args = {*self, dims.front()};
        } else {
            plan.overload = "dims";
            plan.args = {*self, intList(dims)};
        }
        return true;
    }

    static bool canonicalReshape(const Graph &graph, const Node &n, MatchTrace &trace, NormalizationPassPlan &plan)
    {
        const Arg *self = argAt(n, 0, "self");
        if (!require(trace, self != nullptr, "reshape has its input",
                     [&] { return nodeRef(graph, n.id()) + " has no input"; }, {n.id()}))
            return false;
        plan.op = n.op;
        plan.overload = n.overload;
        auto literal = intListArgAt(n, 1, "shape");
        const bool explicitShape = literal && argAt(n, 1, "shape")->isList()
                                   && std::all_of(literal->begin(), literal->end(), [](int64_t v) { return v >= 0; });
        if (explicitShape) {
            plan.args = {*self, intList(*literal)};
            return true;
        }
        auto shape = staticShape(n);
        if (!require(trace, shape.has_value(), "reshape output shape is static",
                     [&] {
                         return nodeRef(graph, n.id()) + " has shape "
                                + (n.meta.shape ? n.meta.shapeString() : std::string("unknown"))
                                + ": its target shape cannot be made explicit";
                     },
                     {n.id()}))
            return false;
        plan.args = {*self, intList(*shape)};
        return true;
    }

    /// normalize_detach_default matches the method form only, and re-creates
    /// it as torch.detach once the node's metadata is known: after it the
    /// pre-grad batch_detach of 2.6 (which matches torch.detach alone) sees it.
    static bool canonicalDetach(const Graph &graph, const Node &n, MatchTrace &trace, NormalizationPassPlan &plan)
    {
        const Arg *self = argAt(n, 0, "self");
        if (!require(trace, self != nullptr, "detach has its input",
                     [&] { return nodeRef(graph, n.id()) + " has no input"; }, {n.id()}))
            return false;
        const std::string &spelling = n.provenance.originalSpelling;
        if (!require(trace, spelling == "Tensor.detach", "detach is called as the method x.detach()",
                     [&] {
                         return nodeRef(graph, n.id()) + " is called as "
                                + (spelling.empty() ? std::string("aten::detach (an ATen-level graph)") : spelling);
                     },
                     {n.id()}))
            return false;
        if (!require(trace, n.meta.rank() >= 0, "detach's output metadata is known",
                     [&] { return nodeRef(graph, n.id()) + " has no shape metadata"; }, {n.id()}))
            return false;
        plan.op = n.op;
        plan.overload = n.overload;
        plan.args = {*self};
        plan.respelled = true;
        return true;
    }

    static bool canonicalClamp(const Graph &graph, const Node &n, MatchTrace &trace, NormalizationPassPlan &plan)
    {
        const Arg *self = argAt(n, 0, "self");
        if (!require(trace, self != nullptr, "clamp has its input",
                     [&] { return nodeRef(graph, n.id()) + " has no input"; }, {n.id()}))
            return false;
        const Arg *min = argAt(n, 1, "min");
        const Arg *max = argAt(n, 2, "max");
        plan.op = n.op;
        plan.overload = n.overload;
        plan.args = {*self, min ? *min : Arg(NoneArg{}), max ? *max : Arg(NoneArg{})};
        return true;
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeNormalizationPass()
{
    return std::make_unique<NormalizationPass>();
}

} // namespace fusebox::splitcat
