#include "core/ir/GraphBuilder.h"
#include "FxTextReaderImpl.h"

#include "FxSubgraphs.h"
#include "core/ir/DType.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace fusebox::fx {

Builder::Builder(const FxFunction &fn, const FxReadOptions &options, LoadedModel &model)
    : m_fn(fn)
    , m_options(options)
    , m_graph(model.graph)
    , m_warnings(model.warnings)
    , m_nodeLines(model.nodeLines)
    , m_file(options.sourceName.empty() ? "<fx>" : options.sourceName)
{
    for (const NestedClass &n : fn.nested)
        m_nested.emplace(n.name, &n);
}

void Builder::run()
{
    m_env.reserve(m_fn.params.size() + m_fn.body.size()); // one binding a statement, about
    if (!m_parent) // about one node a statement too (a flattened submodule's builder shares its parent's graph)
        m_build.reserve(m_fn.params.size() + m_fn.body.size());
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
    returnStatement(body(flattenIndex));
    reportSummaries();
}

void Builder::summarise(const std::string &kind, const std::string &item, int line)
{
    auto it = std::find_if(m_summaries->begin(), m_summaries->end(), [&](const auto &s) { return s.first == kind; });
    if (it == m_summaries->end()) {
        m_summaries->push_back({kind, Summary{0, line, {}}});
        it = m_summaries->end() - 1;
    }
    Summary &s = it->second;
    ++s.count;
    auto item_ = std::find_if(s.items.begin(), s.items.end(), [&](const auto &i) { return i.first == item; });
    if (item_ == s.items.end())
        s.items.push_back({item, 1});
    else
        ++item_->second;
}

void Builder::reportSummaries()
{
    constexpr size_t kShown = 6;
    for (const auto &[kind, s] : *m_summaries) {
        std::string text;
        for (size_t i = 0; i < s.items.size() && i < kShown; ++i)
            text += (i ? ", " : "") + s.items[i].first
                    + (s.items[i].second > 1 ? " ×" + std::to_string(s.items[i].second) : std::string());
        if (s.items.size() > kShown)
            text += ", and " + std::to_string(s.items.size() - kShown) + " more";
        m_warnings.push_back(where(s.firstLine) + ": " + std::to_string(s.count) + " × " + kind + ": " + text);
    }
}

// --- comments --------------------------------------------------------------
void Builder::applyDirectivesBefore(int line)
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
            m_scope = joinPath(m_scopeBase, std::string(scope));
        }
    }
}

/// The "# type: T" comment trailing a statement, or empty.
std::string Builder::trailingType(const Stmt &s) const
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
const ParsedAnnotation &Builder::annotation(const Annotation &a)
{
    auto known = m_annotations.find(a.text);
    if (known == m_annotations.end()) {
        AnnotationError error;
        auto parsed = parseAnnotation(a.text, error);
        if (!parsed)
            throw Failure{positionPrefix(m_file, a.line, a.column + int(error.offset)) + "expected " + error.expected
                          + ", found " + escapeControlCharacters(error.found)};
        known = m_annotations.emplace(a.text, std::move(*parsed)).first;
    }
    const ParsedAnnotation &parsed = known->second;
    if (!parsed.unsupportedDType.empty())
        m_warnings.push_back(where(a.line) + ": dtype '" + parsed.unsupportedDType
                             + "' has no Fusebox equivalent; read as unknown");
    return parsed;
}

void Builder::addInput(std::string_view name, const std::optional<Annotation> &ann, int line, int column)
{
    checkNew(name, line, column);
    static const ParsedAnnotation kUnannotated;
    const ParsedAnnotation &parsed = ann ? annotation(*ann) : kUnannotated;
    NodeId id = m_build.addInput(writableName(std::string(name), line), parsed.meta, parsed.type);
    if (ann && parsed.type == "Tensor") {
        if (m_annotatedTensors.size() <= id.value)
            m_annotatedTensors.resize(id.value + 1, false);
        m_annotatedTensors[id.value] = true;
    }
    noteLine(id, line);
    Node &n = m_build.node(id);
    n.provenance.scope = m_scope;
    n.provenance.source = m_source;
    // The symbol a Sym input stands for, when it is not its own name.
    if (parsed.type == "SymInt" && parsed.symbol != name)
        n.provenance.originalSpelling = "Sym(" + parsed.symbol + ")";
    m_env.bind(name, Arg(id), line);
}

std::string Builder::writableName(std::string name, int line)
{
    if (name.empty() || !isReservedName(name))
        return name;
    summarise("values named like a module or builtin that FX code calls through, renamed with a leading '_'", name,
              line);
    return "_" + name;
}

void Builder::checkNew(std::string_view name, int line, int column)
{
    // As in Python (and the writer could not write it back under its name).
    if (isPythonKeyword(name))
        throw Failure{positionPrefix(m_file, line, column) + "expected a name, found the keyword '" + std::string(name)
                      + "'"};
    if (const Binding *bound = m_env.find(name))
        throw Failure{positionPrefix(m_file, line, column) + "expected a new name, found '" + std::string(name)
                      + "' (already defined at line " + std::to_string(bound->line) + ")"};
}

size_t Builder::findTreeFlatten() const
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
const Stmt &Builder::body(size_t skip)
{
    for (size_t i = 0; i < m_fn.body.size(); ++i) {
        if (i == skip)
            continue;
        const Stmt &s = m_fn.body[i];
        applyDirectivesBefore(s.line);
        if (statement(s))
            return s;
    }
    throw Failure{positionPrefix(m_file, m_fn.line, m_fn.column)
                  + "expected a return statement in forward(), found none"};
}

/// Handles one statement; true when it is the return (left to the caller).
bool Builder::statement(const Stmt &s)
{
    switch (s.kind) {
    case Stmt::Kind::Pass: return false;
    case Stmt::Kind::AnnotationOnly: m_pending[s.targets.front()->text] = *s.annotation; return false;
    case Stmt::Kind::Expression: evaluate(*s.value, {}); return false;
    case Stmt::Kind::Return: return true;
    case Stmt::Kind::Assign: break;
    }
    const Expr &first = *s.targets.front();
    if (first.kind == Expr::Kind::Subscript) {
        subscriptAssignment(s, first);
        return false;
    }
    // "a = b = None": PT2 frees values early; nothing to build.
    if (s.value->kind == Expr::Kind::Name && s.value->text == "None")
        return false;
    if (first.kind == Expr::Kind::Tuple) {
        unpack(s, first);
        return false;
    }
    if (!s.augmented)
        checkNew(first.text, first.line, first.column);
    const uint32_t before = m_graph.idBound();
    Arg value = evaluate(*s.value, std::string(first.text));
    if (value.isNode() && value.node().value >= before) {
        Node &n = m_build.node(value.node());
        if (s.annotation) {
            const ParsedAnnotation &parsed = annotation(*s.annotation);
            n.meta = parsed.meta;
            n.type = parsed.type;
        }
        if (std::string type = trailingType(s); !type.empty())
            n.type = type;
    }
    for (const ExprPtr &target : s.targets) {
        if (target != &first)
            checkNew(target->text, target->line, target->column);
        m_env.bind(target->text, value, s.line);
    }
    return false;
}

void Builder::subscriptAssignment(const Stmt &s, const Expr &target)
{
    // `x[idx] = v` is Dynamo's operator.setitem: an in-place node on x, kept
    // in order; later uses of x read the mutated value, as in FX.
    Arg object = evaluate(*target.object, {});
    Arg index = evaluate(*target.items[0], {});
    Arg value = evaluate(*s.value, {});
    if (!object.isNode())
        fail(target, "expected a tensor to assign into, found " + object.toString());
    addNode(CanonicalTarget{std::string(ops::kSetItem), std::nullopt, true}, "operator.setitem", {object, index, value},
            {}, "", s.line);
}

void Builder::unpack(const Stmt &s, const Expr &targets)
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
            m_env.bind(names[i]->text, (*items)[i], s.line);
        return;
    }
    if (!value.isNode())
        fail(*s.value, "expected a value to unpack, found " + value.toString());
    for (size_t i = 0; i < names.size(); ++i) {
        NodeId id = addNode("getitem", std::nullopt, "", {value, Arg(int64_t(i))}, {}, std::string(names[i]->text),
                            names[i]->line, true);
        auto pending = m_pending.find(names[i]->text);
        if (pending != m_pending.end())
            m_build.node(id).meta = annotation(pending->second).meta;
        m_env.bind(names[i]->text, Arg(id), s.line);
    }
}

void Builder::returnStatement(const Stmt &s)
{
    std::vector<Arg> outputs;
    const Expr *value = s.value;
    if (value && value->kind == Expr::Kind::Call && value->object) {
        auto callee = dottedName(*value->object);
        if (callee && callee->ends_with("tree_unflatten") && !value->items.empty())
            value = value->items.front();
    }
    if (value && (value->kind == Expr::Kind::Tuple || value->kind == Expr::Kind::List)) {
        for (const ExprPtr &item : value->items)
            outputs.push_back(evaluate(*item, {}));
    } else if (value) {
        outputs.push_back(evaluate(*value, {}));
    }
    m_build.setOutputs(std::move(outputs));
}

// --- expressions -------------------------------------------------------------
/// "torch.ops.aten.add" for a chain of attributes on a global (not a value).
std::optional<std::string> Builder::dottedName(const Expr &e) const
{
    if (e.kind == Expr::Kind::Name)
        return (m_env.contains(e.text) || e.text == "self") ? std::nullopt : std::optional(std::string(e.text));
    if (e.kind == Expr::Kind::Attribute) {
        auto base = dottedName(*e.object);
        if (base) // appended in place: the chain's names are one string, not one per link
            base->append(".").append(e.text);
        return base;
    }
    return std::nullopt;
}

/// "layer.weight" for self.layer.weight / getattr(self.layer, "weight"); "" for self.
std::optional<std::string> Builder::selfPath(const Expr &e) const
{
    auto join = [](const std::string &a, std::string_view b) {
        return a.empty() ? std::string(b) : a + "." + std::string(b);
    };
    if (e.kind == Expr::Kind::Name)
        return e.text == "self" && !m_env.contains("self") ? std::optional(std::string()) : std::nullopt;
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

Arg Builder::evaluate(const Expr &e, const std::string &name)
{
    switch (e.kind) {
    case Expr::Kind::Int: return intLiteral(e);
    case Expr::Kind::Float: return Arg(std::strtod(std::string(e.text).c_str(), nullptr));
    case Expr::Kind::String: return Arg(std::string(e.text));
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
    case Expr::Kind::Dict: {
        // triton_kernel_wrapper_*(kwargs={'in_ptr0': x, ...}): keys and values alternate.
        std::vector<Arg> items;
        for (const auto &[key, value] : e.keywords) {
            items.push_back(Arg(std::string(key)));
            items.push_back(evaluate(*value, {}));
        }
        return Arg::list(std::move(items), ArgList::Kind::Dict);
    }
    case Expr::Kind::Unary: return unary(e, name);
    case Expr::Kind::Binary: {
        Arg a = evaluate(*e.items[0], {}), b = evaluate(*e.items[1], {});
        std::string spelling = operatorForInfix(e.text, false);
        CanonicalTarget t = canonicalTarget(spelling);
        if (a.isList() || b.isList()) // `[None] * n`: Python's list operators, no ATen op
            t = CanonicalTarget{spelling, std::nullopt, false};
        return Arg(addNode(t, spelling, {a, b}, {}, name, e.line));
    }
    case Expr::Kind::Subscript: return subscript(e, name);
    case Expr::Kind::Attribute: return attribute(e, name);
    case Expr::Kind::Call: return call(e, name);
    }
    fail(e, "expected a value");
}

Arg Builder::intLiteral(const Expr &e) const
{
    int64_t v = 0;
    const char *end = e.text.data() + e.text.size();
    auto [stop, error] = std::from_chars(e.text.data(), end, v);
    if (error != std::errc() || stop != end)
        fail(e, "expected an integer that fits in 64 bits, found " + std::string(e.text));
    return Arg(v);
}

Arg Builder::lookup(const Expr &e) const
{
    if (const Binding *bound = m_env.find(e.text))
        return bound->value;
    if (e.kind == Expr::Kind::Name) {
        if (e.text == "None")
            return Arg(NoneArg{});
        if (e.text == "True" || e.text == "False")
            return Arg(e.text == "True");
        if (e.text == "inf")
            return Arg(std::numeric_limits<double>::infinity());
        if (e.text == "nan")
            return Arg(std::numeric_limits<double>::quiet_NaN());
        if (e.text == "Ellipsis")
            return Arg(EllipsisArg{});
    }
    fail(e, "name '" + std::string(e.kind == Expr::Kind::Percent ? "%" : "") + std::string(e.text) + "' is not defined");
}

Arg Builder::unary(const Expr &e, const std::string &name)
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
    return Arg(addNode(canonicalTarget(spelling), spelling, {operand}, {}, name, e.line));
}

Arg Builder::attribute(const Expr &e, const std::string &name)
{
    if (auto path = selfPath(e)) {
        if (const NestedClass *nested = findNested(*path)) // a higher-order op's subgraph
            return subgraphValue(e, *nested, *path);
        // In a flattened submodule self.w is the parameter <submodule path>.w.
        const std::string key = joinPath(m_selfPath, *path);
        NodeId id = m_build.addConstant(name.empty() ? sanitize(key) : writableName(nodeName(name), e.line), key);
        Node &n = m_build.node(id);
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
            if (std::string op = opReferenceName(*dotted); !op.empty())
                return Arg(op);  // an op passed to a higher-order op: "mylib::foo"
            return Arg(*dotted); // memory formats, layouts: kept by name
        }
        if (*dotted == "math.inf")
            return Arg(std::numeric_limits<double>::infinity());
        const Expr *root = &e;
        while (root->object)
            root = root->object;
        fail(*root, "name '" + std::string(root->text) + "' is not defined");
    }
    // An attribute of a value (x.shape, x.real): FX's getattr(x, 'shape'),
    // an opaque node; as "Tensor.shape" it read like the call x.shape().
    Arg object = evaluate(*e.object, {});
    // A higher-order op's subgraph has no attributes: such a getattr was
    // written getattr(self.body, 'x'), which reads as the parameter
    // self.body.x (found by fx_text_fuzz).
    if (!subgraphArgName(object).empty())
        fail(e, "subgraph self." + subgraphArgName(object) + " has no attribute '" + std::string(e.text) + "'");
    return Arg(addNode(CanonicalTarget{"getattr", std::nullopt, false}, "getattr", {object, Arg(std::string(e.text))},
                       {}, name, e.line));
}

std::string Builder::sanitize(const std::string &path)
{
    std::string s = path;
    for (char &c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            c = '_';
    return s.empty() ? std::string("_attr") : s;
}

namespace {

/// A line or column number: 0 (unknown) when it does not fit an int, as in
/// a damaged "# File:" comment, which must not stop the graph from loading.
int digitsOrZero(std::string_view digits)
{
    int value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return error == std::errc() && end == digits.data() + digits.size() ? value : 0;
}

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
                column = digitsOrZero(rest.substr(1, cEnd - 1));
                rest = rest.substr(cEnd);
            }
        }
        if (!rest.empty() && !rest.starts_with(" in "))
            continue;
        loc.line = digitsOrZero(text.substr(colon + 1, end - colon - 1));
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
