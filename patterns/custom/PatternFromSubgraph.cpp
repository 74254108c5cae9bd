#include "PatternFromSubgraph.h"

#include "PatternCompiler.h"
#include "core/io/PatternFile.h"
#include "core/ir/DType.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_set>

namespace fusebox {

using patternlang::Argument;
using patternlang::Expr;
using patternlang::ExprKind;
using patternlang::OpName;
using patternlang::PatternDecl;
using patternlang::Statement;

namespace {

bool isReservedName(const std::string &name)
{
    static const std::set<std::string> words = {"True",  "False",   "None",    "_",       "and",     "or",
                                                "not",   "in",      "getitem", "pattern", "benefit", "description",
                                                "stage", "options", "match",   "where",   "replace"};
    if (words.count(name))
        return true;
    const auto &functions = patternlang::builtinFunctions();
    if (std::find(functions.begin(), functions.end(), name) != functions.end())
        return true;
    auto dtype = parseDType(name);
    return dtype && shortName(*dtype) == name;
}

/// `name` as an identifier of the language: other characters become '_', a
/// leading digit gets a "v_" prefix, reserved words a '_' suffix.
std::string identifier(std::string_view name)
{
    std::string s;
    for (char c : name)
        s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
        s = "v_" + s;
    if (isReservedName(s))
        s += "_";
    return s;
}

Expr nameExpr(std::string text)
{
    Expr e;
    e.kind = ExprKind::Name;
    e.text = std::move(text);
    return e;
}

Expr intExpr(int64_t v)
{
    Expr e;
    e.kind = ExprKind::Int;
    e.intValue = v;
    return e;
}

Expr call(std::string function, Expr argument)
{
    Expr e;
    e.kind = ExprKind::FunctionCall;
    e.text = std::move(function);
    e.args.push_back({{}, std::move(argument), {}});
    return e;
}

Expr binary(std::string op, Expr a, Expr b)
{
    Expr e;
    e.kind = ExprKind::Binary;
    e.text = std::move(op);
    e.operands.push_back(std::move(a));
    e.operands.push_back(std::move(b));
    return e;
}

class Builder {
public:
    Builder(const Graph &g, const PatternFromOptions &o, const std::unordered_set<NodeId> &selected)
        : m_g(g)
        , m_options(o)
        , m_selected(selected)
    {}

    /// Reserves the statement targets first, so captures never take their names.
    void nameTargets(const std::vector<NodeId> &order)
    {
        for (NodeId id : order)
            m_names[id] = fresh(identifier(m_g.node(id)->name));
    }

    Statement statement(NodeId id)
    {
        const Node &n = *m_g.node(id);
        Expr e;
        e.kind = ExprKind::OpCall;
        OpName op;
        op.name = n.op;
        if (n.op != ops::kGetItem)
            op.overload = n.overload;
        e.ops.push_back(std::move(op));
        for (const Arg &a : n.args())
            e.args.push_back({{}, argument(a), {}});
        for (const NamedArg &kw : n.kwargs())
            e.args.push_back({kw.name, argument(kw.value), {}});
        return {m_names.at(id), std::move(e), {}};
    }

    /// External tensor inputs, in capture order, with their capture names.
    const std::vector<std::pair<std::string, NodeId>> &externalNodes() const { return m_external; }

private:
    std::string fresh(const std::string &base)
    {
        std::string name = base;
        for (int k = 2; m_used.count(name); ++k)
            name = base + "_" + std::to_string(k);
        m_used.insert(name);
        return name;
    }

    Expr argument(const Arg &a)
    {
        Expr e;
        if (const auto *id = std::get_if<NodeId>(&a.value)) {
            if (m_selected.count(*id))
                return nameExpr(m_names.at(*id));
            auto it = m_names.find(*id);
            if (it == m_names.end()) {
                const Node *n = m_g.node(*id);
                it = m_names.emplace(*id, fresh(identifier(n ? n->name : "v" + std::to_string(id->value)))).first;
                m_external.emplace_back(it->second, *id);
            }
            return nameExpr(it->second);
        }
        if (const auto *list = std::get_if<ArgList>(&a.value)) {
            if (list->kind == ArgList::Kind::Slice)
                return literalCapture(a);
            bool literalOnly = true;
            for (const Arg &item : list->items)
                literalOnly = literalOnly && isNumeric(item);
            if (m_options.generalizeLiterals && literalOnly && !list->items.empty())
                return literalCapture(a);
            e.kind = ExprKind::List;
            for (const Arg &item : list->items)
                e.operands.push_back(argument(item));
            return e;
        }
        if (std::holds_alternative<NoneArg>(a.value)) {
            e.kind = ExprKind::None;
        } else if (const auto *b = std::get_if<bool>(&a.value)) {
            e.kind = ExprKind::Bool;
            e.boolValue = *b;
        } else if (const auto *i = std::get_if<int64_t>(&a.value)) {
            if (m_options.generalizeLiterals)
                return literalCapture(a);
            e = intExpr(*i);
        } else if (const auto *d = std::get_if<double>(&a.value)) {
            if (m_options.generalizeLiterals || !std::isfinite(*d))
                return literalCapture(a);
            e.kind = ExprKind::Float;
            e.floatValue = *d;
        } else if (const auto *s = std::get_if<std::string>(&a.value)) {
            e.kind = ExprKind::String;
            e.text = *s;
        } else if (const auto *t = std::get_if<DType>(&a.value)) {
            if (*t == DType::Unknown)
                return literalCapture(a);
            e.kind = ExprKind::DType;
            e.text = std::string(shortName(*t));
        } else {
            return literalCapture(a); // Device: the language has no literal for it.
        }
        return e;
    }

    static bool isNumeric(const Arg &a)
    {
        return std::holds_alternative<int64_t>(a.value) || std::holds_alternative<double>(a.value);
    }

    /// A capture standing for a literal; equal literals (same type and value) share one.
    Expr literalCapture(const Arg &a)
    {
        for (const auto &[value, name] : m_literals)
            if (value == a)
                return nameExpr(name);
        std::string name = fresh("lit" + std::to_string(m_literals.size()));
        m_literals.emplace_back(a, name);
        return nameExpr(name);
    }

    const Graph &m_g;
    const PatternFromOptions &m_options;
    const std::unordered_set<NodeId> &m_selected;
    std::map<NodeId, std::string> m_names;
    std::set<std::string> m_used;
    std::vector<std::pair<std::string, NodeId>> m_external;
    std::vector<std::pair<Arg, std::string>> m_literals;
};

/// The names a match expression uses, in the order the checker walks them.
void collectNames(const Expr &e, std::vector<std::string> &out)
{
    if (e.kind == ExprKind::Name) {
        out.push_back(e.text);
        return;
    }
    for (const Expr &o : e.operands)
        collectNames(o, out);
    for (const Argument &a : e.args)
        collectNames(a.value, out);
}

std::vector<Expr> proposedConstraints(const Graph &g, const Builder &builder, const PatternFromOptions &options)
{
    std::vector<Expr> where;
    for (const auto &[name, id] : builder.externalNodes()) {
        const Node *n = g.node(id);
        if (!n || n->type != "Tensor")
            continue;
        if (n->meta.dtype != DType::Unknown) {
            Expr dtype;
            dtype.kind = ExprKind::DType;
            dtype.text = std::string(shortName(n->meta.dtype));
            where.push_back(binary("==", call("dtype", nameExpr(name)), std::move(dtype)));
        }
        if (!n->meta.shape)
            continue;
        where.push_back(binary("==", call("rank", nameExpr(name)), intExpr(int64_t(n->meta.shape->size()))));
        if (!options.constrainStaticDims)
            continue;
        for (size_t k = 0; k < n->meta.shape->size(); ++k)
            if (const auto *size = std::get_if<int64_t>(&(*n->meta.shape)[k])) {
                Expr index;
                index.kind = ExprKind::Index;
                index.operands.push_back(call("shape", nameExpr(name)));
                index.operands.push_back(intExpr(int64_t(k)));
                where.push_back(binary("==", std::move(index), intExpr(*size)));
            }
    }
    return where;
}

} // namespace

Expected<PatternDecl> patternFromSubgraph(const Graph &graph, const std::vector<NodeId> &nodes,
                                          const PatternFromOptions &options)
{
    if (nodes.empty())
        return Error{"pattern-from: the selection is empty (select the op nodes the pattern should match)"};
    std::unordered_set<NodeId> selected;
    for (NodeId id : nodes) {
        const Node *n = graph.node(id);
        if (!n)
            return Error{"pattern-from: no node with id " + std::to_string(id.value) + " in the graph"};
        if (!n->isOp()) {
            const char *what = n->kind() == NodeKind::Input      ? "an input"
                               : n->kind() == NodeKind::Constant ? "a constant"
                                                                 : "the output node";
            return Error{"pattern-from: %" + n->name + " is " + what
                         + ", not an op; select op nodes only (inputs and constants the ops read become captures)"};
        }
        if (!n->opaqueBody.empty())
            return Error{"pattern-from: %" + n->name + " (" + n->op
                         + ") is opaque control flow, which a pattern cannot match"};
        if (n->op != ops::kGetItem && n->op.find("::") == std::string::npos)
            return Error{"pattern-from: %" + n->name + "'s op '" + n->op
                         + "' has no namespace, so a pattern cannot name it"};
        selected.insert(id);
    }

    std::vector<NodeId> order;
    for (NodeId id : graph.nodeIds())
        if (selected.count(id))
            order.push_back(id);

    Builder builder(graph, options, selected);
    builder.nameTargets(order);

    PatternDecl decl;
    decl.name = identifier(options.name.empty() ? "from_selection" : options.name);
    std::string names;
    for (NodeId id : order)
        names += (names.empty() ? "%" : ", %") + graph.node(id)->name;
    // Where it came from, by file name: the folder is often a temporary one
    // (the demo's), and the file travels. That the replacement is still a
    // copy is a state, not a description: the editor says it while it holds.
    const auto source = graph.metadata().find("source.path");
    decl.description = "made from " + std::to_string(order.size()) + " node" + (order.size() == 1 ? "" : "s") + " ("
                       + names + ")"
                       + (source != graph.metadata().end()
                              ? " of " + std::filesystem::path(source->second).filename().string()
                              : std::string());
    for (NodeId id : order)
        decl.match.push_back(builder.statement(id));
    if (options.proposeConstraints)
        decl.where = proposedConstraints(graph, builder, options);
    decl.replace = decl.match;

    std::set<std::string> targets;
    for (const Statement &s : decl.match)
        targets.insert(s.target);
    std::vector<std::string> uses;
    for (const Statement &s : decl.match)
        collectNames(s.value, uses);
    for (const std::string &u : uses)
        if (!targets.count(u) && std::find(decl.captures.begin(), decl.captures.end(), u) == decl.captures.end())
            decl.captures.push_back(u);
    for (const Statement &s : decl.replace)
        decl.outputs.push_back(s.target);

    // The compiler decides whether one anchor reaches every statement; ask it.
    PatternFile file;
    file.sourceName = "selection";
    file.patterns.push_back(decl);
    auto compiled = compilePatterns(file, nullptr);
    if (!compiled) {
        std::string reason = compiled.error().message;
        if (auto colon = reason.find(": "); reason.rfind("selection:", 0) == 0 && colon != std::string::npos)
            reason = reason.substr(colon + 2);
        return Error{"pattern-from: the selection cannot be matched as one pattern (" + reason
                     + "); select nodes connected by data edges or shared inputs"};
    }
    return decl;
}

bool patternChangesNothing(const patternlang::PatternDecl &decl)
{
    if (decl.replace.size() != decl.match.size())
        return false;
    for (size_t i = 0; i < decl.match.size(); ++i)
        if (decl.replace[i].target != decl.match[i].target
            || writePatternExpr(decl.replace[i].value) != writePatternExpr(decl.match[i].value))
            return false;
    return true;
}

} // namespace fusebox
