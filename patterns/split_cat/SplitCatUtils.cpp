#include "SplitCatUtils.h"

#include "core/ir/GraphSource.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace fusebox::splitcat {

bool isSplitOp(const Node &node)
{
    return isOp(node, kSplit) || isOp(node, kSplitWithSizes);
}

std::string formatNodes(const Graph &graph, const std::vector<NodeId> &ids)
{
    std::string s = "[";
    for (size_t i = 0; i < ids.size(); ++i)
        s += (i ? ", " : "") + nodeRef(graph, ids[i]);
    return s + "]";
}

std::string opText(const Node &node)
{
    return node.op.empty() ? std::string(toString(node.kind())) : node.op;
}

std::string argText(const Graph &graph, const Arg &arg)
{
    return arg.toString([&](NodeId id) { return nodeRef(graph, id); });
}

bool isSortedAndConsecutive(const std::vector<int64_t> &values)
{
    for (size_t i = 1; i < values.size(); ++i)
        if (values[i] != values[i - 1] + 1)
            return false;
    return true;
}

std::vector<int64_t> SplitView::offsets() const
{
    std::vector<int64_t> out{0};
    for (int64_t s : sections)
        out.push_back(out.back() + s);
    return out;
}

std::string splitNormalizationGap(const Node &split)
{
    if (isOp(split, kSplit)) {
        const Arg *sizes = argAt(split, 1, "split_size");
        if (sizes && sizes->isList())
            return "aten::split.sizes instead of aten::split_with_sizes";
        return "sections unknown";
    }
    if (!isOp(split, kSplitWithSizes))
        return "not a split";
    if (!split.kwargs().empty())
        return "keyword arguments";
    if (split.args().size() < 3)
        return "dim not explicit";
    if (!split.args()[0].isNode())
        return "input is not a node";
    if (!intListArgAt(split, 1, "split_sizes") || !split.args()[1].isList())
        return "sections are not a literal list";
    auto dim = split.args()[2].asInt();
    if (!dim)
        return "dim is not a literal int";
    if (*dim < 0)
        return "dim " + std::to_string(*dim) + " is negative";
    return {};
}

std::optional<SplitView> readNormalizedSplit(const Graph &graph, NodeId split, MatchTrace &trace)
{
    const Node &n = *graph.node(split);
    const std::string gap = splitNormalizationGap(n);
    if (!require(trace, gap.empty(), "split is normalized",
                 [&] {
                     return "split " + nodeRef(graph, split) + " is not normalized (" + gap
                            + "): run normalization_pass first";
                 },
                 {split}))
        return std::nullopt;
    SplitView v;
    v.node = split;
    v.input = n.args()[0].node();
    v.sections = *intListArgAt(n, 1, "split_sizes");
    v.dim = *n.args()[2].asInt();
    return v;
}

std::optional<std::map<int64_t, NodeId>> readGetItems(const Graph &graph, NodeId list, MatchTrace &trace,
                                                      std::string_view what, std::optional<int64_t> count)
{
    std::map<int64_t, NodeId> items;
    std::string problem;
    for (NodeId user : graph.users(list)) {
        NodeId source;
        int64_t index = 0;
        if (!isGetItem(graph, user, &source, &index) || source != list) {
            problem = nodeRef(graph, user) + " reads " + nodeRef(graph, list) + " directly (not a getitem)";
            break;
        }
        if (index < 0) {
            problem = nodeRef(graph, user) + " has the negative index " + std::to_string(index);
            break;
        }
        if (count && index >= *count) {
            problem = nodeRef(graph, user) + " reads index " + std::to_string(index) + " of " + std::to_string(*count)
                      + " outputs";
            break;
        }
        auto [it, fresh] = items.emplace(index, user);
        if (!fresh) {
            problem = "index " + std::to_string(index) + " is read by both " + nodeRef(graph, it->second) + " and "
                      + nodeRef(graph, user);
            break;
        }
    }
    if (!require(trace, problem.empty(),
                 "every user of the " + std::string(what) + " is a getitem with a distinct index",
                 [&] { return problem; }, {list}))
        return std::nullopt;
    return items;
}

std::optional<UnbindView> readNormalizedUnbind(const Graph &graph, NodeId unbind, MatchTrace &trace, UnbindDims dims)
{
    const Node &n = *graph.node(unbind);
    std::string gap;
    if (!n.kwargs().empty())
        gap = "keyword arguments";
    else if (n.args().size() < 2)
        gap = "dim not explicit";
    else if (!n.args()[0].isNode())
        gap = "input is not a node";
    else if (!n.args()[1].asInt())
        gap = "dim is not a literal int";
    else if (*n.args()[1].asInt() < 0 && dims == UnbindDims::NonNegative)
        gap = "dim " + std::to_string(*n.args()[1].asInt()) + " is negative";
    if (!require(trace, gap.empty(), "unbind is normalized",
                 [&] {
                     return "unbind " + nodeRef(graph, unbind) + " is not normalized (" + gap
                            + "): run normalization_pass first";
                 },
                 {unbind}))
        return std::nullopt;
    UnbindView v;
    v.node = unbind;
    v.input = n.args()[0].node();
    v.writtenDim = *n.args()[1].asInt();
    const Node &in = *graph.node(v.input);
    v.dim = v.writtenDim < 0 ? v.writtenDim + in.meta.rank() : v.writtenDim;
    const bool known = in.meta.shape && v.dim >= 0 && v.dim < in.meta.rank()
                       && std::holds_alternative<int64_t>((*in.meta.shape)[v.dim]);
    if (!require(trace, known, "unbind input size along dim is static",
                 [&] {
                     return "input " + nodeRef(graph, v.input) + " has shape "
                            + (in.meta.shape ? in.meta.shapeString() : std::string("unknown")) + " (dim "
                            + std::to_string(v.writtenDim) + " not static)";
                 },
                 {v.input}))
        return std::nullopt;
    v.count = std::get<int64_t>((*in.meta.shape)[v.dim]);
    return v;
}

std::optional<int64_t> dimArg(const Node &node, size_t index, int rank)
{
    const Arg *a = argAt(node, index, "dim");
    if (!a || a->isNone())
        return int64_t(0);
    auto d = a->asInt();
    if (!d)
        return std::nullopt;
    if (*d >= 0)
        return d;
    if (rank < 0 || *d + rank < 0)
        return std::nullopt;
    return *d + rank;
}

bool isPostGradAtenCall(const Graph &graph, const Node &node)
{
    if (!isPt2Graph(graph) || isPreGradGraph(graph))
        return false;
    const std::string &spelling = node.provenance.originalSpelling;
    return node.isOp() && !node.op.starts_with("torch.") && (spelling.empty() || spelling.starts_with("torch.ops."));
}

bool isPacketCall(const Node &node)
{
    const std::string &s = node.provenance.originalSpelling;
    return s.starts_with("torch.ops.") && std::count(s.begin(), s.end(), '.') == 3;
}

int catRank(const Graph &graph, const Node &cat)
{
    if (cat.meta.rank() >= 0)
        return cat.meta.rank();
    if (auto inputs = tensorList(cat); inputs && !inputs->empty())
        return graph.node(inputs->front())->meta.rank();
    return -1;
}

std::optional<std::vector<NodeId>> tensorList(const Node &node)
{
    return nodeListArgAt(node, 0, "tensors");
}

std::optional<std::vector<NodeId>> readTensorList(const Graph &graph, NodeId owner, MatchTrace &trace,
                                                  std::string_view what)
{
    const Node &n = *graph.node(owner);
    auto inputs = tensorList(n);
    if (!require(trace, inputs && !inputs->empty(), std::string(what) + " takes a literal list of tensors",
                 [&] {
                     const Arg *a = argAt(n, 0, "tensors");
                     return nodeRef(graph, owner) + " takes " + (a ? argText(graph, *a) : std::string("no tensors"));
                 },
                 {owner}))
        return std::nullopt;
    return inputs;
}

std::optional<SplitGetItems> readGetItemsOfOneSplit(const Graph &graph, NodeId owner, const std::vector<NodeId> &inputs,
                                                    MatchTrace &trace, std::string_view what)
{
    SplitGetItems out;
    NodeId parent;
    for (NodeId in : inputs) {
        NodeId source;
        int64_t index = 0;
        if (!require(trace, isGetItem(graph, in, &source, &index), "every " + std::string(what) + " input is a getitem",
                     [&] {
                         return std::string(what) + " input " + nodeRef(graph, in) + " (" + opText(*graph.node(in))
                                + ") is not a getitem";
                     },
                     {owner, in}))
            return std::nullopt;
        if (!parent.isValid())
            parent = source;
        if (!require(trace, source == parent, "all " + std::string(what) + " inputs read the same node",
                     [&] {
                         return nodeRef(graph, inputs.front()) + " reads " + nodeRef(graph, parent) + " but "
                                + nodeRef(graph, in) + " reads " + nodeRef(graph, source);
                     },
                     {owner, in}))
            return std::nullopt;
        out.items.push_back(in);
        out.indices.push_back(index);
    }
    const Node &p = *graph.node(parent);
    if (!require(trace, isSplitOp(p), "the getitems read a split",
                 [&] { return "the getitems read " + nodeRef(graph, parent) + " (" + opText(p) + "), not a split"; },
                 {parent}))
        return std::nullopt;
    auto read = readSplitAndItems(graph, parent, trace);
    if (!read)
        return std::nullopt;
    out.split = std::move(read->first);
    out.all = std::move(read->second);
    return out;
}

std::optional<std::pair<SplitView, std::map<int64_t, NodeId>>> readSplitAndItems(const Graph &graph, NodeId split,
                                                                                 MatchTrace &trace)
{
    auto view = readNormalizedSplit(graph, split, trace);
    if (!view)
        return std::nullopt;
    auto items = readGetItems(graph, split, trace, "split", int64_t(view->sections.size()));
    if (!items)
        return std::nullopt;
    return std::make_pair(std::move(*view), std::move(*items));
}

std::optional<SplitGetItems> readCatOfOneSplit(const Graph &graph, NodeId anchor, MatchTrace &trace)
{
    auto inputs = readTensorList(graph, anchor, trace, "cat");
    if (!inputs)
        return std::nullopt;
    auto group = readGetItemsOfOneSplit(graph, anchor, *inputs, trace, "cat");
    if (!group)
        return std::nullopt;
    const Node &cat = *graph.node(anchor);
    auto catDim = dimArg(cat, 1, catRank(graph, cat));
    if (!require(trace, catDim && *catDim == group->split.dim, "cat dim equals split dim",
                 [&] {
                     return "cat dim " + (catDim ? std::to_string(*catDim) : std::string("unknown")) + " ≠ split dim "
                            + std::to_string(group->split.dim);
                 },
                 {anchor, group->split.node}))
        return std::nullopt;
    return group;
}

bool checkUsedOnce(const Graph &graph, const std::vector<NodeId> &items, MatchTrace &trace)
{
    for (NodeId item : items) {
        const size_t uses = graph.users(item).size();
        if (!require(trace, uses == 1, "each getitem is used once",
                     [&] {
                         return "getitem " + nodeRef(graph, item) + " has " + std::to_string(uses) + " users (needs 1)";
                     },
                     {item}))
            return false;
    }
    return true;
}

bool checkConsecutive(const std::vector<int64_t> &indices, MatchTrace &trace)
{
    return require(trace, isSortedAndConsecutive(indices), "getitem indices are sorted and consecutive",
                   [&] { return "indices " + formatInts(indices) + " are not sorted and consecutive"; });
}

std::vector<int64_t> fuseSections(const std::vector<int64_t> &sections, int64_t first, int64_t last)
{
    std::vector<int64_t> out(sections.begin(), sections.begin() + first);
    int64_t fused = 0;
    for (int64_t i = first; i <= last; ++i)
        fused += sections[i];
    out.push_back(fused);
    out.insert(out.end(), sections.begin() + last + 1, sections.end());
    return out;
}

bool isInductorTorchSplit(const Graph &graph, NodeId split)
{
    const Node *n = graph.node(split);
    if (!n || !isSplitOp(*n) || !splitNormalizationGap(*n).empty())
        return false;
    MatchTrace quiet;
    return readGetItems(graph, split, quiet, "split").has_value();
}

namespace {

/// The source of the first getitem in `owner`'s list whose source passes
/// `accepts` (what a ListOf(getitem(...), partial=True) pattern binds to).
template<typename Accepts>
NodeId firstGetItemSource(const Graph &graph, NodeId owner, Accepts &&accepts)
{
    const auto tensors = tensorList(*graph.node(owner));
    if (!tensors)
        return {};
    for (NodeId item : *tensors) {
        NodeId source;
        if (isGetItem(graph, item, &source) && accepts(source))
            return source;
    }
    return {};
}

} // namespace

NodeId inductorGetItemSplitSource(const Graph &graph, NodeId owner)
{
    return firstGetItemSource(graph, owner, [&](NodeId source) { return isInductorTorchSplit(graph, source); });
}

NodeId inductorGetItemUnbindSource(const Graph &graph, NodeId owner)
{
    return firstGetItemSource(graph, owner, [&](NodeId source) { return isOp(*graph.node(source), "aten::unbind"); });
}

bool hasInductorGetItemSplitList(const Graph &graph, NodeId owner)
{
    return inductorGetItemSplitSource(graph, owner).isValid();
}

InductorCounts listReaderMatchCounts(const Graph &graph, NodeId source, NodeId (*boundSource)(const Graph &, NodeId))
{
    std::set<NodeId> readers;
    for (NodeId item : graph.users(source))
        for (NodeId reader : graph.users(item)) {
            const Node &r = *graph.node(reader);
            if ((isOp(r, "aten::cat") || isOp(r, "aten::stack")) && boundSource(graph, reader) == source)
                readers.insert(reader);
        }
    InductorCounts counts;
    if (!readers.empty()) {
        counts.added["pattern_matcher_count"] = readers.size();
        counts.added["pattern_matcher_nodes"] = 3 * readers.size();
    }
    return counts;
}

InductorCounts patternMatcherCounts(size_t nodes, InductorCounts counts)
{
    counts.added["pattern_matcher_count"] = 1;
    counts.added["pattern_matcher_nodes"] = nodes;
    return counts;
}

} // namespace fusebox::splitcat
