// split_cat_pass (split_cat.py simplify_split_cat and merge_split_squeeze),
// anchored at the split:
// - SplitCatSimplifier: the readers of the split's getitems read runs of
//   consecutive sections; each run becomes one section of a smaller split (or
//   the split disappears), cat/stack readers on another dim get
//   unflatten + movedim (+ flatten), their other inputs unsqueeze (a stack).
// - merge_split_squeeze: every section of size 1 and every reader a squeeze on
//   the split dim: the split is an unbind.

#include "SplitCatPatterns.h"
#include "SplitCatSimplifier.h"

namespace fusebox::splitcat {
namespace {

struct SplitCatPassPlan {
    std::vector<NodeId> nodes;
    bool squeeze = false;
    /// merge_split_squeeze: the split, and the squeeze reading each getitem.
    SplitView split;
    std::map<int64_t, NodeId> items;
    std::map<int64_t, NodeId> squeezes;
    /// SplitCatSimplifier.
    SimplifyPlan simplify;
};

SimplifierSource simplifierSource(const SplitView &split, std::map<int64_t, NodeId> items)
{
    SimplifierSource src;
    src.node = split.node;
    src.input = split.input;
    src.dim = split.dim;
    src.writtenDim = split.dim; // normalized splits only
    src.sections = split.sections;
    src.items = std::move(items);
    return src;
}

class SplitCatPass final : public PlannedPattern<SplitCatPassPlan> {
public:
    SplitCatPass()
        : PlannedPattern("split_cat_pass", PassStage::PreGrad, 82, {"aten::split_with_sizes", "aten::split"},
                         "Simplifies a split whose getitems are read in runs of consecutive sections: each run "
                         "becomes one section (the split disappears when one is left), cat/stack readers on "
                         "another dim get unflatten/movedim/flatten; a split into size-1 sections read only by "
                         "squeezes becomes an unbind.")
    {}

protected:
    std::optional<SplitCatPassPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        auto read = readSplitAndItems(graph, anchor, trace);
        if (!read)
            return std::nullopt;
        const SplitView &split = read->first;
        std::map<int64_t, NodeId> &items = read->second;
        const std::vector<NodeId> users = nextUsers(graph, items);
        if (!require(trace, !users.empty(), "the split's getitems are read",
                     [&] { return "no node reads the getitems of " + nodeRef(graph, anchor); }, {anchor}))
            return std::nullopt;

        const bool unitSections = std::all_of(split.sections.begin(), split.sections.end(),
                                              [](int64_t s) { return s == 1; });
        const bool allSqueeze = std::all_of(users.begin(), users.end(),
                                            [&](NodeId u) { return isOp(*graph.node(u), kSqueeze); });
        SplitCatPassPlan plan;
        plan.split = split;
        plan.items = items;
        if (unitSections && allSqueeze)
            return analyzeSqueeze(graph, std::move(plan), trace);

        auto simplify = analyzeSimplify(graph, simplifierSource(split, std::move(items)), trace);
        if (!simplify)
            return std::nullopt;
        plan.nodes = simplify->nodes;
        plan.simplify = std::move(*simplify);
        return plan;
    }

    InductorCounts countsOf(const Graph &graph, const SplitCatPassPlan &plan) const override
    {
        // 2.6 counts merge_split_squeeze as split_cat_pass, and the
        // simplifier's merges as unbind_stack_pass and scmerge_*.
        if (plan.squeeze)
            return PlannedPattern::countsOf(graph, plan);
        // 2.6 matches at the cat or stack: it, the first getitem of the
        // split in its list and the split (getitem_split, split_cat.py:1329).
        return patternMatcherCounts(3, simplifierCounts(graph, plan.simplify));
    }

    // 2.6 anchors split_cat_pass at the cats and stacks (getitem_split):
    // where this split is the one a reader's list pattern binds to, 2.6
    // counts a three-node match at that reader whether or not
    // simplify_split_cat then changes anything.
    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId split) const override
    {
        if (!isInductorTorchSplit(graph, split))
            return {};
        // Where that match reaches SplitCatSimplifier.simplify, its ranges
        // assign scmerge_split_sections_removed before a transform check
        // may stop it.
        return withSectionsRemoved(graph, listReaderMatchCounts(graph, split, inductorGetItemSplitSource), [&] {
            MatchTrace ignored;
            auto read = readSplitAndItems(graph, split, ignored);
            return read ? std::optional(simplifierSource(read->first, std::move(read->second))) : std::nullopt;
        });
    }

    void apply(PatternRewriter &rewriter, const SplitCatPassPlan &plan) const override
    {
        if (!plan.squeeze) {
            applySimplify(rewriter, plan.simplify);
            return;
        }
        const SplitView &split = plan.split;
        NodeBuilder build(rewriter, split.node, split.node);
        NodeId unbind = build.unbind(split.input, split.dim);
        for (const auto &[index, squeeze] : plan.squeezes) {
            const TensorMeta meta = rewriter.graph().node(squeeze)->meta;
            NodeId item = build.op(std::string(ops::kGetItem), {}, {unbind, index}, meta);
            rewriter.replaceAllUsesWith(squeeze, item);
            rewriter.eraseIfDead(squeeze);
        }
        rewriter.eraseIfDead(split.node);
    }

private:
    static std::optional<SplitCatPassPlan> analyzeSqueeze(const Graph &graph, SplitCatPassPlan plan, MatchTrace &trace)
    {
        std::vector<NodeId> items;
        for (const auto &[index, item] : plan.items)
            items.push_back(item);
        if (!checkUsedOnce(graph, items, trace))
            return std::nullopt;
        for (const auto &[index, item] : plan.items) {
            const NodeId squeeze = graph.users(item).front();
            const Node &sq = *graph.node(squeeze);
            const Arg *dimArgument = argAt(sq, 1, "dim");
            std::optional<int64_t> dim;
            if (dimArgument && dimArgument->asInt())
                dim = dimArg(sq, 1, graph.node(item)->meta.rank());
            if (!require(trace, dim && *dim == plan.split.dim, "every squeeze squeezes the split dim",
                         [&] {
                             return "squeeze " + nodeRef(graph, squeeze) + " has dim "
                                    + (dimArgument ? argText(graph, *dimArgument) : std::string("None"))
                                    + ", the split dim is " + std::to_string(plan.split.dim);
                         },
                         {squeeze}))
                return std::nullopt;
            plan.squeezes[index] = squeeze;
        }
        plan.squeeze = true;
        plan.nodes.push_back(plan.split.node);
        for (const auto &[index, item] : plan.items)
            plan.nodes.push_back(item);
        for (const auto &[index, squeeze] : plan.squeezes)
            plan.nodes.push_back(squeeze);
        return plan;
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeSplitCatPass()
{
    return std::make_unique<SplitCatPass>();
}

} // namespace fusebox::splitcat
