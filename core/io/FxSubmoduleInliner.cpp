// Module calls of print_readable dumps. print_readable prints the code of
// each child that is a GraphModule as a class nested in its parent's class
// (split_module's submod_N, HOP bodies, ...); a call self.<path>(...) of such
// a class is flattened: its forward runs in a builder of its own (own names,
// `self` = the submodule), on the call's arguments, and the call's value is
// what it returns. Other module calls stay opaque call_module nodes.

#include "FxTextReaderImpl.h"

namespace fusebox::fx {

Builder::Builder(const FxFunction &fn, const Builder &parent, const std::string &path)
    : m_fn(fn)
    , m_options(parent.m_options)
    , m_graph(parent.m_graph)
    , m_build(parent.m_build) // the parent's builder: the graph holds the caller's nodes already
    , m_warnings(parent.m_warnings)
    , m_nodeLines(parent.m_nodeLines)
    , m_summaries(parent.m_summaries)
    , m_subgraphs(parent.m_subgraphs)
    , m_targets(parent.m_targets)
    , m_file(parent.m_file)
    , m_scope(joinPath(parent.m_scope, path))
    , m_source(parent.m_source)
    , m_parent(&parent)
    , m_selfPath(joinPath(parent.m_selfPath, path))
    , m_scopeBase(m_scope)
    , m_namePrefix(parent.m_namePrefix + sanitize(path) + "_")
{
    for (const NestedClass &n : fn.nested)
        m_nested.emplace(n.name, &n);
}

Arg Builder::moduleCall(const Expr &e, const std::string &path, const std::string &name)
{
    if (const NestedClass *nested = findNested(path))
        return flatten(e, *nested, path);
    CallArgs a = callArgs(e);
    const std::string full = joinPath(m_selfPath, path);
    NodeId id = addNode("call_module:" + full, std::nullopt, "", std::move(a.args), std::move(a.kwargs), name, e.line,
                        true);
    summarise("module calls without a class in the dump, imported as opaque nodes", "self." + full, e.line);
    return Arg(id);
}

const NestedClass *Builder::findNested(const std::string &path) const
{
    // self.a.b: class b nested in class a, as print_readable nests a child's children.
    const NestedClass *found = nullptr;
    const auto *classes = &m_nested;
    std::unordered_map<std::string, const NestedClass *> inner;
    size_t begin = 0;
    while (true) {
        const size_t dot = path.find('.', begin);
        auto it = classes->find(path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
        if (it == classes->end())
            return nullptr;
        found = it->second;
        if (dot == std::string::npos)
            return found;
        if (!found->function)
            return nullptr;
        inner.clear();
        for (const NestedClass &n : found->function->nested)
            inner.emplace(n.name, &n);
        classes = &inner;
        begin = dot + 1;
    }
}

Arg Builder::flatten(const Expr &e, const NestedClass &nested, const std::string &path)
{
    const std::string callee = "self." + joinPath(m_selfPath, path);
    if (!nested.function) // it did not parse: its own error, where the call is
        throw Failure{nested.error + " (in submodule " + callee + ", called at line " + std::to_string(e.line) + ")"};
    // Unreachable while self.x only names children (the parser bounds their
    // nesting); kept so that a lookup change cannot recurse forever.
    for (const Builder *b = this; b; b = b->m_parent)
        if (&b->m_fn == nested.function.get())
            fail(e, "expected a submodule that is not being flattened, found " + callee + " calling itself");
    CallArgs args = callArgs(e);
    // Said once per file, so that no reader of the graph takes the inlined
    // nodes for the parent's own: they keep the submodule as their scope.
    summarise("nested GraphModule calls read inline, each a module group of its own", callee, e.line);
    Builder inner(*nested.function, *this, path);
    inner.bindParameters(e, args, callee);
    const Stmt &ret = inner.body(npos);
    return ret.value ? inner.evaluate(*ret.value, {}) : Arg(NoneArg{});
}

void Builder::bindParameters(const Expr &call, const CallArgs &args, const std::string &callee)
{
    const auto &params = m_fn.params;
    const std::string signature = callee + " (forward at line " + std::to_string(m_fn.line) + ")";
    std::vector<bool> bound(params.size(), false);
    auto bind = [&](size_t p, Arg value) {
        checkNew(params[p].name, params[p].line, params[p].column);
        m_env.bind(params[p].name, std::move(value), params[p].line);
        bound[p] = true;
    };
    // Positional arguments fill the parameters before *args, which takes the rest.
    size_t next = 0, positional = 0;
    for (size_t p = 0; p < params.size() && params[p].star != 2; ++p) {
        if (params[p].star == 1) {
            std::vector<Arg> rest(args.args.begin() + std::ptrdiff_t(std::min(next, args.args.size())), args.args.end());
            next = args.args.size();
            bind(p, Arg::list(std::move(rest), ArgList::Kind::Tuple));
            break;
        }
        ++positional;
        if (next < args.args.size())
            bind(p, args.args[next++]);
    }
    if (next < args.args.size())
        fail(*call.items[next], "expected at most " + std::to_string(positional) + " positional argument"
                                    + (positional == 1 ? "" : "s") + " for " + signature + ", found "
                                    + std::to_string(args.args.size()));
    for (size_t k = 0; k < args.kwargs.size(); ++k) {
        const NamedArg &kw = args.kwargs[k];
        const Expr &at = *call.keywords[k].second;
        size_t p = 0;
        while (p < params.size() && (params[p].star != 0 || params[p].name != kw.name))
            ++p;
        if (p == params.size())
            fail(at, "expected a parameter of " + signature + ", found keyword '" + kw.name + "'");
        if (bound[p])
            fail(at, "expected one value for parameter '" + kw.name + "' of " + signature + ", found two");
        bind(p, kw.value);
    }
    for (size_t p = 0; p < params.size(); ++p) {
        if (bound[p] || params[p].star == 2)
            continue;
        if (!params[p].defaultValue)
            fail(call, "expected a value for parameter '" + params[p].name + "' of " + signature + ", found none");
        bind(p, evaluate(*params[p].defaultValue, {}));
    }
}

} // namespace fusebox::fx
