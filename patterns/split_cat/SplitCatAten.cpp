// Inductor 2.14's post-grad cat rules (split_cat.py merge_split_cat_aten and
// merge_select_cat_aten), both on CallFunction(aten.cat.default, ListOf(...,
// partial=True), dim=Ignored()):
//
// - split_cat_aten_pass: in a cat, a run of getitems reading consecutive
//   sections of a split_with_sizes becomes one slice of the split's input (at
//   least threshold_to_cat getitems, default 10) or the input itself (every
//   section); the cat must take threshold_to_cat tensors or more.
// - select_cat_aten_pass: a cat of x.select(d, i) for i = 0..n-1 along d,
//   n being x's size along d and x read by these selects alone, becomes
//   x.view(cat's shape).
//
// Both patterns take the cat's dim by keyword only: a cat with a positional
// dim fails them, one without a dim matches with a dim the handlers read as
// None. So they fire after normalization_aten_pass, as in Inductor. The list
// pattern binds its first matching item only (the items share a pattern with
// _users=MULTIPLE): a match is the cat and that item (and the item's split),
// and the handler works from that item, on every cat that reads it.
//
// Where the handler would write a wrong graph (a run whose getitems are not
// side by side in the list, so that what lies between is dropped; a cat whose
// selects read another tensor), or fail (a getitem of a node without
// sections), Fusebox leaves the cat and says why.

#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

#include "core/ir/GraphBuilder.h"

#include <algorithm>
#include <numeric>

namespace fusebox::splitcat {
namespace {

bool isDefaultCat(const Node &n)
{
    return isOp(n, kCat) && (n.overload.empty() || n.overload == "default");
}

/// The cat as the post-grad pattern's target: aten.cat.default of a PT2 graph.
bool isPostGradCat(const Graph &graph, const Node &n)
{
    return isDefaultCat(n) && isPostGradAtenCall(graph, n);
}

bool isSplitWithSizes(const Node &n)
{
    return isOp(n, kSplitWithSizes) && (n.overload.empty() || n.overload == "default");
}

bool isSelectInt(const Node &n)
{
    // A batch fusion's select calls the packet, which the pattern's
    // CallFunctionVarArgs(aten.select.int) does not match.
    return isOp(n, "aten::select") && (n.overload.empty() || n.overload == "int") && !isPacketCall(n);
}

/// CallFunction(aten.cat.default, <list>, dim=Ignored()): one argument, the
/// list, and the dim (if any) by keyword. Records the check.
bool catTakesDimByKeyword(const Graph &graph, NodeId cat, MatchTrace &trace)
{
    const Node &n = *graph.node(cat);
    if (!require(trace, isPostGradCat(graph, n), "the cat is aten.cat.default of a post-grad graph",
                 [&] {
                     return nodeRef(graph, cat) + " is "
                            + (n.provenance.originalSpelling.empty() ? n.qualifiedOp() : n.provenance.originalSpelling)
                            + (isDefaultCat(n) ? ", which no post-grad pass sees" : "");
                 },
                 {cat}))
        return false;
    return require(trace, n.args().size() == 1, "the cat's dim is a keyword (cat(tensors, dim=d))",
                   [&] {
                       return nodeRef(graph, cat)
                              + " has its dim written positionally, which the pattern does not match: run "
                                "normalization_aten_pass first, as Inductor needs";
                   },
                   {cat});
}

/// The cat's dim as get_arg_value(cat, 1, "dim") reads it: nullopt when absent.
std::optional<Arg> writtenDim(const Node &n)
{
    const Arg *a = argAt(n, 1, "dim");
    return a ? std::optional<Arg>(*a) : std::nullopt;
}

std::string dimText(const Graph &graph, const std::optional<Arg> &dim)
{
    return dim ? argText(graph, *dim) : std::string("None");
}

// --- split_cat_aten_pass -------------------------------------------------------

/// One item of a cat's new list.
struct Part {
    enum class Kind { Keep, Whole, Slice } kind = Kind::Keep;
    NodeId node; ///< Keep: the item; Whole/Slice: the split's input
    int64_t dim = 0, start = 0, end = 0;
};

struct CatEdit {
    NodeId cat;
    std::vector<Part> parts;
    bool changed = false;
};

struct SplitPlan {
    std::vector<NodeId> nodes; // the cats edited, the split and its getitems
    NodeId split;
    std::vector<NodeId> getitems;
    std::vector<CatEdit> edits; // every cat the handler goes through (its counter)
};

/// The split_with_sizes source of the first list item that is
/// getitem(split_with_sizes, i); invalid when none.
NodeId boundSplitItem(const Graph &graph, const std::vector<NodeId> &items)
{
    for (NodeId item : items) {
        NodeId source;
        if (isGetItem(graph, item, &source) && isSplitWithSizes(*graph.node(source)))
            return item;
    }
    return {};
}

class SplitCatAten final : public PlannedPattern<SplitPlan> {
public:
    SplitCatAten()
        : PlannedPattern("split_cat_aten_pass", PassStage::PostGrad, 48, {std::string(kCat)},
                         "In cats of at least threshold_to_cat tensors, replaces a run of getitems reading "
                         "consecutive sections of a split_with_sizes by the split's input (every section) or one "
                         "slice of it (at least threshold_to_cat getitems); the cats' dim must be a keyword.")
    {
        options().set("threshold_to_cat", int64_t(10));
    }

protected:
    std::optional<SplitPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        if (!catTakesDimByKeyword(graph, anchor, trace))
            return std::nullopt;
        auto items = readTensorList(graph, anchor, trace, "cat");
        if (!items)
            return std::nullopt;
        const NodeId item = boundSplitItem(graph, *items);
        if (!require(trace, item.isValid(), "a cat input is a getitem of a split_with_sizes",
                     [&] { return nodeRef(graph, anchor) + " takes " + formatNodes(graph, *items); }, {anchor}))
            return std::nullopt;
        SplitPlan plan;
        plan.split = nodeArgAt(*graph.node(item), 0, "self");
        plan.getitems = graph.users(plan.split);
        const int64_t threshold = options().getInt("threshold_to_cat", 10);
        for (NodeId user : graph.users(plan.getitems.front())) {
            const Node &u = *graph.node(user);
            auto list = tensorList(u);
            if (!list)
                continue; // len() of a non-list: the handler's `continue`
            if (!require(trace, isDefaultCat(u), "every list-taking reader of the split's first getitem is a cat",
                         [&] {
                             return nodeRef(graph, user) + " (" + opText(u)
                                    + ") reads it: Inductor 2.14 would rewrite its list as a cat's; Fusebox "
                                      "leaves the pass here";
                         },
                         {user}))
                return std::nullopt;
            if (int64_t(list->size()) < threshold)
                continue;
            auto edit = planCat(graph, user, *list, threshold, trace);
            if (!edit)
                return std::nullopt;
            plan.edits.push_back(std::move(*edit));
        }
        const bool changed = std::any_of(plan.edits.begin(), plan.edits.end(),
                                         [](const CatEdit &e) { return e.changed; });
        if (!require(trace, changed, "a run of getitems merges into the split's input or a slice",
                     [&] {
                         return plan.edits.empty()
                                    ? "no cat reading " + nodeRef(graph, plan.getitems.front()) + " takes "
                                          + std::to_string(threshold) + " tensors or more (threshold_to_cat)"
                                    : "no run covers every section or threshold_to_cat = " + std::to_string(threshold)
                                          + " getitems";
                     },
                     {anchor}))
            return std::nullopt;
        for (const CatEdit &e : plan.edits)
            plan.nodes.push_back(e.cat);
        plan.nodes.push_back(plan.split);
        plan.nodes.insert(plan.nodes.end(), plan.getitems.begin(), plan.getitems.end());
        return plan;
    }

    /// merge_split_cat_aten's loop body on one cat.
    std::optional<CatEdit> planCat(const Graph &graph, NodeId cat, const std::vector<NodeId> &inputs, int64_t threshold,
                                   MatchTrace &trace) const
    {
        struct Run {
            NodeId parent;
            std::vector<int64_t> indices;
            std::vector<size_t> positions; // in the cat's list
        };
        std::vector<NodeId> parents; // in order of first appearance (a dict's keys)
        std::vector<Run> runs;
        const std::optional<Arg> catDim = writtenDim(*graph.node(cat));
        std::optional<Arg> lastSplitDim;
        bool stopped = false;
        for (size_t i = 0; i < inputs.size(); ++i) {
            NodeId parent;
            int64_t index = 0;
            if (!isGetItem(graph, inputs[i], &parent, &index))
                continue;
            const Node &p = *graph.node(parent);
            const Arg *d = argAt(p, 2, "dim");
            lastSplitDim = d ? std::optional<Arg>(*d) : std::nullopt;
            if (lastSplitDim != catDim) {
                stopped = true;
                break;
            }
            auto last = std::find_if(runs.rbegin(), runs.rend(), [&](const Run &r) { return r.parent == parent; });
            if (last == runs.rend() || index != last->indices.back() + 1) {
                if (std::find(parents.begin(), parents.end(), parent) == parents.end())
                    parents.push_back(parent);
                runs.push_back({parent, {index}, {i}});
            } else {
                last->indices.push_back(index);
                last->positions.push_back(i);
            }
        }
        CatEdit edit;
        edit.cat = cat;
        struct Replace {
            Part part;
            size_t first, last;
        };
        std::vector<Replace> replaced; // in the handler's order: by parent, then run
        for (NodeId parent : parents)
            for (const Run &run : runs) {
                if (run.parent != parent)
                    continue;
                const Node &p = *graph.node(parent);
                auto sections = intListArgAt(p, 1, "split_sizes");
                if (!require(trace, sections.has_value() && isOp(p, kSplitWithSizes),
                             "every getitem the cat merges reads a split with sizes",
                             [&] {
                                 return nodeRef(graph, parent) + " (" + opText(p)
                                        + ") has no list of sections, on which Inductor 2.14 fails";
                             },
                             {parent}))
                    return std::nullopt;
                const int64_t n = int64_t(run.indices.size());
                if (n < threshold && n != int64_t(sections->size()))
                    continue;
                Part part;
                part.node = nodeArgAt(p, 0, "self");
                if (n == int64_t(sections->size())) {
                    part.kind = Part::Kind::Whole;
                } else {
                    auto dim = lastSplitDim ? lastSplitDim->asInt() : std::nullopt;
                    if (!require(trace, !stopped && dim.has_value(), "the slice's dim is the split's",
                                 [&] {
                                     return "the scan of " + nodeRef(graph, cat) + " stopped at a split on dim "
                                            + dimText(graph, lastSplitDim) + ", which Inductor 2.14 would slice on";
                                 },
                                 {cat}))
                        return std::nullopt;
                    const int64_t first = run.indices.front(), last = run.indices.back();
                    part.kind = Part::Kind::Slice;
                    part.dim = *dim;
                    part.start = std::accumulate(sections->begin(), sections->begin() + first, int64_t(0));
                    part.end = std::accumulate(sections->begin(), sections->begin() + last + 1, int64_t(0));
                }
                // cat_inputs_list.index(): the first place each end item appears.
                const size_t first = size_t(std::find(inputs.begin(), inputs.end(), inputs[run.positions.front()])
                                            - inputs.begin());
                const size_t last = size_t(std::find(inputs.begin(), inputs.end(), inputs[run.positions.back()])
                                           - inputs.begin());
                if (!require(trace, last - first + 1 == run.positions.size() && first == run.positions.front(),
                             "each merged run sits side by side in the cat's list",
                             [&] {
                                 return nodeRef(graph, cat) + ": the getitems of " + nodeRef(graph, parent) + " at "
                                        + formatInts({int64_t(first), int64_t(last)})
                                        + " enclose other inputs, which Inductor 2.14 would drop";
                             },
                             {cat}))
                    return std::nullopt;
                replaced.push_back({part, first, last});
            }
        for (size_t k = 1; k < replaced.size(); ++k)
            if (!require(trace, replaced[k].first > replaced[k - 1].last, "merged runs come in list order",
                         [&] {
                             return nodeRef(graph, cat)
                                    + ": a later split's run comes first in the list, which Inductor 2.14 would "
                                      "write twice";
                         },
                         {cat}))
                return std::nullopt;
        size_t i = 0;
        for (const Replace &r : replaced) {
            for (; i < r.first; ++i)
                edit.parts.push_back({Part::Kind::Keep, inputs[i]});
            edit.parts.push_back(r.part);
            i = r.last + 1;
        }
        for (; i < inputs.size(); ++i)
            edit.parts.push_back({Part::Kind::Keep, inputs[i]});
        edit.changed = !replaced.empty();
        return edit;
    }

    InductorCounts countsOf(const Graph &graph, const SplitPlan &plan) const override
    {
        (void)graph;
        InductorCounts counts = patternMatcherCounts(3);
        counts.added[name()] = plan.edits.size();
        return counts;
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        const Node &n = *graph.node(anchor);
        auto items = tensorList(n);
        if (!isPostGradCat(graph, n) || n.args().size() != 1 || !items || !boundSplitItem(graph, *items).isValid())
            return {};
        // The handler counts every cat it went through, also when it
        // merged nothing; a refusal above (Fusebox's) counts the match alone.
        MatchTrace quiet;
        InductorCounts counts = patternMatcherCounts(3);
        const NodeId item = boundSplitItem(graph, *items);
        const NodeId split = nodeArgAt(*graph.node(item), 0, "self");
        const int64_t threshold = options().getInt("threshold_to_cat", 10);
        size_t through = 0;
        for (NodeId user : graph.users(graph.users(split).front())) {
            auto list = tensorList(*graph.node(user));
            if (!list || int64_t(list->size()) < threshold)
                continue;
            if (!isDefaultCat(*graph.node(user)) || !planCat(graph, user, *list, threshold, quiet))
                return counts;
            ++through;
        }
        if (through)
            counts.added[name()] = through;
        return counts;
    }

    void apply(PatternRewriter &rewriter, const SplitPlan &plan) const override
    {
        for (const CatEdit &e : plan.edits) {
            if (!e.changed)
                continue;
            const Node &cat = *rewriter.graph().node(e.cat);
            NodeBuilder build(rewriter, e.cat, e.cat);
            std::vector<NodeId> items;
            for (const Part &p : e.parts)
                items.push_back(p.kind == Part::Kind::Slice ? build.slice(p.node, p.dim, p.start, p.end) : p.node);
            std::vector<NamedArg> kwargs = cat.kwargs();
            rewriter.setArgs(e.cat, {nodeList(items)}, std::move(kwargs));
        }
        for (NodeId g : plan.getitems)
            if (rewriter.graph().contains(g) && rewriter.graph().users(g).empty())
                rewriter.erase(g);
        if (rewriter.graph().users(plan.split).empty())
            rewriter.erase(plan.split);
    }
};

// --- select_cat_aten_pass ------------------------------------------------------

struct SelectPlan {
    std::vector<NodeId> nodes; // the cats replaced, then the selects
    NodeId input, firstSelect;
    std::vector<NodeId> selects;                               // every reader of input
    std::vector<std::pair<NodeId, std::vector<int64_t>>> cats; // each cat and its shape
};

NodeId boundSelect(const Graph &graph, const std::vector<NodeId> &items)
{
    for (NodeId item : items)
        if (isSelectInt(*graph.node(item)))
            return item;
    return {};
}

class SelectCatAten final : public PlannedPattern<SelectPlan> {
public:
    SelectCatAten()
        : PlannedPattern("select_cat_aten_pass", PassStage::PostGrad, 47, {std::string(kCat)},
                         "Replaces cat(x.select(d, 0), ..., x.select(d, n-1), dim=d), n being x's size along d "
                         "and x read by these selects alone, by x.view(the cat's shape); the cat's dim must be a "
                         "keyword.")
    {}

protected:
    std::optional<SelectPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        if (!catTakesDimByKeyword(graph, anchor, trace))
            return std::nullopt;
        auto items = readTensorList(graph, anchor, trace, "cat");
        if (!items)
            return std::nullopt;
        SelectPlan plan;
        plan.firstSelect = boundSelect(graph, *items);
        if (!require(trace, plan.firstSelect.isValid(), "a cat input is an aten.select.int",
                     [&] { return nodeRef(graph, anchor) + " takes " + formatNodes(graph, *items); }, {anchor}))
            return std::nullopt;
        plan.input = nodeArgAt(*graph.node(plan.firstSelect), 0, "self");
        plan.selects = graph.users(plan.input);
        for (NodeId user : graph.users(plan.firstSelect)) {
            if (!isDefaultCat(*graph.node(user)))
                continue;
            auto shape = planCat(graph, plan, user, trace);
            if (!shape)
                return std::nullopt;
            if (shape->empty())
                continue; // the handler's `continue`
            plan.cats.push_back({user, *shape});
        }
        if (!require(trace, !plan.cats.empty(), "the selects cover x along the cat's dim, in order",
                     [&] { return "no cat reading " + nodeRef(graph, plan.firstSelect) + " qualifies"; }, {anchor}))
            return std::nullopt;
        for (const auto &[cat, shape] : plan.cats)
            plan.nodes.push_back(cat);
        plan.nodes.insert(plan.nodes.end(), plan.selects.begin(), plan.selects.end());
        return plan;
    }

    /// merge_select_cat_aten's loop body on one cat: the cat's shape when
    /// it is replaced, empty when the handler passes it by, nullopt when
    /// Fusebox refuses.
    std::optional<std::vector<int64_t>> planCat(const Graph &graph, const SelectPlan &plan, NodeId cat,
                                                MatchTrace &trace) const
    {
        const Node &c = *graph.node(cat);
        // select_node.args[1] of every reader of x: each must be a call with one.
        for (NodeId s : plan.selects)
            if (!require(trace, graph.node(s)->args().size() >= 2, "every reader of x has a second argument",
                         [&] {
                             return nodeRef(graph, s) + " (" + opText(*graph.node(s)) + ") reads "
                                    + nodeRef(graph, plan.input) + ": Inductor 2.14 fails on it";
                         },
                         {s}))
                return std::nullopt;
        const Arg &dim = graph.node(plan.selects.front())->args()[1];
        for (NodeId s : plan.selects)
            if (graph.node(s)->args()[1] != dim)
                return std::vector<int64_t>{};
        if (writtenDim(c) != std::optional<Arg>(dim))
            return std::vector<int64_t>{};
        if (c.inductorMeta.missing)
            return std::vector<int64_t>{};
        auto items = tensorList(c);
        std::vector<int64_t> indices;
        for (NodeId item : *items) {
            const Node &s = *graph.node(item);
            if (!require(trace, s.args().size() >= 3, "every cat input has a third argument (select's index)",
                         [&] { return nodeRef(graph, item) + " (" + opText(s) + ") has none: Inductor 2.14 fails"; },
                         {item}))
                return std::nullopt;
            indices.push_back(s.args()[2].asInt().value_or(-1));
        }
        if (!isSortedAndConsecutive(indices) || plan.selects.size() != items->size())
            return std::vector<int64_t>{};
        const Node &x = *graph.node(plan.input);
        auto xShape = staticShape(x);
        auto d = dim.asInt();
        if (!requireShape(trace, xShape.has_value(), "x's shape is known",
                          [&] { return nodeRef(graph, plan.input) + " has an unknown shape"; }, {plan.input}))
            return std::nullopt;
        if (!d || *d < 0 || *d >= int64_t(xShape->size()) || int64_t(indices.size()) != (*xShape)[*d])
            return std::vector<int64_t>{};
        for (NodeId item : *items)
            if (!require(trace, isSelectInt(*graph.node(item)) && nodeArgAt(*graph.node(item), 0, "self") == plan.input,
                         "every cat input selects from x",
                         [&] {
                             return nodeRef(graph, item) + " does not select from " + nodeRef(graph, plan.input)
                                    + ": Inductor 2.14 would replace the cat by a view of it all the same";
                         },
                         {item}))
                return std::nullopt;
        auto shape = staticShape(c);
        if (!requireShape(trace, shape.has_value(), "the cat's shape is known",
                          [&] { return nodeRef(graph, cat) + " has an unknown shape"; }, {cat}))
            return std::nullopt;
        return shape;
    }

    InductorCounts countsOf(const Graph &graph, const SelectPlan &plan) const override
    {
        (void)graph;
        InductorCounts counts = patternMatcherCounts(2);
        counts.added[name()] = plan.cats.size();
        return counts;
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        const Node &n = *graph.node(anchor);
        auto items = tensorList(n);
        if (!isPostGradCat(graph, n) || n.args().size() != 1 || !items || !boundSelect(graph, *items).isValid())
            return {};
        return patternMatcherCounts(2);
    }

    void apply(PatternRewriter &rewriter, const SelectPlan &plan) const override
    {
        NodeBuilder build(rewriter, plan.firstSelect, plan.firstSelect);
        for (const auto &[cat, shape] : plan.cats) {
            NodeId view = build.view(plan.input, shape);
            rewriter.replaceAllUsesWith(cat, view);
            rewriter.erase(cat);
        }
        for (NodeId s : plan.selects)
            if (rewriter.graph().contains(s) && rewriter.graph().users(s).empty())
                rewriter.erase(s);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeSplitCatAtenPass()
{
    return std::make_unique<SplitCatAten>();
}

std::unique_ptr<VerticalPattern> makeSelectCatAtenPass()
{
    return std::make_unique<SelectCatAten>();
}

} // namespace fusebox::splitcat
