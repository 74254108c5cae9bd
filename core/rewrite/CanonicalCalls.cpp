#include "CanonicalCalls.h"

#include "PatternRewriter.h"

#include "core/ir/ArgNormalizer.h"

#include <optional>

namespace fusebox {
namespace {

/// The call's arguments in schema order, defaults filled; nullopt when it
/// does not bind.
std::optional<std::vector<Arg>> positionalCall(const OpSchema &schema, const Node &n)
{
    if (n.args().size() > schema.arguments.size())
        return std::nullopt;
    std::vector<Arg> out;
    size_t keywordsUsed = 0;
    for (size_t i = 0; i < schema.arguments.size(); ++i) {
        const SchemaArgument &param = schema.arguments[i];
        if (i < n.args().size()) {
            out.push_back(n.args()[i]);
            continue;
        }
        const NamedArg *given = nullptr;
        for (const NamedArg &kw : n.kwargs())
            if (kw.name == param.name)
                given = &kw;
        if (given) {
            out.push_back(given->value);
            ++keywordsUsed;
        } else if (param.defaultValue) {
            auto value = parseSchemaDefault(*param.defaultValue);
            if (!value)
                return std::nullopt;
            out.push_back(std::move(*value));
        } else {
            return std::nullopt;
        }
    }
    if (keywordsUsed != n.kwargs().size())
        return std::nullopt; // a keyword the schema does not have, or one given twice
    return out;
}

} // namespace

size_t canonicaliseCalls(Graph &graph, const OpSchemaRegistry &schemas)
{
    PatternRewriter rewriter(graph);
    size_t changed = 0;
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (!n.isOp())
            continue;
        const OpSchema *schema = schemas.find(n.op, n.overload);
        if (!schema)
            continue;
        auto args = positionalCall(*schema, n);
        if (!args || (*args == n.args() && n.kwargs().empty()))
            continue;
        rewriter.setArgs(id, std::move(*args), {});
        ++changed;
    }
    return changed;
}

size_t forgetListMetadata(Graph &graph)
{
    PatternRewriter rewriter(graph);
    size_t changed = 0;
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (!n.isOp() || !n.meta.isKnown() || graph.useCount(id) == 0)
            continue;
        bool onlyGetitems = true;
        graph.forEachUse(id, [&](NodeId user) { onlyGetitems = onlyGetitems && graph.node(user)->op == ops::kGetItem; });
        if (!onlyGetitems)
            continue;
        rewriter.modify(id, [](Node &node) { node.meta = TensorMeta{}; });
        ++changed;
    }
    return changed;
}

} // namespace fusebox
