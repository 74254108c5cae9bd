// remove_split_with_size_one_pass (split_cat.py remove_split_with_size_one):
// a split with a single section returns its input unchanged, so the readers
// of getitem(split, 0) read the input directly. Like PyTorch, it works on
// both spellings of split (sections from the list, or from split_size and the
// input's static shape). Like 2.6, a split whose recorded metadata a rewrite
// copied from an older split (Node::inductorMeta) counts that metadata's
// sections, and stays.

#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

namespace fusebox::splitcat {
namespace {

struct RemoveSplitWithSizeOnePlan {
    std::vector<NodeId> nodes; // split, then its getitems
    NodeId input;
};

class RemoveSplitWithSizeOne final : public PlannedPattern<RemoveSplitWithSizeOnePlan> {
public:
    RemoveSplitWithSizeOne()
        : PlannedPattern("remove_split_with_size_one_pass", PassStage::PreGrad, 95,
                         {"aten::split", "aten::split_with_sizes"},
                         "Removes a split with a single section: the readers of its only getitem read the "
                         "split's input instead.")
    {}

protected:
    std::optional<RemoveSplitWithSizeOnePlan> analyze(const Graph &graph, NodeId anchor,
                                                      MatchTrace &trace) const override
    {
        const Node &split = *graph.node(anchor);
        NodeId input = nodeArgAt(split, 0, "self");
        const Arg *sizes = argAt(split, 1, isOp(split, kSplit) ? "split_size" : "split_sizes");
        if (!require(trace, input.isValid() && sizes, "split has an input and sizes",
                     [&] { return nodeRef(graph, anchor) + " lacks its input or its sizes argument"; }, {anchor}))
            return std::nullopt;

        std::string unknown;
        auto sections = sectionsOf(graph, split, input, *sizes, unknown);
        if (!require(trace, sections.has_value(), "split sections are known", [&] { return unknown; }, {anchor}))
            return std::nullopt;
        if (!require(trace, sections->size() == 1, "split has exactly one section",
                     [&] {
                         return "split " + nodeRef(graph, anchor) + " has " + std::to_string(sections->size())
                                + " sections " + formatInts(*sections);
                     },
                     {anchor}))
            return std::nullopt;
        // 2.6 counts the sections in the split's example_value
        // (split_cat.py:237), which merge_getitem_cat leaves as the old
        // split's: such a split keeps its one section.
        if (split.inductorMeta.copiedItemCount
            && !require(trace, *split.inductorMeta.copiedItemCount == 1, "split's recorded example_value has one tensor",
                        [&] {
                            const std::string &by = split.provenance.createdBy;
                            return "split " + nodeRef(graph, anchor) + " has one section, but its example_value"
                                   + " holds " + std::to_string(*split.inductorMeta.copiedItemCount)
                                   + " tensors: " + (by.empty() ? std::string("a rewrite") : by)
                                   + " copied it from the split it replaced";
                        },
                        {anchor}))
            return std::nullopt;
        if (!require(trace, graph.useCount(anchor) > 0, "split has users",
                     [&] { return "split " + nodeRef(graph, anchor) + " has no users"; }, {anchor}))
            return std::nullopt;
        auto items = readGetItems(graph, anchor, trace, "split", int64_t(sections->size()));
        if (!items)
            return std::nullopt;

        RemoveSplitWithSizeOnePlan plan;
        plan.input = input;
        plan.nodes.push_back(anchor);
        for (const auto &[index, item] : *items)
            plan.nodes.push_back(item);
        return plan;
    }

    // 2.6's pattern is CallFunctionVarArgs(torch.split, users=MULTIPLE) (and
    // the method): every split the pass visits is a one-node match, counted
    // whatever remove_split_with_size_one then does.
    InductorCounts countsOf(const Graph &graph, const RemoveSplitWithSizeOnePlan &plan) const override
    {
        return patternMatcherCounts(1, PlannedPattern::countsOf(graph, plan));
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &, NodeId) const override
    {
        return patternMatcherCounts(1);
    }

    void apply(PatternRewriter &rewriter, const RemoveSplitWithSizeOnePlan &plan) const override
    {
        for (size_t i = 1; i < plan.nodes.size(); ++i)
            rewriter.replaceAllUsesWith(plan.nodes[i], plan.input);
        for (size_t i = 1; i < plan.nodes.size(); ++i)
            rewriter.erase(plan.nodes[i]);
        rewriter.erase(plan.nodes.front());
    }

private:
    /// The sections of either spelling; `why` says what is missing otherwise.
    static std::optional<std::vector<int64_t>> sectionsOf(const Graph &graph, const Node &split, NodeId input,
                                                          const Arg &sizes, std::string &why)
    {
        if (sizes.isList()) {
            auto list = intListArgAt(split, 1, isOp(split, kSplit) ? "split_size" : "split_sizes");
            if (!list)
                why = "split " + nodeRef(graph, split.id()) + " has sections " + argText(graph, sizes);
            return list;
        }
        auto size = sizes.asInt();
        const Node &in = *graph.node(input);
        auto dim = dimArg(split, 2, in.meta.rank());
        if (!size || *size <= 0 || !dim || !in.meta.shape || *dim >= in.meta.rank()
            || !std::holds_alternative<int64_t>((*in.meta.shape)[*dim])) {
            why = "split " + nodeRef(graph, split.id()) + " has split_size " + argText(graph, sizes) + " and input "
                  + nodeRef(graph, input) + " has shape "
                  + (in.meta.shape ? in.meta.shapeString() : std::string("unknown"));
            return std::nullopt;
        }
        const int64_t total = std::get<int64_t>((*in.meta.shape)[*dim]);
        std::vector<int64_t> sections;
        for (int64_t done = 0; done < total; done += *size)
            sections.push_back(std::min(*size, total - done));
        if (sections.empty())
            sections.push_back(0);
        return sections;
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeRemoveSplitWithSizeOnePass()
{
    return std::make_unique<RemoveSplitWithSizeOne>();
}

} // namespace fusebox::splitcat
