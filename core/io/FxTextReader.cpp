#include "FxTextReader.h"

#include "FxAnnotation.h"
#include "FxTargets.h"
#include "core/ir/DType.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace fusebox::fx {
namespace {

/// Thrown inside the builder, caught in buildGraph: keeps every check one line.
struct Failure {
    std::string message;
};

bool isDigits(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Names FX code uses as modules or builtins rather than values.
bool isGlobalRoot(std::string_view name)
{
    for (std::string_view g : {"torch", "F", "operator", "_operator", "math", "builtins", "pytree", "fx_pytree",
                               "device", "slice", "getattr", "inf", "nan", "None", "True", "False"})
        if (name == g)
            return true;
    return false;
}

/// Python modules FX code calls functions of.
bool isModuleRoot(std::string_view name)
{
    for (std::string_view g : {"torch", "F", "operator", "_operator", "math", "builtins", "pytree", "fx_pytree"})
        if (name == g)
            return true;
    return false;
}

class Builder {
public:
    Builder(const FxFunction &fn, const FxReadOptions &options, LoadedModel &model)
        : m_fn(fn), m_options(options), m_graph(model.graph), m_warnings(model.warnings),
          m_file(options.sourceName.empty() ? "<fx>" : options.sourceName)
    {
        for (const NestedClass &n : fn.nested)
            m_nested.emplace(n.name, &n);
    }

    void run()
    {
        size_t flattenIndex = findTreeFlatten();
        if (flattenIndex == npos) {
            for (const Param &p : m_fn.params) {
                applyDirectivesBefore(p.line);
                addInput(p.name, p.annotation, p.line, p.column);
            }
        } else {
            // AOT joint graph: the flattened names are the inputs.
            for (const Stmt &s : m_fn.body)
                if (s.kind == Stmt::Kind::AnnotationOnly)
                    m_pending[s.targets.front()->text] = *s.annotation;
            const Stmt &unpack = m_fn.body[flattenIndex];
            for (const ExprPtr &item : unpack.targets.front()->items) {
                auto it = m_pending.find(item->text);
                addInput(item->text, it == m_pending.end() ? std::nullopt : std::optional(it->second), item->line,
                         item->column);
            }
        }
        bool returned = false;
        for (size_t i = 0; i < m_fn.body.size() && !returned; ++i) {
            if (i == flattenIndex)
                continue;
            const Stmt &s = m_fn.body[i];
            applyDirectivesBefore(s.line);
            returned = statement(s);
        }
        if (!returned)
            throw Failure{positionPrefix(m_file, m_fn.line, m_fn.column)
                          + "expected a return statement in forward(), found none"};
    }

private:
    static constexpr size_t npos = size_t(-1);

    [[noreturn]] void fail(const Expr &at, const std::string &what) const
    {
        throw Failure{positionPrefix(m_file, at.line, at.column) + what};
    }
    std::string where(int line) const { return m_file + ":" + std::to_string(line); }

    // --- comments --------------------------------------------------------------
    void applyDirectivesBefore(int line)
    {
        const auto &comments = m_fn.comments;
        while (m_commentCursor < comments.size() && comments[m_commentCursor].line < line) {
            const Comment &c = comments[m_commentCursor++];
            if (!c.ownLine)
                continue;
            std::string_view text = c.text;
            if (text.starts_with("File: "))
                m_source = parseFileComment(text.substr(6));
            else if (text.starts_with("No stacktrace found"))
                m_source = {};
            else if (text.starts_with("scope:")) {
                std::string_view scope = text.substr(6);
                while (!scope.empty() && scope.front() == ' ')
                    scope.remove_prefix(1);
                m_scope = std::string(scope);
            }
        }
    }

    /// The "# type: T" comment trailing a statement, or empty.
    std::string trailingType(const Stmt &s) const
    {
        for (size_t i = m_commentCursor; i < m_fn.comments.size() && m_fn.comments[i].line <= s.endLine; ++i) {
            const Comment &c = m_fn.comments[i];
            if (!c.ownLine && c.line >= s.line && c.text.starts_with("type:")) {
                std::string_view t = std::string_view(c.text).substr(5);
                while (!t.empty() && t.front() == ' ')
                    t.remove_prefix(1);
                return std::string(t);
            }
        }
        return {};
    }

    // --- inputs and annotations ------------------------------------------------
    ParsedAnnotation annotation(const Annotation &a)
    {
        AnnotationError error;
        auto parsed = parseAnnotation(a.text, error);
        if (!parsed)
            throw Failure{positionPrefix(m_file, a.line, a.column + int(error.offset)) + "expected " + error.expected
                          + ", found " + error.found};
        if (!parsed->unsupportedDType.empty())
            m_warnings.push_back(where(a.line) + ": dtype '" + parsed->unsupportedDType
                                 + "' has no Fusebox equivalent; read as unknown");
        return std::move(*parsed);
    }

    void addInput(const std::string &name, const std::optional<Annotation> &ann, int line, int column)
    {
        checkNew(name, line, column);
        ParsedAnnotation parsed;
        if (ann)
            parsed = annotation(*ann);
        NodeId id = m_graph.addInput(name, parsed.meta, parsed.type);
        Node &n = *m_graph.node(id);
        n.provenance.scope = m_scope;
        n.provenance.source = m_source;
        // The symbol a Sym input stands for, when it is not its own name.
        if (parsed.type == "SymInt" && parsed.symbol != name)
            n.provenance.originalSpelling = "Sym(" + parsed.symbol + ")";
        m_env[name] = Binding{Arg(id), line};
    }

    void checkNew(const std::string &name, int line, int column)
    {
        auto it = m_env.find(name);
        if (it != m_env.end())
            throw Failure{positionPrefix(m_file, line, column) + "expected a new name, found '" + name
                          + "' (already defined at line " + std::to_string(it->second.line) + ")"};
    }

    size_t findTreeFlatten() const
    {
        for (size_t i = 0; i < m_fn.body.size(); ++i) {
            const Stmt &s = m_fn.body[i];
            if (s.kind == Stmt::Kind::AnnotationOnly || s.kind == Stmt::Kind::Pass)
                continue;
            if (s.kind == Stmt::Kind::Assign && s.targets.size() == 1 && s.targets[0]->kind == Expr::Kind::Tuple
                && s.value->kind == Expr::Kind::Call) {
                auto callee = dottedName(*s.value->object);
                if (callee && callee->ends_with("tree_flatten_spec"))
                    return i;
            }
            return npos;
        }
        return npos;
    }

    // --- statements -------------------------------------------------------------
    /// Handles one statement; true when it was the return.
    bool statement(const Stmt &s)
    {
        switch (s.kind) {
        case Stmt::Kind::Pass: return false;
        case Stmt::Kind::AnnotationOnly: m_pending[s.targets.front()->text] = *s.annotation; return false;
        case Stmt::Kind::Expression: evaluate(*s.value, {}); return false;
        case Stmt::Kind::Return: returnStatement(s); return true;
        case Stmt::Kind::Assign: break;
        }
        // "a = b = None": PT2 frees values early; nothing to build.
        if (s.value->kind == Expr::Kind::Name && s.value->text == "None")
            return false;
        const Expr &first = *s.targets.front();
        if (first.kind == Expr::Kind::Tuple) {
            unpack(s, first);
            return false;
        }
        checkNew(first.text, first.line, first.column);
        const uint32_t before = m_graph.idBound();
        Arg value = evaluate(*s.value, first.text);
        if (value.isNode() && value.node().value >= before) {
            Node &n = *m_graph.node(value.node());
            if (s.annotation) {
                ParsedAnnotation parsed = annotation(*s.annotation);
                n.meta = parsed.meta;
                n.type = parsed.type;
            }
            if (std::string type = trailingType(s); !type.empty())
                n.type = type;
        }
        for (const ExprPtr &target : s.targets) {
            if (target.get() != &first)
                checkNew(target->text, target->line, target->column);
            m_env[target->text] = Binding{value, s.line};
        }
        return false;
    }

    void unpack(const Stmt &s, const Expr &targets)
    {
        for (const ExprPtr &t : targets.items)
            checkNew(t->text, t->line, t->column);
        Arg value = evaluate(*s.value, {});
        const auto &names = targets.items;
        if (const auto *items = value.items()) {
            if (items->size() != names.size())
                fail(*s.value, "expected " + std::to_string(names.size()) + " values to unpack, found "
                                   + std::to_string(items->size()));
            for (size_t i = 0; i < names.size(); ++i)
                m_env[names[i]->text] = Binding{(*items)[i], s.line};
            return;
        }
        if (!value.isNode())
            fail(*s.value, "expected a value to unpack, found " + value.toString());
        for (size_t i = 0; i < names.size(); ++i) {
            NodeId id = addNode("getitem", std::nullopt, "", {value, Arg(int64_t(i))}, {}, names[i]->text,
                                names[i]->line, true);
            auto pending = m_pending.find(names[i]->text);
            if (pending != m_pending.end())
                m_graph.node(id)->meta = annotation(pending->second).meta;
            m_env[names[i]->text] = Binding{Arg(id), s.line};
        }
    }

    void returnStatement(const Stmt &s)
    {
        std::vector<Arg> outputs;
        const Expr *value = s.value.get();
        if (value && value->kind == Expr::Kind::Call && value->object) {
            auto callee = dottedName(*value->object);
            if (callee && callee->ends_with("tree_unflatten") && !value->items.empty())
                value = value->items.front().get();
        }
        if (value && (value->kind == Expr::Kind::Tuple || value->kind == Expr::Kind::List)) {
            for (const ExprPtr &item : value->items)
                outputs.push_back(evaluate(*item, {}));
        } else if (value) {
            outputs.push_back(evaluate(*value, {}));
        }
        m_graph.setOutputs(std::move(outputs));
    }

    // --- expressions -------------------------------------------------------------
    /// "torch.ops.aten.add" for a chain of attributes on a global (not a value).
    std::optional<std::string> dottedName(const Expr &e) const
    {
        if (e.kind == Expr::Kind::Name)
            return (m_env.count(e.text) || e.text == "self") ? std::nullopt : std::optional(e.text);
        if (e.kind == Expr::Kind::Attribute) {
            auto base = dottedName(*e.object);
            return base ? std::optional(*base + "." + e.text) : std::nullopt;
        }
        return std::nullopt;
    }

    /// "layer.weight" for self.layer.weight / getattr(self.layer, "weight"); "" for self.
    std::optional<std::string> selfPath(const Expr &e) const
    {
        auto join = [](const std::string &a, const std::string &b) { return a.empty() ? b : a + "." + b; };
        if (e.kind == Expr::Kind::Name)
            return e.text == "self" && !m_env.count("self") ? std::optional(std::string()) : std::nullopt;
        if (e.kind == Expr::Kind::Attribute) {
            auto base = selfPath(*e.object);
            return base ? std::optional(join(*base, e.text)) : std::nullopt;
        }
        if (e.kind == Expr::Kind::Call && e.object->kind == Expr::Kind::Name && e.object->text == "getattr"
            && e.items.size() == 2 && e.items[1]->kind == Expr::Kind::String) {
            auto base = selfPath(*e.items[0]);
            return base ? std::optional(join(*base, e.items[1]->text)) : std::nullopt;
        }
        return std::nullopt;
    }

    Arg evaluate(const Expr &e, const std::string &name)
    {
        switch (e.kind) {
        case Expr::Kind::Int: return intLiteral(e);
        case Expr::Kind::Float: return Arg(std::strtod(e.text.c_str(), nullptr));
        case Expr::Kind::String: return Arg(e.text);
        case Expr::Kind::Name:
        case Expr::Kind::Percent: return lookup(e);
        case Expr::Kind::List:
        case Expr::Kind::Tuple: {
            std::vector<Arg> items;
            for (const ExprPtr &item : e.items)
                items.push_back(evaluate(*item, {}));
            return Arg::list(std::move(items), e.kind == Expr::Kind::List ? ArgList::Kind::List : ArgList::Kind::Tuple);
        }
        case Expr::Kind::Slice: {
            std::vector<Arg> items;
            for (const ExprPtr &item : e.items)
                items.push_back(item ? evaluate(*item, {}) : Arg(NoneArg{}));
            return Arg::list(std::move(items), ArgList::Kind::Slice);
        }
        case Expr::Kind::Dict: fail(e, "expected a value, found a dictionary");
        case Expr::Kind::Unary: return unary(e, name);
        case Expr::Kind::Binary: {
            Arg a = evaluate(*e.items[0], {}), b = evaluate(*e.items[1], {});
            std::string spelling = operatorForInfix(e.text, false);
            return Arg(addNode(canonicalFunction(spelling), spelling, {a, b}, {}, name, e.line));
        }
        case Expr::Kind::Subscript: return subscript(e, name);
        case Expr::Kind::Attribute: return attribute(e, name);
        case Expr::Kind::Call: return call(e, name);
        }
        fail(e, "expected a value");
    }

    Arg intLiteral(const Expr &e) const
    {
        errno = 0;
        char *end = nullptr;
        long long v = std::strtoll(e.text.c_str(), &end, 10);
        if (errno == ERANGE || end != e.text.c_str() + e.text.size())
            fail(e, "expected an integer that fits in 64 bits, found " + e.text);
        return Arg(int64_t(v));
    }

    Arg lookup(const Expr &e) const
    {
        auto it = m_env.find(e.text);
        if (it != m_env.end())
            return it->second.value;
        if (e.kind == Expr::Kind::Name) {
            if (e.text == "None")
                return Arg(NoneArg{});
            if (e.text == "True" || e.text == "False")
                return Arg(e.text == "True");
            if (e.text == "inf")
                return Arg(std::numeric_limits<double>::infinity());
            if (e.text == "nan")
                return Arg(std::numeric_limits<double>::quiet_NaN());
        }
        fail(e, "name '" + std::string(e.kind == Expr::Kind::Percent ? "%" : "") + e.text + "' is not defined");
    }

    Arg unary(const Expr &e, const std::string &name)
    {
        Arg operand = evaluate(*e.items[0], {});
        if (e.text == "+" && !operand.isNode())
            return operand;
        if (e.text == "-") {
            if (auto *d = std::get_if<double>(&operand.value))
                return Arg(-*d);
            if (auto *i = std::get_if<int64_t>(&operand.value))
                return Arg(int64_t(0 - uint64_t(*i)));
        }
        std::string spelling = operatorForInfix(e.text, true);
        return Arg(addNode(canonicalFunction(spelling), spelling, {operand}, {}, name, e.line));
    }

    Arg subscript(const Expr &e, const std::string &name)
    {
        Arg object = evaluate(*e.object, {});
        Arg index = evaluate(*e.items[0], {});
        if (auto *items = object.items(); items && index.asInt()) {
            int64_t i = *index.asInt(), n = int64_t(items->size());
            if (i < -n || i >= n)
                fail(e, "expected an index below " + std::to_string(n) + ", found " + std::to_string(i));
            return (*items)[size_t(i < 0 ? i + n : i)];
        }
        if (object.isNode() && index.asInt())
            return Arg(addNode("getitem", std::nullopt, "", {object, index}, {}, name, e.line, true));
        return tensorIndex(object, index, name, e.line);
    }

    /// Basic tensor indexing (`x[:, 0]`, `x[1:3]`) as the aten::slice /
    /// aten::select chain TorchScript's tracer records for it, so that both
    /// imports of a model agree (written back as torch.ops calls). Other indices (None, Ellipsis, tensors) stay
    /// one opaque operator.getitem node.
    Arg tensorIndex(const Arg &object, const Arg &index, const std::string &name, int line)
    {
        std::vector<Arg> items;
        if (const auto *list = std::get_if<ArgList>(&index.value); list && list->kind != ArgList::Kind::Slice)
            items = list->items;
        else
            items = {index};
        auto isBasic = [](const Arg &a) {
            const auto *l = std::get_if<ArgList>(&a.value);
            return a.asInt().has_value() || (l && l->kind == ArgList::Kind::Slice && l->items.size() == 3);
        };
        if (!object.isNode() || items.empty() || !std::all_of(items.begin(), items.end(), isBasic))
            return Arg(addNode(CanonicalTarget{"operator.getitem", std::nullopt, false}, "operator.getitem",
                               {object, index}, {}, name, line));
        Arg value = object;
        int64_t dim = 0;
        for (size_t i = 0; i < items.size(); ++i) {
            const std::string stepName = i + 1 == items.size() ? name : std::string();
            if (auto at = items[i].asInt()) {
                value = Arg(addNode("aten::select", std::string("int"), "",
                                    {value, Arg(dim), Arg(*at)}, {}, stepName, line, true));
                continue;
            }
            const auto &bounds = std::get<ArgList>(items[i].value).items;
            auto orElse = [](const Arg &a, int64_t fallback) { return a.asInt() ? Arg(*a.asInt()) : Arg(fallback); };
            value = Arg(addNode("aten::slice", std::string("Tensor"), "",
                                {value, Arg(dim), orElse(bounds[0], 0),
                                 orElse(bounds[1], std::numeric_limits<int64_t>::max()), orElse(bounds[2], 1)},
                                {}, stepName, line, true));
            ++dim;
        }
        return value;
    }

    Arg attribute(const Expr &e, const std::string &name)
    {
        if (auto path = selfPath(e)) {
            NodeId id = m_graph.addConstant(name.empty() ? sanitize(*path) : name, *path);
            Node &n = *m_graph.node(id);
            n.provenance.scope = m_scope;
            n.provenance.source = m_source;
            return Arg(id);
        }
        if (auto dotted = dottedName(e)) {
            if (dotted->starts_with("torch.")) {
                if (auto dtype = parseDType(*dotted))
                    return Arg(*dtype);
                if (*dotted == "torch.inf" || *dotted == "math.inf")
                    return Arg(std::numeric_limits<double>::infinity());
                return Arg(*dotted); // memory formats, layouts: kept by name
            }
            if (*dotted == "math.inf")
                return Arg(std::numeric_limits<double>::infinity());
            const Expr *root = &e;
            while (root->object)
                root = root->object.get();
            fail(*root, "name '" + root->text + "' is not defined");
        }
        Arg object = evaluate(*e.object, {});
        CanonicalTarget t;
        t.op = "Tensor." + e.text;
        return Arg(addNode(t, "Tensor." + e.text, {object}, {}, name, e.line));
    }

    static std::string sanitize(const std::string &path)
    {
        std::string s = path;
        for (char &c : s)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
                c = '_';
        return s.empty() ? std::string("_attr") : s;
    }

    CallArgs callArgs(const Expr &call)
    {
        CallArgs out;
        for (const ExprPtr &item : call.items)
            out.args.push_back(evaluate(*item, {}));
        for (const auto &[key, value] : call.keywords)
            out.kwargs.push_back({key, evaluate(*value, {})});
        return out;
    }

    Arg call(const Expr &e, const std::string &name)
    {
        const Expr &f = *e.object;
        if (f.kind == Expr::Kind::Name && !m_env.count(f.text)) {
            if (f.text == "device")
                return deviceLiteral(e);
            if (f.text == "slice") {
                CallArgs a = callArgs(e);
                while (a.args.size() < 3)
                    a.args.insert(a.args.size() == 1 ? a.args.begin() : a.args.end(), Arg(NoneArg{}));
                return Arg::list(std::move(a.args), ArgList::Kind::Slice);
            }
            if (f.text == "getattr")
                if (selfPath(e))
                    return attribute(e, name);
        }
        if (auto path = selfPath(f))
            return moduleCall(e, *path, name);
        if (auto dotted = dottedName(f)) {
            const Expr *root = &f;
            while (root->object)
                root = root->object.get();
            if (root != &f && !isModuleRoot(root->text))
                fail(*root, "name '" + root->text + "' is not defined");
            if (*dotted == "torch.device")
                return deviceLiteral(e);
            if (f.kind == Expr::Kind::Name && isGlobalRoot(*dotted) && *dotted != "getattr")
                fail(f, "expected a function, found '" + *dotted + "'");
            return functionCall(e, *dotted, name);
        }
        if (f.kind == Expr::Kind::Attribute)
            return methodCall(e, name);
        fail(f, "expected a function, found an expression");
    }

    Arg deviceLiteral(const Expr &e)
    {
        CallArgs a = callArgs(e);
        Device d;
        auto str = [](const Arg &x) { auto *s = std::get_if<std::string>(&x.value); return s ? *s : std::string(); };
        if (!a.args.empty())
            d.type = str(a.args[0]);
        if (a.args.size() > 1 && a.args[1].asInt())
            d.index = int(*a.args[1].asInt());
        for (const NamedArg &kw : a.kwargs) {
            if (kw.name == "type")
                d.type = str(kw.value);
            else if (kw.name == "index" && kw.value.asInt())
                d.index = int(*kw.value.asInt());
        }
        if (auto colon = d.type.find(':'); colon != std::string::npos && isDigits(d.type.substr(colon + 1))) {
            d.index = std::stoi(d.type.substr(colon + 1));
            d.type.resize(colon);
        }
        if (d.type.empty())
            fail(e, "expected device(type='...'), found a device without a type");
        return Arg(d);
    }

    Arg moduleCall(const Expr &e, const std::string &path, const std::string &name)
    {
        CallArgs a = callArgs(e);
        NodeId id = addNode("call_module:" + path, std::nullopt, "", std::move(a.args), std::move(a.kwargs), name,
                            e.line, true);
        auto nested = m_nested.find(path);
        if (nested != m_nested.end()) {
            m_graph.node(id)->opaqueBody = nested->second->text;
            m_warnings.push_back(where(e.line) + ": submodule self." + path
                                 + "(...) imported as an opaque node (its code is kept, not flattened)");
        } else {
            m_warnings.push_back(where(e.line) + ": module call self." + path + "(...) imported as an opaque node");
        }
        return Arg(id);
    }

    Arg functionCall(const Expr &e, const std::string &dotted, const std::string &name)
    {
        CallArgs a = callArgs(e);
        CanonicalTarget t = canonicalFunction(dotted);
        std::string spelling = dotted;
        if (t.op == "getitem") {
            if (a.args.size() == 2 && a.args[0].isNode() && a.args[1].asInt() && a.kwargs.empty())
                return Arg(addNode("getitem", std::nullopt, spelling, a.args, {}, name, e.line, true));
            if (a.args.size() == 2 && a.kwargs.empty())
                return tensorIndex(a.args[0], a.args[1], name, e.line);
            t = CanonicalTarget{"operator.getitem", std::nullopt, false};
        }
        if ((dotted == "torch.nn.functional.embedding" || dotted == "F.embedding") && a.args.size() >= 2) {
            adaptFunctionalEmbedding(a);
            // Written back as torch.ops.aten.embedding: the F spelling takes
            // its arguments in another order.
            spelling.clear();
        }
        if (dotted.starts_with("torch.nn.functional.") || dotted.starts_with("F.")) {
            // Python-only keywords of torch.nn.functional that ATen schemas lack.
            std::vector<NamedArg> kept;
            for (NamedArg &kw : a.kwargs) {
                if (kw.name == "_stacklevel")
                    continue;
                if (kw.name == "inplace") {
                    if (kw.value == Arg(true)) {
                        t.op += "_";
                        spelling += "_";
                    }
                    continue;
                }
                if (kw.name == "training" && t.op.starts_with("aten::") && t.op.find("dropout") != std::string::npos)
                    kw.name = "train";
                kept.push_back(std::move(kw));
            }
            a.kwargs = std::move(kept);
        }
        return Arg(addNode(t, spelling, std::move(a.args), std::move(a.kwargs), name, e.line));
    }

    /// F.embedding(input, weight, padding_idx, max_norm, norm_type,
    /// scale_grad_by_freq, sparse) -> aten::embedding(weight, indices,
    /// padding_idx=-1, scale_grad_by_freq, sparse). max_norm (a renormalising
    /// pre-step) and norm_type have no place in the op; they are kept (and the
    /// call falls back to "arguments kept as written") only when max_norm is set.
    static void adaptFunctionalEmbedding(CallArgs &a)
    {
        std::vector<Arg> positional = a.args;
        std::vector<NamedArg> named;
        const char *names[] = {"input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq",
                               "sparse"};
        for (size_t i = 2; i < positional.size() && i < 7; ++i)
            named.push_back({names[i], positional[i]});
        for (NamedArg &kw : a.kwargs)
            named.push_back(kw);
        CallArgs out;
        out.args = {positional[1], positional[0]};
        bool maxNorm = false;
        for (NamedArg &kw : named) {
            if (kw.name == "max_norm") {
                maxNorm = !std::holds_alternative<NoneArg>(kw.value.value);
                if (maxNorm)
                    out.kwargs.push_back(kw);
                continue;
            }
            if (kw.name == "norm_type" && !maxNorm)
                continue;
            if (kw.name == "padding_idx" && std::holds_alternative<NoneArg>(kw.value.value))
                kw.value = Arg(int64_t(-1));
            out.kwargs.push_back(kw);
        }
        a = std::move(out);
    }

    Arg methodCall(const Expr &e, const std::string &name)
    {
        const Expr &f = *e.object;
        Arg self = evaluate(*f.object, {});
        CallArgs a = callArgs(e);
        CanonicalTarget t = canonicalMethod(f.text);
        if (takesVarargsList(f.text) && !a.args.empty() && !a.args[0].isList()
            && !std::holds_alternative<DType>(a.args[0].value)) {
            // x.view(2, 8) passes one int list to the schema.
            std::vector<Arg> sizes = std::move(a.args);
            a.args = {Arg::list(std::move(sizes))};
        }
        a.args.insert(a.args.begin(), self);
        if (t.op == "getitem" && a.args.size() == 2 && self.isNode() && a.args[1].asInt())
            return Arg(addNode("getitem", std::nullopt, "Tensor.__getitem__", a.args, {}, name, e.line, true));
        return Arg(addNode(t, "Tensor." + f.text, std::move(a.args), std::move(a.kwargs), name, e.line));
    }

    // --- node creation -------------------------------------------------------------
    NodeId addNode(std::string op, std::optional<std::string> overload, const std::string &spelling,
                   std::vector<Arg> args, std::vector<NamedArg> kwargs, const std::string &name, int line,
                   bool mapped)
    {
        return addNode(CanonicalTarget{std::move(op), std::move(overload), mapped}, spelling, std::move(args),
                       std::move(kwargs), name, line);
    }

    NodeId addNode(CanonicalTarget t, const std::string &spelling, std::vector<Arg> args,
                   std::vector<NamedArg> kwargs, const std::string &name, int line)
    {
        std::string overload = t.overload.value_or("");
        const bool isModule = t.op.starts_with("call_module:");
        if (!t.mapped && !isModule) {
            t.op = spelling.empty() ? t.op : spelling;
            m_warnings.push_back(where(line) + ": " + t.op + " is not an ATen op; imported as an opaque node");
        } else if (m_options.schemas && t.op.find("::") != std::string::npos) {
            const bool known = !m_options.schemas->overloads(t.op).empty();
            if (!known && !t.overload) {
                m_warnings.push_back(where(line) + ": no schema for " + t.op + "; " + spelling
                                     + " imported as an opaque node");
                t.op = spelling;
            } else if (!known) {
                m_warnings.push_back(where(line) + ": no schema for " + t.op + "; arguments kept as written");
            } else {
                SchemaFit fit = fitSchema(*m_options.schemas, t.op, t.overload, CallArgs{args, kwargs},
                                          [this](NodeId id) { return nodeType(id); });
                if (fit.fitted) {
                    overload = fit.overload;
                    args = std::move(fit.call.args);
                    kwargs = std::move(fit.call.kwargs);
                } else {
                    m_warnings.push_back(where(line) + ": " + fit.message + "; arguments kept as written");
                }
            }
        }
        NodeId id = m_graph.addOp(t.op, std::move(args), std::move(kwargs), name);
        Node &n = *m_graph.node(id);
        n.overload = overload;
        n.provenance.scope = m_scope;
        n.provenance.source = m_source;
        if (spelling != torchOpsSpelling(n.op, n.overload) && spelling != n.op)
            n.provenance.originalSpelling = spelling;
        return id;
    }

    /// The value type fitSchema uses to choose overloads; "" when unknown.
    std::string nodeType(NodeId id) const
    {
        const Node *n = m_graph.node(id);
        if (!n || (n->type == "Tensor" && !n->meta.isKnown()))
            return {};
        return n->type;
    }

    struct Binding {
        Arg value;
        int line = 0;
    };

    const FxFunction &m_fn;
    const FxReadOptions &m_options;
    Graph &m_graph;
    std::vector<std::string> &m_warnings;
    std::string m_file;
    std::unordered_map<std::string, Binding> m_env;
    std::unordered_map<std::string, Annotation> m_pending;
    std::unordered_map<std::string, const NestedClass *> m_nested;
    size_t m_commentCursor = 0;
    std::string m_scope;
    SourceLocation m_source;
};

} // namespace

SourceLocation parseFileComment(std::string_view text)
{
    // "path:line[:column][ in fn, code: ...]": the first ":<digits>" that ends
    // the text or is followed by " in " or another ":<digits>" ends the path.
    for (size_t colon = text.find(':'); colon != std::string_view::npos; colon = text.find(':', colon + 1)) {
        size_t end = colon + 1;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
            ++end;
        if (end == colon + 1)
            continue;
        SourceLocation loc;
        loc.file = std::string(text.substr(0, colon));
        std::string_view rest = text.substr(end);
        int column = 0;
        if (rest.starts_with(":")) {
            size_t cEnd = 1;
            while (cEnd < rest.size() && std::isdigit(static_cast<unsigned char>(rest[cEnd])))
                ++cEnd;
            if (cEnd > 1 && (cEnd == rest.size() || rest.substr(cEnd).starts_with(" in "))) {
                column = std::stoi(std::string(rest.substr(1, cEnd - 1)));
                rest = rest.substr(cEnd);
            }
        }
        if (!rest.empty() && !rest.starts_with(" in "))
            continue;
        loc.line = std::stoi(std::string(text.substr(colon + 1, end - colon - 1)));
        loc.column = column;
        return loc;
    }
    return SourceLocation{std::string(text), 0, 0};
}

Status buildGraph(const FxFunction &fn, const FxReadOptions &options, LoadedModel &model)
{
    try {
        Builder(fn, options, model).run();
    } catch (const Failure &f) {
        return Error{f.message};
    } catch (const std::exception &e) {
        return Error{(options.sourceName.empty() ? "<fx>" : options.sourceName) + ": " + e.what()};
    }
    return Status::ok();
}

} // namespace fusebox::fx
