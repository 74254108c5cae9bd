// normalization_aten_pass (post-grad; split_cat.py normalize_cat_default_aten,
// and since 2.14 normalize_split_default_aten and
// normalize_split_with_size_default_aten): every aten.cat becomes
// cat(tensors, dim=d), every split split_with_sizes(input, sections, dim=d),
// with d >= 0 written as a keyword.
//
// The keyword is the point: 2.14's split_cat_aten_pass and
// select_cat_aten_pass match CallFunction(aten.cat, ..., dim=Ignored()),
// which a cat with a positional dim fails (its argument count differs) and a
// cat without one matches with a dim their handlers read as None. So they
// fire only on cats this pass rewrote, as Inductor's do.
//
// Inductor rebuilds every cat it visits, one already in this form included,
// and counts it; Fusebox leaves such a cat as it is (a rewrite that changes
// nothing) and counts it the same. A split whose sections are uneven is left
// alone: 2.14 writes every section as split_size ([4, 4, 4] for 4, 4, 2), a
// split_with_sizes that fails when run.

#include "patterns/InductorProfile.h"
#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

#include "core/ir/GraphBuilder.h"

namespace fusebox::splitcat {
namespace {

struct NormalizationAtenPlan {
    std::vector<NodeId> nodes; // the cat or split
    std::vector<Arg> args;     // its arguments in the normal form
    int64_t dim = 0;
    bool toSplitWithSizes = false;
};

/// The pass looks its anchors up with graph.find_nodes(target=aten.cat.default)
/// (or split.Tensor, split_with_sizes.default): a call whose target is the
/// packet is not among them, so it is neither rewritten nor counted.
bool isDefaultOverload(const Node &n)
{
    return (n.overload.empty() || n.overload == "default") && !isPacketCall(n);
}

class NormalizationAten final : public PlannedPattern<NormalizationAtenPlan> {
public:
    NormalizationAten()
        : PlannedPattern("normalization_aten_pass", PassStage::PostGrad, 49,
                         {std::string(kCat), std::string(kSplit), std::string(kSplitWithSizes)},
                         "Rewrites every aten.cat to cat(tensors, dim=d) with d >= 0 written as a keyword, the form "
                         "Inductor 2.14's split_cat_aten_pass and select_cat_aten_pass match; under Inductor 2.14 "
                         "also every split to split_with_sizes(input, sections, dim=d).")
    {}

protected:
    std::optional<NormalizationAtenPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const Node &n = *graph.node(anchor);
        if (!require(trace, isPostGradAtenCall(graph, n), "the call is an ATen overload of a post-grad graph",
                     [&] {
                         return nodeRef(graph, anchor) + " is "
                                + (n.provenance.originalSpelling.empty() ? n.qualifiedOp() + " of a TorchScript model"
                                                                         : n.provenance.originalSpelling)
                                + ", which no post-grad pass sees";
                     },
                     {anchor}))
            return std::nullopt;
        if (isOp(n, kCat))
            return analyzeCat(graph, anchor, trace);
        if (!require(trace, follows(behaviour::kNormalizeAtenSplits), "the pass normalizes splits in this version",
                     [&] {
                         return nodeRef(graph, anchor)
                                + " is a split: this Inductor's normalization_aten_pass rewrites cats only (2.14 "
                                  "added normalize_split_default_aten)";
                     },
                     {anchor}))
            return std::nullopt;
        return analyzeSplit(graph, anchor, trace);
    }

    std::optional<NormalizationAtenPlan> analyzeCat(const Graph &graph, NodeId anchor, MatchTrace &trace) const
    {
        const Node &cat = *graph.node(anchor);
        if (!require(trace, isDefaultOverload(cat), "the cat is aten.cat.default",
                     [&] { return nodeRef(graph, anchor) + " is aten.cat." + cat.overload; }, {anchor}))
            return std::nullopt;
        auto tensors = readTensorList(graph, anchor, trace, "cat");
        if (!tensors)
            return std::nullopt;
        if (!checkMetaValid(graph, anchor, *tensors, trace))
            return std::nullopt;
        const int rank = cat.meta.rank();
        const Arg *written = argAt(cat, 1, "dim");
        std::optional<int64_t> dim = written ? written->asInt() : std::optional<int64_t>(0);
        if (!require(trace, dim.has_value(), "cat dim is an int",
                     [&] { return nodeRef(graph, anchor) + " has dim " + argText(graph, *written); }, {anchor}))
            return std::nullopt;
        if (*dim < 0)
            *dim += rank;
        NormalizationAtenPlan plan;
        plan.nodes = {anchor};
        plan.args = {cat.args()[0]};
        plan.dim = *dim;
        if (!require(trace, !inNormalForm(cat, plan), "the cat is not yet cat(tensors, dim=d) with d >= 0",
                     [&] {
                         return nodeRef(graph, anchor)
                                + " already is; Inductor rebuilds it anyway and counts it, Fusebox leaves it";
                     },
                     {anchor}))
            return std::nullopt;
        return plan;
    }

    std::optional<NormalizationAtenPlan> analyzeSplit(const Graph &graph, NodeId anchor, MatchTrace &trace) const
    {
        const Node &split = *graph.node(anchor);
        const bool withSizes = isOp(split, kSplitWithSizes);
        if (!require(trace, withSizes ? isDefaultOverload(split) : split.overload == "Tensor",
                     "the split is aten.split.Tensor or aten.split_with_sizes.default",
                     [&] { return nodeRef(graph, anchor) + " is " + split.qualifiedOp(); }, {anchor}))
            return std::nullopt;
        const NodeId input = nodeArgAt(split, 0, "self");
        const Node *in = graph.node(input);
        if (!require(trace, in != nullptr, "the split reads a tensor",
                     [&] { return nodeRef(graph, anchor) + " reads no node"; }, {anchor}))
            return std::nullopt;
        if (!require(trace, !split.inductorMeta.missing, "the split has recorded metadata (meta[\"val\"])",
                     [&] { return nodeRef(graph, anchor) + " has none (a rewrite before left it without)"; }, {anchor}))
            return std::nullopt;
        // _get_split_args_default: `get_arg_value(node, 2, "dim") or 0`.
        const Arg *written = argAt(split, 2, "dim");
        std::optional<int64_t> dim = written && !written->isNone() ? written->asInt() : std::optional<int64_t>(0);
        if (!require(trace, dim.has_value(), "split dim is an int",
                     [&] { return nodeRef(graph, anchor) + " has dim " + argText(graph, *written); }, {anchor}))
            return std::nullopt;
        const int rank = in->meta.rank();
        if (!requireShape(trace, *dim >= 0 || rank >= 0, "the split input's rank is known",
                          [&] { return nodeRef(graph, input) + " has an unknown shape"; }, {input}))
            return std::nullopt;
        if (*dim < 0)
            *dim += rank;
        NormalizationAtenPlan plan;
        plan.nodes = {anchor};
        plan.dim = *dim;
        plan.toSplitWithSizes = !withSizes;
        if (withSizes) {
            auto sections = intListArgAt(split, 1, "split_sizes");
            if (!require(trace, sections.has_value(), "split sizes are ints",
                         [&] { return nodeRef(graph, anchor) + " has symbolic or unread sizes"; }, {anchor}))
                return std::nullopt;
            plan.args = {input, split.args()[1]};
            if (!require(trace, !inNormalForm(split, plan),
                         "the split is not yet split_with_sizes(input, sizes, dim=d) with d >= 0",
                         [&] { return nodeRef(graph, anchor) + " already is"; }, {anchor}))
                return std::nullopt;
            return plan;
        }
        auto size = intArgAt(split, 1, "split_size");
        if (!require(trace, size.has_value() && *size > 0, "split size is a positive int",
                     [&] {
                         const Arg *a = argAt(split, 1, "split_size");
                         return nodeRef(graph, anchor) + " has split size " + (a ? argText(graph, *a) : "none");
                     },
                     {anchor}))
            return std::nullopt;
        auto shape = staticShape(*in);
        if (!requireShape(trace, shape && *dim < int64_t(shape->size()), "split input size along dim is static",
                          [&] {
                              return nodeRef(graph, input) + " has shape "
                                     + (in->meta.shape ? in->meta.shapeString() : std::string("unknown"));
                          },
                          {input}))
            return std::nullopt;
        const int64_t length = (*shape)[*dim];
        const int64_t count = length == 0 ? 1 : (length + *size - 1) / *size;
        const int64_t section = std::min(*size, length);
        if (!require(trace, section * count == length, "the sections are even",
                     [&] {
                         return nodeRef(graph, anchor) + " splits " + std::to_string(length) + " by "
                                + std::to_string(*size) + ": Inductor 2.14 would write " + std::to_string(count)
                                + " sections of " + std::to_string(section)
                                + ", which fails when run; Fusebox leaves it";
                     },
                     {anchor}))
            return std::nullopt;
        plan.args = {input, intList(std::vector<int64_t>(size_t(count), section))};
        return plan;
    }

    /// is_node_meta_valid for the cat and each of its tensors ("val" in meta).
    bool checkMetaValid(const Graph &graph, NodeId cat, const std::vector<NodeId> &tensors, MatchTrace &trace) const
    {
        std::vector<NodeId> all{cat};
        all.insert(all.end(), tensors.begin(), tensors.end());
        for (NodeId id : all) {
            const Node &t = *graph.node(id);
            if (!require(trace, !t.inductorMeta.missing, "the cat and its tensors have recorded metadata",
                         [&] { return nodeRef(graph, id) + " has none (a rewrite before left it without)"; }, {id}))
                return false;
            if (!requireShape(trace, t.meta.rank() >= 0, "the cat's and its tensors' ranks are known",
                              [&] { return nodeRef(graph, id) + " has an unknown shape"; }, {id}))
                return false;
        }
        return true;
    }

    /// Already args (tensors[, sections]) and kwargs {dim: d}: the form the pass writes.
    static bool inNormalForm(const Node &n, const NormalizationAtenPlan &plan)
    {
        const Arg *dim = n.kwarg("dim");
        return n.args() == plan.args && n.kwargs().size() == 1 && dim && dim->asInt() == plan.dim;
    }

    // Every cat (and, in 2.14, every split) is one match of one node,
    // whatever the handler does. A split in 2.6 is no pattern's.
    static InductorCounts visited() { return patternMatcherCounts(1); }

    InductorCounts countsOf(const Graph &graph, const NormalizationAtenPlan &plan) const override
    {
        return patternMatcherCounts(1, PlannedPattern::countsOf(graph, plan));
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        const Node &n = *graph.node(anchor);
        if (!isPostGradAtenCall(graph, n))
            return {};
        if (isOp(n, kCat)) {
            if (!isDefaultOverload(n))
                return {};
            // A cat in normal form is rebuilt and counted all the same;
            // any other failure returns before the counter.
            MatchTrace quiet;
            auto tensors = tensorList(n);
            if (!tensors || !checkMetaValid(graph, anchor, *tensors, quiet))
                return visited();
            InductorCounts counts = visited();
            if (auto d = intArgAt(n, 1, "dim"); d && *d >= 0 && n.kwarg("dim") && n.args().size() == 1)
                counts.added[name()] += 1;
            return counts;
        }
        if (!follows(behaviour::kNormalizeAtenSplits))
            return {};
        if (isOp(n, kSplitWithSizes) ? !isDefaultOverload(n) : n.overload != "Tensor")
            return {};
        return visited();
    }

    void apply(PatternRewriter &rewriter, const NormalizationAtenPlan &plan) const override
    {
        const NodeId id = plan.nodes.front();
        if (plan.toSplitWithSizes)
            rewriter.modify(id, [](Node &n) {
                n.op = std::string(kSplitWithSizes);
                n.overload.clear(); // the schema's default, as NodeBuilder writes it
            });
        rewriter.setArgs(id, plan.args, {NamedArg{"dim", Arg(plan.dim)}});
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeNormalizationAtenPass()
{
    return std::make_unique<NormalizationAten>();
}

} // namespace fusebox::splitcat
