#include "MatchUtils.h"

#include <algorithm>

namespace fusebox {

const Arg *argAt(const Node &node, size_t index, std::string_view name)
{
    if (index < node.args().size())
        return &node.args()[index];
    return node.kwarg(name);
}

std::optional<int64_t> intArgAt(const Node &node, size_t index, std::string_view name)
{
    const Arg *a = argAt(node, index, name);
    return a ? a->asInt() : std::nullopt;
}

std::optional<std::vector<int64_t>> intListArgAt(const Node &node, size_t index, std::string_view name)
{
    const Arg *a = argAt(node, index, name);
    if (!a)
        return std::nullopt;
    if (auto single = a->asInt())
        return std::vector<int64_t>{*single};
    const auto *items = a->items();
    if (!items)
        return std::nullopt;
    std::vector<int64_t> values;
    for (const Arg &item : *items) {
        auto v = item.asInt();
        if (!v)
            return std::nullopt;
        values.push_back(*v);
    }
    return values;
}

NodeId nodeArgAt(const Node &node, size_t index, std::string_view name)
{
    const Arg *a = argAt(node, index, name);
    return a ? a->node() : NodeId{};
}

std::optional<std::vector<NodeId>> nodeListArgAt(const Node &node, size_t index, std::string_view name)
{
    const Arg *a = argAt(node, index, name);
    if (!a || !a->items())
        return std::nullopt;
    std::vector<NodeId> ids;
    for (const Arg &item : *a->items()) {
        if (!item.isNode())
            return std::nullopt;
        ids.push_back(item.node());
    }
    return ids;
}

bool isOp(const Node &node, std::string_view op)
{
    return node.kind() == NodeKind::Op && node.op == op;
}

NodeId subscriptParent(const Graph &graph, NodeId id)
{
    const Node *n = graph.node(id);
    if (!n || !n->isOp() || n->args().empty() || !n->args()[0].isNode())
        return {};
    if (n->op == ops::kGetItem || n->op == "operator.getitem")
        return n->args()[0].node();
    // A lowered subscript: its last node holds the index as written; the
    // steps before it are marked but hold none.
    if (n->provenance.originalSpelling != "operator.getitem" || n->provenance.writtenArgs.empty())
        return {};
    NodeId parent = n->args()[0].node();
    for (const Node *step = graph.node(parent);
         step && step->isOp() && step->provenance.originalSpelling == "operator.getitem"
         && step->provenance.writtenArgs.empty() && !step->args().empty() && step->args()[0].isNode();
         step = graph.node(parent))
        parent = step->args()[0].node();
    return parent;
}

bool isGetItem(const Graph &graph, NodeId id, NodeId *source, int64_t *index)
{
    if (!graph.hasOp(id, ops::kGetItem))
        return false;
    const Node *n = graph.node(id);
    if (n->args().size() != 2 || !n->args()[0].isNode())
        return false;
    auto i = n->args()[1].asInt();
    if (!i)
        return false;
    if (source)
        *source = n->args()[0].node();
    if (index)
        *index = *i;
    return true;
}

std::optional<int64_t> normalizeDim(int64_t dim, int rank)
{
    if (rank < 0)
        return std::nullopt;
    int64_t d = dim < 0 ? dim + rank : dim;
    if (d < 0 || d >= std::max(rank, 1))
        return std::nullopt;
    return d;
}

std::optional<std::vector<int64_t>> staticShape(const Node &node)
{
    if (!node.meta.hasStaticShape())
        return std::nullopt;
    std::vector<int64_t> shape;
    for (const Dim &d : *node.meta.shape)
        shape.push_back(std::get<int64_t>(d));
    return shape;
}

std::string formatInts(const std::vector<int64_t> &values)
{
    std::string s = "[";
    for (size_t i = 0; i < values.size(); ++i)
        s += (i ? ", " : "") + std::to_string(values[i]);
    return s + "]";
}

} // namespace fusebox
