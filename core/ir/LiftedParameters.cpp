#include "LiftedParameters.h"

namespace fusebox {
namespace {

/// The longest dotted prefix both paths share ("a.b.c", "a.b.d" → "a.b").
std::string commonModule(const std::string &a, const std::string &b)
{
    size_t end = 0;
    for (size_t i = 0; i <= a.size() && i <= b.size(); ++i) {
        const bool aEnd = i == a.size() || a[i] == '.', bEnd = i == b.size() || b[i] == '.';
        if (aEnd && bEnd)
            end = i;
        if (i == a.size() || i == b.size() || a[i] != b[i])
            break;
    }
    return a.substr(0, end);
}

} // namespace

std::optional<std::string> liftedModulePath(std::string_view name)
{
    // "L_" or "l_", then the source's root ("self", "fn", …), then the path.
    if (name.size() < 3 || (name[0] != 'L' && name[0] != 'l') || name[1] != '_')
        return std::nullopt;
    const size_t rootEnd = name.find('_', 2);
    if (rootEnd == std::string_view::npos || rootEnd == 2)
        return std::nullopt;
    std::string_view rest = name.substr(rootEnd + 1); // "modules_a_modules_0_parameters_weight_"
    // The last "parameters_" / "buffers_" ends the module path; a module may be
    // called "self" (attention.self), so the keyword is found from the right.
    size_t cut = std::string_view::npos, keyword = 0;
    for (std::string_view k : {std::string_view("parameters_"), std::string_view("buffers_")}) {
        if (rest.starts_with(k) && cut == std::string_view::npos) {
            cut = 0;
            keyword = k.size();
        }
        const std::string inner = "_" + std::string(k);
        const size_t at = rest.rfind(inner);
        if (at != std::string_view::npos && (cut == std::string_view::npos || at + 1 > cut)) {
            cut = at + 1;
            keyword = k.size();
        }
    }
    if (cut == std::string_view::npos || cut + keyword >= rest.size())
        return std::nullopt;                                           // no keyword, or no attribute name after it
    std::string_view modules = rest.substr(0, cut == 0 ? 0 : cut - 1); // "modules_a_modules_0"
    if (modules.empty())
        return std::string();
    if (!modules.starts_with("modules_"))
        return std::nullopt;
    modules.remove_prefix(8);
    std::string path;
    for (size_t start = 0;;) {
        const size_t next = modules.find("_modules_", start);
        const std::string_view segment = modules.substr(start, next == std::string_view::npos ? next : next - start);
        if (segment.empty())
            return std::nullopt;
        path += (path.empty() ? "" : ".") + std::string(segment);
        if (next == std::string_view::npos)
            break;
        start = next + 9;
    }
    return path;
}

bool isLiftedParameter(const Node &node)
{
    return node.kind() == NodeKind::Input && liftedModulePath(node.name).has_value();
}

bool isWeight(const Node &node)
{
    return node.kind() == NodeKind::Constant || isLiftedParameter(node);
}

std::vector<std::string> derivedModuleScopes(const Graph &graph)
{
    bool lifted = false;
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (!n.provenance.scope.empty())
            return {};
        lifted = lifted || isLiftedParameter(n);
    }
    if (!lifted)
        return {};
    std::vector<std::string> scopes(graph.idBound());
    std::vector<char> scoped(graph.idBound(), 0); // has a module, even the root's ""
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (n.kind() == NodeKind::Input) {
            if (auto path = liftedModulePath(n.name)) {
                scopes[id.value] = *path;
                scoped[id.value] = 1;
            }
            continue;
        }
        if (n.kind() != NodeKind::Op)
            continue;
        // The module whose weights it reads, else the one its inputs share.
        bool any = false;
        std::string common;
        for (bool weightsOnly : {true, false}) {
            graph.forEachInput(id, [&](NodeId in) {
                if (!scoped[in.value] || (weightsOnly && !isLiftedParameter(*graph.node(in))))
                    return;
                common = any ? commonModule(common, scopes[in.value]) : scopes[in.value];
                any = true;
            });
            if (any)
                break;
        }
        if (any) {
            scopes[id.value] = std::move(common);
            scoped[id.value] = 1;
        }
    }
    return scopes;
}

} // namespace fusebox
