#include "GroupBatchUtils.h"

#include <algorithm>

#include "core/rewrite/MatchUtils.h"

namespace fusebox::group_batch {

bool checkPreGradSpelling(const Graph &graph, NodeId id, const std::vector<std::string> &spellings, MatchTrace &trace)
{
    const std::string &spelling = graph.node(id)->provenance.originalSpelling;
    const bool torchLevel = spelling.starts_with("torch.") && !spelling.starts_with("torch.ops.");
    const bool methodCall = spelling.starts_with("Tensor.");
    const bool ok = (!torchLevel && !methodCall)
                    || std::find(spellings.begin(), spellings.end(), spelling) != spellings.end();
    return trace.check(
        ok,
        [&] {
            std::string s = "called as ";
            for (size_t i = 0; i < spellings.size(); ++i)
                s += (i ? " or " : "") + spellings[i];
            return s + " (the target Inductor's pre-grad fusion matches)";
        }(),
        [&] {
            return nodeRef(graph, id) + " is called as "
                   + (methodCall ? "the method x." + spelling.substr(7) + "()" : spelling);
        },
        {id});
}

bool checkOp(const Graph &graph, NodeId id, const std::vector<std::string> &ops, MatchTrace &trace)
{
    const Node *n = graph.node(id);
    bool ok = false;
    if (n && n->isOp())
        for (const std::string &op : ops)
            ok = ok || n->op == op;
    return trace.check(
        ok,
        [&] {
            std::string s = "node is ";
            for (size_t i = 0; i < ops.size(); ++i)
                s += (i ? " or " : "") + ops[i];
            return s;
        }(),
        [&] {
            if (!n)
                return std::string("the node is not in the graph");
            if (!n->isOp())
                return nodeRef(graph, id) + " is " + std::string(toString(n->kind()));
            return nodeRef(graph, id) + " is " + n->qualifiedOp();
        },
        {id});
}

bool checkOutputMeta(const Graph &graph, NodeId id, MatchTrace &trace)
{
    const Node &n = *graph.node(id);
    const bool known = n.meta.isKnown() && !n.inductorMeta.missing;
    auto actual = [&] {
        if (n.inductorMeta.missing)
            return nodeRef(graph, id) + " has no meta[\"val\"]: "
                   + (n.provenance.createdBy.empty() ? std::string("the fusion") : n.provenance.createdBy)
                   + " made it without one, as 2.6's fusion does";
        return nodeRef(graph, id) + (known ? " is " + n.meta.toString() : " has no tensor metadata");
    };
    // A value Inductor's fusion left without meta["val"] fails as in 2.6; one
    // whose metadata Fusebox could not read leaves the answer open.
    if (n.inductorMeta.missing)
        return trace.check(false, "output metadata is known", actual, {id});
    return trace.requireShape(known, "output metadata is known", actual, {id});
}

NodeId tensorOperand(const Graph &graph, NodeId id, size_t index, std::string_view name, std::string_view role,
                     MatchTrace &trace, std::string_view altName)
{
    const Node &n = *graph.node(id);
    const Arg *a = argAt(n, index, name);
    if (!a && !altName.empty())
        a = n.kwarg(altName);
    const bool ok = a && a->isNode() && graph.contains(a->node());
    const std::string requirement = trace.explaining() ? std::string(role) + " is a tensor"
                                                       : std::string(); // quiet matching formats nothing
    if (!trace.check(ok, requirement,
                     [&] {
                         if (!a)
                             return std::string(role) + " is missing";
                         return std::string(role) + (ok ? " is " : " is the literal ") + argText(graph, *a);
                     },
                     {id}))
        return {};
    return a->node();
}

std::optional<std::vector<int64_t>> staticShapeOf(const Graph &graph, NodeId operand, std::string_view role,
                                                  MatchTrace &trace)
{
    const Node &n = *graph.node(operand);
    auto shape = staticShape(n);
    const std::string requirement = trace.explaining() ? std::string(role) + " shape is static"
                                                       : std::string(); // quiet matching formats nothing
    auto actual = [&] {
        std::string who = std::string(role) + " " + nodeRef(graph, operand);
        if (!n.meta.shape)
            return who + " has no shape";
        return who + " is " + n.meta.toString();
    };
    if (!n.meta.shape) {
        trace.requireShape(false, requirement, actual, {operand});
        return std::nullopt;
    }
    if (!trace.check(shape.has_value(), requirement, actual, {operand}))
        return std::nullopt;
    return shape;
}

std::optional<std::vector<Dim>> knownShapeOf(const Graph &graph, NodeId operand, std::string_view role,
                                             MatchTrace &trace)
{
    const Node &n = *graph.node(operand);
    const std::string requirement = trace.explaining() ? std::string(role) + " shape is known"
                                                       : std::string(); // quiet matching formats nothing
    if (!trace.requireShape(n.meta.shape.has_value(), requirement,
                            [&] {
                                return std::string(role) + " " + nodeRef(graph, operand)
                                       + (n.meta.shape ? " is " + n.meta.toString() : std::string(" has no shape"));
                            },
                            {operand}))
        return std::nullopt;
    return *n.meta.shape;
}

TensorMeta shapedMeta(DType dtype, std::vector<Dim> shape, const std::string &device)
{
    TensorMeta meta;
    meta.dtype = dtype;
    meta.shape = std::move(shape);
    meta.device = device;
    return meta;
}

std::vector<Dim> stackedShape(size_t items, const std::vector<Dim> &shape)
{
    std::vector<Dim> out;
    out.reserve(shape.size() + 1);
    out.push_back(static_cast<int64_t>(items));
    out.insert(out.end(), shape.begin(), shape.end());
    return out;
}

std::vector<Dim> dimsOf(const std::vector<int64_t> &shape)
{
    return std::vector<Dim>(shape.begin(), shape.end());
}

bool checkRank(const Graph &graph, NodeId operand, const std::vector<Dim> &shape, int rank, std::string_view role,
               MatchTrace &trace)
{
    const std::string requirement = trace.explaining() ? std::string(role) + " is " + std::to_string(rank) + "-D"
                                                       : std::string(); // quiet matching formats nothing
    return trace.check(static_cast<int>(shape.size()) == rank, requirement,
                       [&] {
                           return std::string(role) + " " + nodeRef(graph, operand) + " is "
                                  + std::to_string(shape.size()) + "-D " + graph.node(operand)->meta.toString();
                       },
                       {operand});
}

bool checkRank(const Graph &graph, NodeId operand, const std::vector<int64_t> &shape, int rank, std::string_view role,
               MatchTrace &trace)
{
    return checkRank(graph, operand, dimsOf(shape), rank, role, trace);
}

bool isMutatingOp(std::string_view op)
{
    if (!op.empty() && op.back() == '_')
        return true;
    // Python's in-place operators (operator.iadd, operator.imul) as FX imports spell them.
    for (std::string_view prefix : {std::string_view("operator.i"), std::string_view("_operator.i")})
        if (op.substr(0, prefix.size()) == prefix)
            return true;
    return false;
}

bool checkNoMutatingUser(const Graph &graph, NodeId id, MatchTrace &trace)
{
    NodeId mutating;
    for (NodeId user : graph.users(id)) {
        const Node &u = *graph.node(user);
        if (u.isOp() && isMutatingOp(u.op)) {
            mutating = user;
            break;
        }
    }
    return trace.check(
        !mutating.isValid(), "no user mutates the output",
        [&] {
            if (!mutating.isValid())
                return usersText(graph, id);
            return "user " + nodeRef(graph, mutating) + " is in-place (" + graph.node(mutating)->qualifiedOp() + ")";
        },
        mutating.isValid() ? std::vector<NodeId>{id, mutating} : std::vector<NodeId>{id});
}

NodeId firstUser(const Graph &graph, NodeId id, MatchTrace &trace)
{
    std::vector<NodeId> users = graph.users(id);
    if (!trace.check(!users.empty(), "output has a user",
                     [&] {
                         return users.empty() ? nodeRef(graph, id) + " has no users"
                                              : "first user " + nodeRef(graph, users.front());
                     },
                     {id}))
        return {};
    return users.front();
}

bool checkLiteral(const Graph &graph, NodeId id, const Arg *arg, std::string_view name, std::string_view absentText,
                  MatchTrace &trace)
{
    bool literal = true;
    if (arg)
        forEachNodeRef(*arg, [&](NodeId) { literal = false; });
    return trace.check(literal, std::string(name) + " is a literal",
                       [&] {
                           if (!arg)
                               return std::string(name) + " is absent (" + std::string(absentText) + ")";
                           return std::string(name) + (literal ? " is " : " is the tensor ") + argText(graph, *arg);
                       },
                       {id});
}

bool groupStillMatches(const Graph &graph, const HorizontalPattern &pattern, const std::vector<NodeId> &group)
{
    if (group.empty())
        return false;
    std::optional<std::string> first;
    for (NodeId id : group) {
        if (!graph.contains(id))
            return false;
        MatchTrace quiet;
        auto key = pattern.key(graph, id, quiet);
        if (!key || (first && *key != *first))
            return false;
        if (!first)
            first = std::move(key);
    }
    return true;
}

std::string targetText(const Graph &graph, NodeId id)
{
    const Node *n = graph.node(id);
    if (!n)
        return "?";
    switch (n->kind()) {
    case NodeKind::Op: return n->op;
    case NodeKind::Output: return "output";
    default: return nodeRef(graph, id);
    }
}

std::string usersText(const Graph &graph, NodeId id)
{
    std::string s = "users ";
    bool first = true;
    for (NodeId user : graph.users(id)) {
        s += (first ? "" : ", ") + targetText(graph, user);
        first = false;
    }
    return first ? "no users" : s;
}

std::string argText(const Graph &graph, const Arg &arg)
{
    return arg.toString([&graph](NodeId id) { return nodeRef(graph, id); });
}

NodeId emit(PatternRewriter &rewriter, NodeId before, NewOp spec, NodeId scopeOf)
{
    NodeId id = rewriter.createOp(spec.op, std::move(spec.args), {}, before, std::move(spec.meta));
    std::string scope;
    if (const Node *s = rewriter.graph().node(scopeOf))
        scope = s->provenance.scope;
    rewriter.modify(id, [&](Node &n) {
        n.overload = spec.overload;
        n.type = spec.type;
        if (!scope.empty())
            n.provenance.scope = scope;
    });
    return id;
}

void markPacketTarget(PatternRewriter &rewriter, NodeId id)
{
    rewriter.modify(id, [](Node &n) {
        n.provenance.originalSpelling = "torch.ops." + n.op.substr(0, n.op.find("::")) + "."
                                        + n.op.substr(n.op.find("::") + 2);
    });
}

NodeId emitStack(PatternRewriter &rewriter, NodeId before, const std::vector<NodeId> &items, int64_t dim,
                 const std::vector<Dim> &itemShape, DType dtype, const std::string &device)
{
    std::vector<Dim> shape = itemShape;
    const int64_t rank = static_cast<int64_t>(itemShape.size()) + 1;
    const int64_t at = dim < 0 ? dim + rank : dim;
    shape.insert(shape.begin() + at, static_cast<int64_t>(items.size()));
    return emit(rewriter, before, {"aten::stack", "", {nodeList(items), dim}, shapedMeta(dtype, shape, device)}, before);
}

NodeId emitDecomposedStack(PatternRewriter &rewriter, NodeId before, const std::vector<NodeId> &items,
                           const std::vector<Dim> &itemShape, DType dtype, const std::string &device)
{
    const std::vector<Dim> one = stackedShape(1, itemShape);
    std::vector<NodeId> unsqueezed;
    for (NodeId item : items)
        unsqueezed.push_back(emit(rewriter, before,
                                  {"aten::unsqueeze", "", {item, int64_t(0)}, shapedMeta(dtype, one, device)}, before));
    const NodeId cat = emit(rewriter, before,
                            {"aten::cat",
                             "",
                             {nodeList(unsqueezed), int64_t(0)},
                             shapedMeta(dtype, stackedShape(items.size(), itemShape), device)},
                            before);
    // decompose_stack calls the packets aten.unsqueeze and aten.cat.
    for (NodeId u : unsqueezed)
        markPacketTarget(rewriter, u);
    markPacketTarget(rewriter, cat);
    return cat;
}

void emitListAndReplace(PatternRewriter &rewriter, NodeId before, NewOp listOp, const std::vector<NodeId> &group,
                        const std::vector<std::vector<Dim>> &itemShapes, DType dtype, const std::string &device)
{
    listOp.type = "Tensor[]";
    // A list value has no single shape; its items carry theirs.
    listOp.meta = TensorMeta{};
    listOp.meta.dtype = dtype;
    listOp.meta.device = device;
    NodeId list = emit(rewriter, before, std::move(listOp), before);
    std::vector<NodeId> items;
    for (size_t i = 0; i < group.size(); ++i)
        items.push_back(emit(rewriter, before,
                             {std::string(ops::kGetItem),
                              "",
                              {list, static_cast<int64_t>(i)},
                              shapedMeta(dtype, itemShapes[i], device)},
                             group[i]));
    replaceMembers(rewriter, group, items);
}

void replaceMembers(PatternRewriter &rewriter, const std::vector<NodeId> &group, const std::vector<NodeId> &replacements)
{
    for (size_t i = 0; i < group.size(); ++i) {
        const Node &member = *rewriter.graph().node(group[i]);
        const TensorMeta meta = member.meta;
        const Provenance provenance = member.provenance;
        rewriter.modify(replacements[i], [&](Node &n) {
            if (meta.isKnown())
                n.meta = meta;
            n.provenance.scope = provenance.scope;
            n.provenance.source = provenance.source;
        });
        rewriter.replaceAllUsesWith(group[i], replacements[i]);
        rewriter.eraseIfDead(group[i]);
    }
}

} // namespace fusebox::group_batch
