// Higher-order ops of print_readable dumps: torch.ops.higher_order.cond(pred,
// self.cond_true_0, self.cond_false_0, [x]), wrap(self.wrap_body_0, x), ...
// take nested classes as values. Such a class is no weight and is not
// flattened: it becomes the argument "subgraph:<name>", and the op node keeps
// the class's code in its opaqueBody (FxSubgraphs.h), so that the writer can
// print it again and the IDE can open it as a graph of its own.

#include "FxSubgraphs.h"
#include "FxTextReaderImpl.h"

#include <algorithm>

namespace fusebox::fx {
namespace {

/// source with the class name of its `class <name>(...):` header replaced by `name`.
std::string renamedClass(const std::string &source, const std::string &name)
{
    constexpr std::string_view kClass = "class ";
    if (!source.starts_with(kClass))
        return source;
    const size_t end = source.find_first_of("(:\n", kClass.size());
    if (end == std::string::npos)
        return source;
    return std::string(kClass) + name + source.substr(end);
}

void collectSubgraphNames(const Arg &a, std::vector<std::string> &names)
{
    if (std::string name = subgraphArgName(a); !name.empty()) {
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(std::move(name));
    } else if (const auto *items = a.items()) {
        for (const Arg &item : *items)
            collectSubgraphNames(item, names);
    }
}

} // namespace

Arg Builder::subgraphValue(const Expr &e, const NestedClass &nested, const std::string &path)
{
    // Named as nodes are: "cond_true_0" at the top level, "submod_0_cond_true_0"
    // inside a flattened submod_0, so that the graph, written flat, names each once.
    const std::string base = m_namePrefix + sanitize(path);
    std::string name = base;
    for (int i = 1;; ++i) {
        std::string source = renamedClass(nested.source, name);
        auto [it, added] = m_subgraphs->emplace(name, source);
        if (added || it->second == source)
            break;
        name = base + "_" + std::to_string(i); // another class of that name
    }
    if (!nested.function) {
        m_warnings.push_back(where(e.line) + ": subgraph self." + joinPath(m_selfPath, path)
                             + " kept as text; it does not parse: " + nested.error);
    } else {
        // Read it once as a graph of its own, so that a subgraph the IDE could
        // not open is reported here, at its line.
        LoadedModel scratch;
        if (Status read = buildGraph(*nested.function, m_options, scratch); !read)
            m_warnings.push_back(where(e.line) + ": subgraph self." + joinPath(m_selfPath, path)
                                 + " kept as text; it does not read as a graph: " + read.error().message);
    }
    return subgraphArg(name);
}

void Builder::attachSubgraphs(Node &n) const
{
    std::vector<std::string> names;
    for (const Arg &a : n.args())
        collectSubgraphNames(a, names);
    for (const NamedArg &kw : n.kwargs())
        collectSubgraphNames(kw.value, names);
    std::vector<FxSubgraph> subgraphs;
    for (const std::string &name : names)
        if (auto it = m_subgraphs->find(name); it != m_subgraphs->end())
            subgraphs.push_back({name, it->second});
    if (!subgraphs.empty())
        n.opaqueBody = joinSubgraphs(subgraphs);
}

} // namespace fusebox::fx
