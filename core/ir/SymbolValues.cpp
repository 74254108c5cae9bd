#include "SymbolValues.h"

#include "GraphBuilder.h"
#include "SymbolicSize.h"

namespace fusebox {

std::optional<std::map<std::string, int64_t>> symbolValues(const Graph &symbolic, const Graph &concrete)
{
    const std::vector<NodeId> &a = symbolic.inputs();
    const std::vector<NodeId> &b = concrete.inputs();
    if (a.size() != b.size())
        return std::nullopt;
    std::map<std::string, int64_t> values;
    for (size_t i = 0; i < a.size(); ++i) {
        const auto &sa = symbolic.node(a[i])->meta.shape;
        const auto &sb = concrete.node(b[i])->meta.shape;
        if (!sa || !sb)
            continue;
        if (sa->size() != sb->size())
            return std::nullopt;
        for (size_t d = 0; d < sa->size(); ++d) {
            const auto *symbol = std::get_if<std::string>(&(*sa)[d]);
            const auto *size = std::get_if<int64_t>(&(*sb)[d]);
            if (!symbol || !size)
                continue;
            auto [it, added] = values.emplace(*symbol, *size);
            if (!added && it->second != *size)
                return std::nullopt;
        }
    }
    return values;
}

Graph withSymbolValues(const Graph &graph, const std::map<std::string, int64_t> &values)
{
    Graph out = graph.clone();
    if (values.empty())
        return out;
    // A copy made here and not handed out yet: an importer-style fix-up of its shapes.
    GraphBuilder build = GraphBuilder::reopen(out);
    for (NodeId id : out.nodeIds()) {
        auto &shape = build.node(id).meta.shape;
        if (!shape)
            continue;
        for (Dim &d : *shape)
            if (std::holds_alternative<std::string>(d))
                if (auto size = SymbolicSize::parse(d); size)
                    if (auto value = size->valueAt(values))
                        d = *value;
    }
    return out;
}

std::string formatSymbolValues(const std::map<std::string, int64_t> &values)
{
    std::string text;
    for (const auto &[symbol, size] : values)
        text += (text.empty() ? "" : ", ") + symbol + " = " + std::to_string(size);
    return text;
}

} // namespace fusebox
