#include "GraphCompare.h"

namespace fusebox {
namespace {

std::string argText(const Graph &g, const Arg &a)
{
    return a.toString([&g](NodeId id) {
        const Node *n = g.node(id);
        return n ? "%" + n->name : "%<missing #" + std::to_string(id.value) + ">";
    });
}

std::string kwargsText(const Graph &g, const Node &n)
{
    std::string s;
    for (const NamedArg &kw : n.kwargs())
        s += kw.name + "=" + argText(g, kw.value) + ", ";
    return s;
}

std::string argsText(const Graph &g, const Node &n)
{
    std::string s;
    for (const Arg &a : n.args())
        s += argText(g, a) + ", ";
    return s;
}

} // namespace

std::optional<std::string> firstDifference(const Graph &a, const Graph &b)
{
    if (a.metadata() != b.metadata())
        return "graph metadata differs";
    const auto idsA = a.nodeIds(), idsB = b.nodeIds();
    for (size_t i = 0; i < idsA.size() && i < idsB.size(); ++i) {
        const Node &x = *a.node(idsA[i]);
        const Node &y = *b.node(idsB[i]);
        const std::string where = "node " + std::to_string(i) + " (%" + x.name + ")";
        auto differs = [&](const char *what, const std::string &l, const std::string &r) -> std::optional<std::string> {
            if (l == r)
                return std::nullopt;
            return where + ": " + what + " '" + l + "' != '" + r + "'";
        };
        if (auto d = differs("name", x.name, y.name))
            return d;
        if (auto d = differs("kind", std::string(toString(x.kind())), std::string(toString(y.kind()))))
            return d;
        if (auto d = differs("op", x.op, y.op))
            return d;
        if (auto d = differs("overload", x.overload, y.overload))
            return d;
        if (auto d = differs("type", x.type, y.type))
            return d;
        if (auto d = differs("meta", x.meta.toString() + x.meta.device, y.meta.toString() + y.meta.device))
            return d;
        if (x.meta != y.meta)
            return where + ": tensor metadata (strides) differs";
        if (auto d = differs("scope", x.provenance.scope, y.provenance.scope))
            return d;
        if (x.provenance != y.provenance)
            return where + ": provenance differs";
        if (auto d = differs("weight key", x.weightKey, y.weightKey))
            return d;
        if (auto d = differs("opaque body", x.opaqueBody, y.opaqueBody))
            return d;
        if (auto d = differs("args", argsText(a, x), argsText(b, y)))
            return d;
        if (auto d = differs("kwargs", kwargsText(a, x), kwargsText(b, y)))
            return d;
    }
    if (idsA.size() != idsB.size())
        return "node count " + std::to_string(idsA.size()) + " != " + std::to_string(idsB.size());
    return std::nullopt;
}

} // namespace fusebox
