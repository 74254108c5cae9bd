#include "FxSubgraphs.h"

#include "FxTargets.h"

namespace fusebox {

Arg subgraphArg(const std::string &name)
{
    return Arg(std::string(kSubgraphArgPrefix) + name);
}

std::string subgraphArgName(const Arg &arg)
{
    const auto *s = std::get_if<std::string>(&arg.value);
    if (!s || !s->starts_with(kSubgraphArgPrefix) || s->size() == kSubgraphArgPrefix.size())
        return {};
    return s->substr(kSubgraphArgPrefix.size());
}

std::vector<FxSubgraph> parseSubgraphs(std::string_view body)
{
    std::vector<FxSubgraph> out;
    size_t pos = 0;
    while (pos < body.size()) {
        size_t end = body.find('\n', pos);
        if (end == std::string_view::npos)
            end = body.size();
        std::string_view line = body.substr(pos, end - pos);
        pos = end + 1;
        if (line.starts_with(kSubgraphHeader) && line.size() > kSubgraphHeader.size())
            out.push_back({std::string(line.substr(kSubgraphHeader.size())), {}});
        else if (!out.empty())
            out.back().text += std::string(line) + "\n";
    }
    return out;
}

std::string joinSubgraphs(const std::vector<FxSubgraph> &subgraphs)
{
    std::string out;
    for (const FxSubgraph &s : subgraphs) {
        out += std::string(kSubgraphHeader) + s.name + "\n";
        // A line of the class that reads as a header (a comment in a class
        // kept as text) is indented by one space: Python ignores a comment's
        // indentation, and parseSubgraphs then keeps it in this subgraph.
        for (size_t pos = 0; pos < s.text.size();) {
            size_t end = s.text.find('\n', pos);
            end = end == std::string::npos ? s.text.size() : end + 1;
            const std::string_view line = std::string_view(s.text).substr(pos, end - pos);
            if (line.starts_with(kSubgraphHeader))
                out += ' ';
            out += line;
            pos = end;
        }
        if (!s.text.empty() && s.text.back() != '\n')
            out += "\n";
    }
    return out;
}

std::vector<FxSubgraph> subgraphsOf(const Node &node)
{
    return parseSubgraphs(node.opaqueBody);
}

std::optional<std::string> subgraphText(const Node &node, std::string_view name)
{
    for (FxSubgraph &s : subgraphsOf(node))
        if (s.name == name)
            return std::move(s.text);
    return std::nullopt;
}

std::string opReferenceName(std::string_view dotted)
{
    if (!dotted.starts_with("torch.ops."))
        return {};
    fx::CanonicalTarget t = fx::canonicalFunction(dotted);
    if (!t.mapped || t.op.find("::") == std::string::npos)
        return {};
    return t.overload && !t.overload->empty() ? t.op + "." + *t.overload : t.op;
}

std::string opReferenceSpelling(std::string_view name)
{
    const size_t colons = name.find("::");
    if (colons == std::string_view::npos)
        return {};
    std::string_view ns = name.substr(0, colons), rest = name.substr(colons + 2);
    const size_t dot = rest.find('.');
    std::string_view op = rest.substr(0, dot);
    std::string_view overload = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    if (!fx::isIdentifier(ns) || !fx::isIdentifier(op) || (dot != std::string_view::npos && !fx::isIdentifier(overload)))
        return {};
    return fx::torchOpsSpelling(std::string(ns) + "::" + std::string(op), overload);
}

} // namespace fusebox
