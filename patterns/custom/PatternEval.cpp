#include "PatternEval.h"
#include "FilePattern.h"

#include "core/io/PatternFile.h"

#include <cmath>

namespace fusebox::custom {
namespace {

using patternlang::Expr;
using patternlang::ExprKind;

const Node *opNode(const Graph &graph, const std::optional<Arg> &v)
{
    return v && v->isNode() ? graph.node(v->node()) : nullptr;
}

std::optional<double> number(const Arg &a)
{
    if (const auto *i = std::get_if<int64_t>(&a.value))
        return double(*i);
    if (const auto *d = std::get_if<double>(&a.value))
        return *d;
    return std::nullopt;
}

std::optional<Arg> callBuiltin(const std::string &fn, const std::optional<Arg> &v, const Graph &graph)
{
    if (!v)
        return std::nullopt;
    if (fn == "users" || fn == "dtype" || fn == "rank" || fn == "shape" || fn == "numel") {
        const Node *n = opNode(graph, v);
        if (!n)
            return std::nullopt;
        if (fn == "users")
            return Arg(int64_t(graph.users(n->id()).size()));
        if (fn == "dtype")
            return n->meta.dtype == DType::Unknown ? std::nullopt : std::optional<Arg>(Arg(n->meta.dtype));
        if (fn == "rank")
            return n->meta.shape ? std::optional<Arg>(Arg(int64_t(n->meta.rank()))) : std::nullopt;
        if (fn == "numel") {
            auto count = n->meta.numel();
            return count ? std::optional<Arg>(Arg(*count)) : std::nullopt;
        }
        if (!n->meta.shape)
            return std::nullopt;
        std::vector<Arg> dims;
        for (const Dim &d : *n->meta.shape)
            dims.push_back(std::holds_alternative<int64_t>(d) ? Arg(std::get<int64_t>(d))
                                                              : Arg(std::get<std::string>(d)));
        return Arg::list(std::move(dims));
    }
    const auto *items = v->items();
    if (!items)
        return std::nullopt;
    if (fn == "len")
        return Arg(int64_t(items->size()));
    if (fn == "first" || fn == "last") {
        if (items->empty())
            return std::nullopt;
        return fn == "first" ? items->front() : items->back();
    }
    if (fn == "consecutive") {
        for (size_t k = 0; k < items->size(); ++k)
            if (!(*items)[k].asInt())
                return std::nullopt;
        for (size_t k = 1; k < items->size(); ++k)
            if (*(*items)[k].asInt() != *(*items)[k - 1].asInt() + 1)
                return Arg(false);
        return Arg(true);
    }
    return std::nullopt;
}

std::optional<Arg> arithmetic(const std::string &op, const Arg &a, const Arg &b)
{
    auto x = number(a), y = number(b);
    if (!x || !y)
        return std::nullopt;
    auto i = a.asInt(), j = b.asInt();
    const bool ints = std::holds_alternative<int64_t>(a.value) && std::holds_alternative<int64_t>(b.value);
    if (ints) {
        if (op == "+")
            return Arg(*i + *j);
        if (op == "-")
            return Arg(*i - *j);
        if (op == "*")
            return Arg(*i * *j);
        if (*j == 0)
            return std::nullopt;
        if (op == "/")
            return Arg(*i / *j);
        if (op == "%")
            return Arg(*i % *j);
        return std::nullopt;
    }
    if (op == "+")
        return Arg(*x + *y);
    if (op == "-")
        return Arg(*x - *y);
    if (op == "*")
        return Arg(*x * *y);
    if (*y == 0)
        return std::nullopt;
    if (op == "/")
        return Arg(*x / *y);
    if (op == "%")
        return Arg(std::fmod(*x, *y));
    return std::nullopt;
}

std::optional<Arg> binary(const Expr &e, const Graph &graph, const Scope &scope)
{
    const std::string &op = e.text;
    if (op == "and" || op == "or") {
        auto a = evaluate(e.operands[0], graph, scope);
        const bool *av = a ? std::get_if<bool>(&a->value) : nullptr;
        if (!av)
            return std::nullopt;
        if ((op == "and" && !*av) || (op == "or" && *av))
            return Arg(*av);
        auto b = evaluate(e.operands[1], graph, scope);
        const bool *bv = b ? std::get_if<bool>(&b->value) : nullptr;
        return bv ? std::optional<Arg>(Arg(*bv)) : std::nullopt;
    }
    auto a = evaluate(e.operands[0], graph, scope);
    auto b = evaluate(e.operands[1], graph, scope);
    if (!a || !b)
        return std::nullopt;
    if (op == "==")
        return Arg(valuesEqual(*a, *b));
    if (op == "!=")
        return Arg(!valuesEqual(*a, *b));
    if (op == "in") {
        const auto *items = b->items();
        if (!items)
            return std::nullopt;
        for (const Arg &item : *items)
            if (valuesEqual(*a, item))
                return Arg(true);
        return Arg(false);
    }
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
        auto x = number(*a), y = number(*b);
        if (!x || !y)
            return std::nullopt;
        if (op == "<")
            return Arg(*x < *y);
        if (op == "<=")
            return Arg(*x <= *y);
        if (op == ">")
            return Arg(*x > *y);
        return Arg(*x >= *y);
    }
    return arithmetic(op, *a, *b);
}

} // namespace

bool valuesEqual(const Arg &a, const Arg &b)
{
    auto x = number(a), y = number(b);
    if (x && y)
        return *x == *y;
    const auto *la = a.items(), *lb = b.items();
    if (la && lb) {
        if (la->size() != lb->size())
            return false;
        for (size_t k = 0; k < la->size(); ++k)
            if (!valuesEqual((*la)[k], (*lb)[k]))
                return false;
        return true;
    }
    return a == b;
}

std::optional<Arg> evaluate(const Expr &e, const Graph &graph, const Scope &scope)
{
    switch (e.kind) {
    case ExprKind::Name: return scope.lookup(e.text);
    case ExprKind::Int: return Arg(e.intValue);
    case ExprKind::Float: return Arg(e.floatValue);
    case ExprKind::Bool: return Arg(e.boolValue);
    case ExprKind::String: return Arg(e.text);
    case ExprKind::None: return Arg(NoneArg{});
    case ExprKind::DType: {
        auto t = parseDType(e.text);
        return t ? std::optional<Arg>(Arg(*t)) : std::nullopt;
    }
    case ExprKind::List: {
        std::vector<Arg> items;
        for (const Expr &item : e.operands) {
            auto v = evaluate(item, graph, scope);
            if (!v)
                return std::nullopt;
            items.push_back(std::move(*v));
        }
        return Arg::list(std::move(items));
    }
    case ExprKind::FunctionCall:
        if (e.args.size() != 1)
            return std::nullopt;
        return callBuiltin(e.text, evaluate(e.args[0].value, graph, scope), graph);
    case ExprKind::Unary: {
        auto v = evaluate(e.operands[0], graph, scope);
        if (!v)
            return std::nullopt;
        if (e.text == "not") {
            const bool *b = std::get_if<bool>(&v->value);
            return b ? std::optional<Arg>(Arg(!*b)) : std::nullopt;
        }
        return arithmetic("-", Arg(int64_t(0)), *v);
    }
    case ExprKind::Binary: return binary(e, graph, scope);
    case ExprKind::Index: {
        auto list = evaluate(e.operands[0], graph, scope);
        auto index = evaluate(e.operands[1], graph, scope);
        const auto *items = list ? list->items() : nullptr;
        if (!items || !index || !index->asInt())
            return std::nullopt;
        int64_t k = *index->asInt();
        if (k < 0)
            k += int64_t(items->size());
        if (k < 0 || k >= int64_t(items->size()))
            return std::nullopt;
        const Arg &item = (*items)[size_t(k)];
        if (std::holds_alternative<std::string>(item.value))
            return std::nullopt; // a symbolic dimension: unknown
        return item;
    }
    default: return std::nullopt;
    }
}

namespace {

/// The expression's text with bound node names in place of capture names:
/// users(y) -> users(%linear_3).
std::string withNodeNames(const Expr &e, const Graph &graph, const Scope &scope)
{
    if (e.kind == ExprKind::Name) {
        auto v = scope.lookup(e.text);
        return v && v->isNode() ? formatValue(graph, *v) : e.text;
    }
    if (e.kind == ExprKind::FunctionCall && e.args.size() == 1)
        return e.text + "(" + withNodeNames(e.args[0].value, graph, scope) + ")";
    if (e.kind == ExprKind::Index)
        return withNodeNames(e.operands[0], graph, scope) + "[" + writePatternExpr(e.operands[1]) + "]";
    return writePatternExpr(e);
}

void collect(const Expr &e, const Graph &graph, const Scope &scope, std::string &out)
{
    const bool leaf = e.kind == ExprKind::FunctionCall || e.kind == ExprKind::Index
                      || (e.kind == ExprKind::Name && scope.lookup(e.text) && !scope.lookup(e.text)->isNode());
    if (leaf) {
        auto v = evaluate(e, graph, scope);
        if (!out.empty())
            out += ", ";
        out += withNodeNames(e, graph, scope) + " is " + (v ? formatValue(graph, *v) : "unknown");
        // consecutive(i) is False: show i too.
        if (e.kind == ExprKind::FunctionCall && e.args.size() == 1 && e.args[0].value.isName()) {
            auto arg = scope.lookup(e.args[0].value.text);
            if (arg && !arg->isNode())
                out += ", " + e.args[0].value.text + " is " + formatValue(graph, *arg);
        }
        return;
    }
    for (const Expr &o : e.operands)
        collect(o, graph, scope, out);
    for (const auto &a : e.args)
        collect(a.value, graph, scope, out);
}

} // namespace

std::string describeOperands(const Expr &e, const Graph &graph, const Scope &scope)
{
    std::string out;
    collect(e, graph, scope, out);
    return out;
}

std::string formatValue(const Graph &graph, const Arg &value)
{
    if (const auto *t = std::get_if<DType>(&value.value))
        return std::string(shortName(*t));
    if (const auto *items = value.items()) {
        std::string s = "[";
        for (size_t k = 0; k < items->size(); ++k)
            s += (k ? ", " : "") + formatValue(graph, (*items)[k]);
        return s + "]";
    }
    return value.toString([&](NodeId id) { return nodeRef(graph, id); });
}

} // namespace fusebox::custom
