#include "SliceRuns.h"

#include <algorithm>

namespace fusebox::splitcat {

std::vector<InputRun> groupRuns(const Graph &graph, const std::vector<NodeId> &inputs,
                                const std::function<NodeId(NodeId)> &getitemOf,
                                const std::function<bool(const Node &)> &isParent)
{
    std::vector<InputRun> runs;
    for (NodeId in : inputs) {
        NodeId item = getitemOf(in);
        NodeId source;
        int64_t index = 0;
        if (!item.isValid() || !isGetItem(graph, item, &source, &index) || !isParent(*graph.node(source))) {
            // Consecutive other inputs share one run (kept as they are): a
            // stack of hundreds of weights costs one run, not hundreds.
            if (runs.empty() || runs.back().parent.isValid())
                runs.push_back({{}, {}, {}, {}});
            runs.back().inputs.push_back(in);
            runs.back().getitems.push_back(in);
            continue;
        }
        if (runs.empty() || runs.back().parent != source)
            runs.push_back({source, {}, {}, {}});
        runs.back().inputs.push_back(in);
        runs.back().getitems.push_back(item);
        runs.back().indices.push_back(index);
    }
    return runs;
}

void keepRun(const InputRun &run, std::vector<RunPart> &parts, std::string &why, const std::string &reason)
{
    RunPart keep;
    keep.keep = run.inputs;
    parts.push_back(std::move(keep));
    if (!reason.empty())
        why += (why.empty() ? "" : "; ") + reason;
}

void planRun(const Graph &graph, const InputRun &run, int64_t count, int64_t threshold, std::vector<RunPart> &parts,
             std::string &why)
{
    const auto &idx = run.indices;
    if (int64_t(idx.size()) == count && isSortedAndConsecutive(idx) && idx.front() == 0) {
        RunPart whole;
        whole.kind = RunPart::Kind::Whole;
        whole.parent = run.parent;
        whole.first = 0;
        whole.last = count - 1;
        parts.push_back(whole);
        return;
    }
    bool merged = false;
    size_t begin = 0;
    while (begin < idx.size()) {
        size_t end = begin + 1;
        while (end < idx.size() && idx[end] == idx[end - 1] + 1)
            ++end;
        if (int64_t(end - begin) >= threshold) {
            RunPart slice;
            slice.kind = RunPart::Kind::Slice;
            slice.parent = run.parent;
            slice.first = idx[begin];
            slice.last = idx[end - 1];
            parts.push_back(slice);
            merged = true;
        } else {
            RunPart keep;
            keep.keep.assign(run.inputs.begin() + long(begin), run.inputs.begin() + long(end));
            parts.push_back(std::move(keep));
        }
        begin = end;
    }
    if (!merged)
        why += (why.empty() ? "" : "; ") + nodeRef(graph, run.parent) + ": indices " + formatInts(idx) + " of "
               + std::to_string(count) + " outputs are not all of them and no consecutive stretch reaches "
               + "threshold_to_cat " + std::to_string(threshold);
}

size_t partCount(const std::vector<RunPart> &parts)
{
    size_t n = 0;
    for (const RunPart &p : parts)
        n += p.kind == RunPart::Kind::Keep ? p.keep.size() : 1;
    return n;
}

bool anyMerged(const std::vector<RunPart> &parts)
{
    return std::any_of(parts.begin(), parts.end(), [](const RunPart &p) { return p.kind != RunPart::Kind::Keep; });
}

bool checkShortens(const Graph &graph, NodeId owner, const std::vector<NodeId> &inputs,
                   const std::vector<RunPart> &parts, const std::string &why, MatchTrace &trace)
{
    const size_t after = partCount(parts);
    const bool merged = anyMerged(parts);
    return require(trace, merged && (after < inputs.size() || after == 1),
                   "a run of getitems becomes the parent's input or a slice",
                   [&] {
                       if (!why.empty())
                           return why;
                       if (!merged)
                           return "no input of " + nodeRef(graph, owner) + " is a getitem that can be merged";
                       return "merging leaves " + nodeRef(graph, owner) + " with " + std::to_string(after)
                              + " inputs (had " + std::to_string(inputs.size()) + ")";
                   },
                   {owner});
}

std::vector<NodeId> coveredNodes(NodeId owner, const std::vector<InputRun> &runs, const std::vector<RunPart> &parts)
{
    std::vector<NodeId> nodes{owner};
    for (const RunPart &p : parts) {
        if (p.kind == RunPart::Kind::Keep)
            continue;
        for (const InputRun &run : runs) {
            if (run.parent != p.parent)
                continue;
            for (size_t i = 0; i < run.indices.size(); ++i) {
                if (run.indices[i] < p.first || run.indices[i] > p.last)
                    continue;
                for (NodeId id : {run.inputs[i], run.getitems[i]})
                    if (std::find(nodes.begin(), nodes.end(), id) == nodes.end())
                        nodes.push_back(id);
            }
        }
    }
    return nodes;
}

bool planSliceRuns(const Graph &graph, NodeId owner, const SliceRunsRule &rule, SliceRunsPlan &plan, MatchTrace &trace)
{
    const std::string what = rule.stack ? "stack" : "cat";
    auto inputs = readTensorList(graph, owner, trace, what);
    if (!inputs)
        return false;
    const Node &node = *graph.node(owner);
    plan.owner = owner;
    auto ownerDim = dimArg(node, 1, rule.stack ? node.meta.rank() : catRank(graph, node));
    if (!require(trace, ownerDim.has_value(), what + " dim is known",
                 [&] { return nodeRef(graph, owner) + " has a negative dim and an unknown rank"; }, {owner}))
        return false;
    plan.ownerDim = *ownerDim;
    if (rule.checkOwner && !rule.checkOwner())
        return false;

    std::function<NodeId(NodeId)> getitemOf = rule.getitemOf;
    if (!getitemOf)
        getitemOf = [](NodeId id) { return id; };
    const auto runs = groupRuns(graph, *inputs, getitemOf, rule.isParent);
    if (rule.checkRuns && !rule.checkRuns(runs))
        return false;
    std::string why;
    for (const InputRun &run : runs) {
        if (!run.parent.isValid()) {
            keepRun(run, plan.parts, why, {});
            continue;
        }
        const RunReading reading = rule.readRun(run);
        if (reading.kind == RunReading::Kind::Fail)
            return false;
        if (reading.kind == RunReading::Kind::Keep) {
            keepRun(run, plan.parts, why, reading.reason);
            continue;
        }
        const size_t before = plan.parts.size();
        planRun(graph, run, reading.outputs, rule.threshold, plan.parts, why);
        if (rule.planned)
            rule.planned(run, std::any_of(plan.parts.begin() + long(before), plan.parts.end(),
                                          [](const RunPart &p) { return p.kind != RunPart::Kind::Keep; }));
    }
    if (!checkShortens(graph, owner, *inputs, plan.parts, why, trace))
        return false;
    plan.nodes = coveredNodes(owner, runs, plan.parts);
    return true;
}

void rewriteSliceRuns(PatternRewriter &rewriter, NodeId owner, const std::vector<RunPart> &parts, const RunRewrite &how)
{
    NodeBuilder build(rewriter, owner, owner);
    std::vector<NodeId> args, pending;
    // Kept inputs of a stack wait until a merged part (or the end) stacks
    // them, so that the list keeps its order.
    auto flush = [&] {
        if (!pending.empty())
            args.push_back(build.stack(pending, how.catDim));
        pending.clear();
    };
    for (const RunPart &part : parts) {
        if (part.kind == RunPart::Kind::Keep) {
            std::vector<NodeId> &into = how.stackKept ? pending : args;
            into.insert(into.end(), part.keep.begin(), part.keep.end());
            continue;
        }
        flush();
        args.push_back(how.merged(build, part));
    }
    flush();
    NodeId result = args.size() == 1 ? args.front() : build.cat(args, how.catDim);
    if (how.finish)
        result = how.finish(build, result);
    rewriter.replaceAllUsesWith(owner, result);
    rewriter.eraseIfDead(owner);
}

} // namespace fusebox::splitcat
