#include "SplitCatSimplifier.h"

#include <algorithm>
#include <unordered_map>

namespace fusebox::splitcat {
namespace {

std::string rangeText(const SectionRange &r)
{
    return r.first == r.last ? "section " + std::to_string(r.first)
                             : "sections " + std::to_string(r.first) + ".." + std::to_string(r.last);
}

/// A used range with its element span along the split dim.
struct Span {
    int64_t start = 0, end = 0;
    SectionRange range;
    NodeId user;
};

int listRank(const Graph &graph, const Node &n, bool stack)
{
    if (!stack)
        return catRank(graph, n);
    if (n.meta.rank() >= 0)
        return n.meta.rank();
    auto inputs = tensorList(n);
    const int r = inputs && !inputs->empty() ? graph.node(inputs->front())->meta.rank() : -1;
    return r < 0 ? -1 : r + 1;
}

Arg remap(const Arg &arg, const std::unordered_map<NodeId, NodeId> &to)
{
    if (arg.isNode()) {
        auto it = to.find(arg.node());
        return it == to.end() ? arg : Arg(it->second);
    }
    if (arg.isList()) {
        ArgList list = std::get<ArgList>(arg.value);
        for (Arg &item : list.items)
            item = remap(item, to);
        return Arg(std::move(list));
    }
    return arg;
}

} // namespace

std::vector<NodeId> nextUsers(const Graph &graph, const std::map<int64_t, NodeId> &items)
{
    std::vector<NodeId> users;
    for (const auto &[index, item] : items)
        for (NodeId user : graph.users(item))
            if (std::find(users.begin(), users.end(), user) == users.end())
                users.push_back(user);
    return users;
}

namespace {

/// get_user_input_list and get_simplified_split_ranges: the readers' inputs
/// as runs of sections, and the ranges that the smaller split keeps.
bool planRanges(const Graph &graph, const SimplifierSource &src, SimplifyPlan &plan, std::vector<Span> &spans,
                MatchTrace &trace)
{
    std::unordered_map<NodeId, int64_t> indexOf;
    for (const auto &[index, item] : src.items)
        indexOf[item] = index;

    for (NodeId u : nextUsers(graph, src.items)) {
        const Node &n = *graph.node(u);
        NextUser user;
        user.node = u;
        auto list = isOp(n, kCat) || isOp(n, kStack) ? tensorList(n) : std::nullopt;
        if (!list) {
            std::vector<NodeId> seen;
            for (NodeId in : n.inputNodes()) {
                auto it = indexOf.find(in);
                if (it == indexOf.end() || std::find(seen.begin(), seen.end(), in) != seen.end())
                    continue;
                seen.push_back(in);
                user.inputs.push_back({SectionRange{it->second, it->second}, {}});
            }
            plan.users.push_back(std::move(user));
            continue;
        }
        user.listUser = true;
        user.stack = isOp(n, kStack);
        auto dim = dimArg(n, 1, listRank(graph, n, user.stack));
        if (!require(trace, dim.has_value(), "the dim of every cat/stack user is known",
                     [&] {
                         const Arg *d = argAt(n, 1, "dim");
                         return nodeRef(graph, u) + " has dim " + (d ? argText(graph, *d) : std::string("?"))
                                + " and an unknown rank";
                     },
                     {u}))
            return false;
        user.dim = *dim;
        const Arg *written = argAt(n, 1, "dim");
        user.writtenDim = written && written->asInt() ? *written->asInt() : 0;
        std::optional<SectionRange> run;
        for (NodeId in : *list) {
            auto it = indexOf.find(in);
            if (it != indexOf.end() && run && it->second == run->last + 1) {
                run->last = it->second;
                continue;
            }
            if (run)
                user.inputs.push_back({run, {}});
            run.reset();
            if (it != indexOf.end())
                run = SectionRange{it->second, it->second};
            else
                user.inputs.push_back({std::nullopt, in});
        }
        if (run)
            user.inputs.push_back({run, {}});
        plan.users.push_back(std::move(user));
    }

    // The ranges every user reads, as element spans, must not overlap.
    const std::vector<int64_t> offsets = [&] {
        std::vector<int64_t> o{0};
        for (int64_t s : src.sections)
            o.push_back(o.back() + s);
        return o;
    }();
    for (const NextUser &user : plan.users)
        for (const UserInput &in : user.inputs)
            if (in.range
                && std::none_of(spans.begin(), spans.end(), [&](const Span &s) { return s.range == *in.range; }))
                spans.push_back({offsets[in.range->first], offsets[in.range->last + 1], *in.range, user.node});
    std::sort(spans.begin(), spans.end(),
              [](const Span &a, const Span &b) { return std::tie(a.start, a.end) < std::tie(b.start, b.end); });
    for (size_t i = 0; i + 1 < spans.size(); ++i) {
        const Span &a = spans[i], &b = spans[i + 1];
        if (!require(trace, a.end <= b.start, "the section ranges the users read do not overlap",
                     [&] {
                         return rangeText(a.range) + " (read by " + nodeRef(graph, a.user) + ") overlaps "
                                + rangeText(b.range) + " (read by " + nodeRef(graph, b.user)
                                + "): overlapping ranges are not handled";
                     },
                     {a.user, b.user}))
            return false;
    }
    int64_t cursor = 0;
    for (const Span &s : spans) {
        if (cursor < s.start)
            plan.ranges.emplace_back(cursor, s.start);
        plan.ranges.emplace_back(s.start, s.end);
        cursor = s.end;
    }
    if (cursor < offsets.back() || plan.ranges.empty())
        plan.ranges.emplace_back(cursor, offsets.back());
    return true;
}

} // namespace

std::optional<int64_t> inductorSectionsRemoved(const Graph &graph, const SimplifierSource &src)
{
    SimplifyPlan plan;
    std::vector<Span> spans;
    MatchTrace ignored;
    if (!planRanges(graph, src, plan, spans, ignored) || plan.ranges.size() >= src.sections.size())
        return std::nullopt;
    return int64_t(src.sections.size() - plan.ranges.size());
}

std::optional<SimplifyPlan> analyzeSimplify(const Graph &graph, SimplifierSource src, MatchTrace &trace)
{
    SimplifyPlan plan;
    std::vector<Span> spans;
    if (!planRanges(graph, src, plan, spans, trace))
        return std::nullopt;

    if (src.unbind) {
        if (!require(trace, plan.ranges.size() == 1 && src.sections.size() > 1,
                     "the users read all unbind outputs as one run",
                     [&] {
                         if (src.sections.size() <= 1)
                             return "unbind " + nodeRef(graph, src.node) + " has a single output: nothing to merge";
                         std::string text;
                         for (const Span &s : spans)
                             text += (text.empty() ? "" : ", ") + rangeText(s.range);
                         return "the users of " + nodeRef(graph, src.node) + " read " + text
                                + ": needs one run over all " + std::to_string(src.sections.size()) + " outputs";
                     },
                     {src.node}))
            return std::nullopt;
    } else if (!require(trace, plan.ranges.size() < src.sections.size(), "runs of consecutive sections can be merged",
                        [&] {
                            return "the next users of " + nodeRef(graph, src.node) + " read its "
                                   + std::to_string(src.sections.size()) + " sections one at a time: nothing to merge";
                        },
                        {src.node})) {
        return std::nullopt;
    }

    // Transforms of the cat/stack inputs (get_transform_params).
    const auto inputShape = shapeOf(graph, src.input);
    for (NextUser &user : plan.users) {
        if (!user.listUser)
            continue;
        const bool sameDimCat = !user.stack && user.dim == src.dim;
        std::optional<Shape> chunk;
        for (const UserInput &in : user.inputs) {
            if (in.range && inputShape && !chunk) {
                chunk = inputShape;
                (*chunk)[src.dim] = src.sections[in.range->first];
            }
        }
        for (const UserInput &in : user.inputs) {
            InputTransform t;
            if (src.unbind) {
                // get_transform_params of UnbindCatRemover: dims as written.
                if (in.range) {
                    if (src.writtenDim != user.writtenDim)
                        t.movedim = std::make_pair(src.writtenDim, user.writtenDim);
                    if (!user.stack)
                        t.flatten = std::make_pair(user.dim, user.dim + 1);
                } else if (user.stack) {
                    t.unsqueezeDim = user.writtenDim;
                }
            } else if (sameDimCat) {
                // joined as they are
            } else if (in.range) {
                const std::vector<int64_t> sizes(src.sections.begin() + in.range->first,
                                                 src.sections.begin() + in.range->last + 1);
                const bool equal = std::all_of(sizes.begin(), sizes.end(), [&](int64_t s) { return s == sizes[0]; });
                if (!require(trace, equal, "sections joined on another dim (or stacked) have equal sizes",
                             [&] {
                                 return nodeRef(graph, user.node) + " (" + (user.stack ? "stack" : "cat") + " dim "
                                        + std::to_string(user.dim) + ") takes " + rangeText(*in.range) + " of "
                                        + nodeRef(graph, src.node) + " with sizes " + formatInts(sizes) + " (split dim "
                                        + std::to_string(src.dim) + "): not handled";
                             },
                             {user.node, src.node}))
                    return std::nullopt;
                t.unflattenCount = int64_t(sizes.size());
                if (src.dim != user.dim)
                    t.movedim = std::make_pair(src.dim, user.dim);
            } else {
                if (!user.stack) {
                    // cat on another dim: the input is unsqueezed beside the
                    // unflattened sections and flattened back, so it must
                    // have the sections' shape.
                    const auto shape = shapeOf(graph, in.other);
                    if (!require(trace, chunk && shape && *shape == *chunk,
                                 "inputs of a cat on another dim that do not come from the split have the "
                                 "sections' shape",
                                 [&] {
                                     return nodeRef(graph, in.other) + " has shape "
                                            + (shape ? formatInts(*shape) : std::string("unknown"))
                                            + "; the sections of " + nodeRef(graph, src.node) + " have "
                                            + (chunk ? formatInts(*chunk) : std::string("an unknown shape"));
                                 },
                                 {in.other, user.node}))
                        return std::nullopt;
                }
                t.unsqueezeDim = user.dim;
            }
            user.transforms.push_back(t);
        }
    }

    plan.nodes.push_back(src.node);
    for (const auto &[index, item] : src.items)
        plan.nodes.push_back(item);
    for (const NextUser &user : plan.users)
        plan.nodes.push_back(user.node);
    plan.source = std::move(src);
    return plan;
}

void applySimplify(PatternRewriter &rewriter, const SimplifyPlan &plan)
{
    const SimplifierSource &src = plan.source;
    std::vector<int64_t> offsets{0};
    for (int64_t s : src.sections)
        offsets.push_back(offsets.back() + s);

    std::vector<NodeId> items;
    if (plan.ranges.size() == 1) {
        items.push_back(src.input);
    } else {
        std::vector<int64_t> sizes;
        for (const auto &[start, end] : plan.ranges)
            sizes.push_back(end - start);
        NodeBuilder build(rewriter, src.node, src.node);
        NodeId split = build.splitWithSizes(src.input, sizes, src.dim);
        for (size_t k = 0; k < sizes.size(); ++k)
            items.push_back(build.splitItem(split, src.input, sizes, src.dim, int64_t(k)));
    }
    auto itemFor = [&](const SectionRange &r) {
        const std::pair<int64_t, int64_t> span{offsets[r.first], offsets[r.last + 1]};
        return items[std::find(plan.ranges.begin(), plan.ranges.end(), span) - plan.ranges.begin()];
    };

    for (const NextUser &user : plan.users) {
        if (!user.listUser) {
            std::unordered_map<NodeId, NodeId> to;
            for (const UserInput &in : user.inputs)
                to[src.items.at(in.range->first)] = itemFor(*in.range);
            const Node &n = *rewriter.graph().node(user.node);
            std::vector<Arg> args;
            std::vector<NamedArg> kwargs;
            for (const Arg &a : n.args())
                args.push_back(remap(a, to));
            for (const NamedArg &kw : n.kwargs())
                kwargs.push_back({kw.name, remap(kw.value, to)});
            rewriter.setArgs(user.node, std::move(args), std::move(kwargs));
            continue;
        }
        NodeBuilder build(rewriter, user.node, user.node);
        std::vector<NodeId> parts, pending;
        std::optional<int64_t> pendingDim;
        auto flushPending = [&] {
            if (!pending.empty())
                parts.push_back(build.stack(pending, *pendingDim));
            pending.clear();
            pendingDim.reset();
        };
        for (size_t i = 0; i < user.inputs.size(); ++i) {
            const UserInput &in = user.inputs[i];
            const InputTransform &t = user.transforms[i];
            NodeId value = in.range ? itemFor(*in.range) : in.other;
            if (t.unsqueezeDim) {
                if (pendingDim && *pendingDim != *t.unsqueezeDim)
                    flushPending();
                pending.push_back(value);
                pendingDim = t.unsqueezeDim;
                continue;
            }
            flushPending();
            if (t.unflattenCount)
                value = build.unflatten(value, src.dim, {*t.unflattenCount, -1});
            if (t.movedim)
                value = build.movedim(value, t.movedim->first, t.movedim->second);
            if (t.flatten)
                value = build.flatten(value, t.flatten->first, t.flatten->second);
            parts.push_back(value);
        }
        flushPending();
        NodeId result = parts.size() > 1 ? build.cat(parts, user.dim) : parts.front();
        if (!src.unbind && !user.stack && src.dim != user.dim)
            result = build.flatten(result, user.dim, user.dim + 1);
        rewriter.replaceAllUsesWith(user.node, result);
        rewriter.eraseIfDead(user.node);
    }
    for (const auto &[index, item] : src.items)
        rewriter.eraseIfDead(item);
    rewriter.eraseIfDead(src.node);
}

InductorCounts simplifierCounts(const Graph &graph, const SimplifyPlan &plan)
{
    InductorCounts counts;
    counts.added["unbind_stack_pass"] = 1;
    counts.added["scmerge_split_removed"] = 1;
    counts.assigned["scmerge_split_sections_removed"] = plan.source.sections.size() - plan.ranges.size();
    if (plan.ranges.size() > 1)
        counts.added["scmerge_split_added"] = 1;
    size_t catsRemoved = 0, catsAdded = 0;
    for (const NextUser &user : plan.users) {
        const std::string &op = graph.node(user.node)->op;
        if (op == "aten::cat" || op == "aten::stack")
            ++catsRemoved;
        if (!user.listUser)
            continue;
        // The parts applySimplify joins: each input, runs of unsqueezed ones as one stack.
        size_t parts = 0;
        std::optional<int64_t> pendingDim;
        for (const InputTransform &t : user.transforms) {
            if (t.unsqueezeDim) {
                if (pendingDim && *pendingDim != *t.unsqueezeDim)
                    ++parts;
                pendingDim = t.unsqueezeDim;
                continue;
            }
            if (pendingDim)
                ++parts;
            pendingDim.reset();
            ++parts;
        }
        if (pendingDim)
            ++parts;
        if (parts > 1)
            ++catsAdded;
    }
    if (catsRemoved)
        counts.added["scmerge_cat_removed"] = catsRemoved;
    if (catsAdded)
        counts.added["scmerge_cat_added"] = catsAdded;
    return counts;
}

} // namespace fusebox::splitcat
