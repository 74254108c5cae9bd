#include "PatternExportCommon.h"

#include "core/io/PatternFile.h"
#include "core/ir/OpSchema.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace fusebox::patternexport {

void walk(const Expr &e, const std::function<void(const Expr &)> &f)
{
    f(e);
    for (const Expr &o : e.operands)
        walk(o, f);
    for (const Argument &a : e.args)
        walk(a.value, f);
}

bool hasVariadic(const PatternDecl &d)
{
    bool found = false;
    for (const Statement &s : d.match)
        walk(s.value, [&](const Expr &e) { found = found || e.kind == ExprKind::Variadic; });
    return found;
}

/// Number of times the match reads `name`.
int readsInMatch(const PatternDecl &d, const std::string &name)
{
    int n = 0;
    for (const Statement &s : d.match)
        walk(s.value, [&](const Expr &e) { n += e.kind == ExprKind::Name && e.text == name; });
    return n;
}

bool isMatchTarget(const PatternDecl &d, const std::string &name)
{
    for (const Statement &s : d.match)
        if (s.target == name)
            return true;
    return false;
}

bool isOutput(const PatternDecl &d, const std::string &name)
{
    for (const std::string &o : d.outputs)
        if (o == name)
            return true;
    return false;
}

/// Top-level `and` operands of a constraint.
void conjuncts(const Expr &e, std::vector<const Expr *> &out)
{
    if (e.kind == ExprKind::Binary && e.text == "and") {
        conjuncts(e.operands[0], out);
        conjuncts(e.operands[1], out);
    } else {
        out.push_back(&e);
    }
}

/// `users(v) == N` with v a Name: returns v and N.
bool usersEquals(const Expr &e, std::string &name, int64_t &count)
{
    if (e.kind != ExprKind::Binary || e.text != "==")
        return false;
    const Expr &l = e.operands[0], &r = e.operands[1];
    if (l.kind != ExprKind::FunctionCall || l.text != "users" || l.args.size() != 1 || !l.args[0].value.isName()
        || r.kind != ExprKind::Int)
        return false;
    name = l.args[0].value.text;
    count = r.intValue;
    return true;
}

/// One decl per combination of op alternatives in the match, with a name
/// suffix naming the chosen ops ("" when there were none).
std::vector<std::pair<std::string, PatternDecl>> expandAlternatives(const PatternDecl &decl)
{
    std::vector<std::pair<std::string, PatternDecl>> out;
    std::function<void(PatternDecl, std::string)> expand = [&](PatternDecl d, std::string suffix) {
        Expr *alt = nullptr;
        std::function<void(Expr &)> find = [&](Expr &e) {
            if (alt)
                return;
            if (e.kind == ExprKind::OpCall && e.ops.size() > 1) {
                alt = &e;
                return;
            }
            for (Expr &o : e.operands)
                find(o);
            for (Argument &a : e.args)
                find(a.value);
        };
        for (Statement &s : d.match)
            find(s.value);
        if (!alt) {
            out.emplace_back(suffix, std::move(d));
            return;
        }
        const auto ops = alt->ops;
        for (const auto &op : ops) {
            alt->ops = {op};
            std::string tag;
            for (char c : op.qualifiedName())
                tag += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
            while (tag.find("__") != std::string::npos)
                tag.erase(tag.find("__"), 1);
            expand(d, suffix + "__" + tag);
        }
    };
    expand(decl, "");
    return out;
}

/// Match statements the output's value does not depend on (SubgraphRewriter
/// would ignore them, weakening the pattern).
std::vector<std::string> unreachedFromOutput(const PatternDecl &d, const std::string &out)
{
    std::set<std::string> reached;
    std::function<void(const std::string &)> visit = [&](const std::string &name) {
        if (!reached.insert(name).second)
            return;
        for (const Statement &s : d.match)
            if (s.target == name)
                walk(s.value, [&](const Expr &e) {
                    if (e.kind == ExprKind::Name && isMatchTarget(d, e.text))
                        visit(e.text);
                });
    };
    visit(out);
    std::vector<std::string> missing;
    for (const Statement &s : d.match)
        if (!reached.count(s.target))
            missing.push_back(s.target);
    return missing;
}

/// The match statements in dependency order (a statement after those it reads).
std::vector<const Statement *> topoMatch(const PatternDecl &d)
{
    std::vector<const Statement *> order;
    std::set<std::string> done;
    std::function<void(const Statement &)> visit = [&](const Statement &s) {
        if (done.count(s.target))
            return;
        done.insert(s.target);
        walk(s.value, [&](const Expr &e) {
            if (e.kind == ExprKind::Name)
                for (const Statement &t : d.match)
                    if (t.target == e.text)
                        visit(t);
        });
        order.push_back(&s);
    };
    for (const Statement &s : d.match)
        visit(s);
    return order;
}

std::string formatDouble(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
    return s;
}

int scalarTypeCode(DType t)
{
    switch (t) {
    case DType::UInt8: return 0;
    case DType::Int8: return 1;
    case DType::Int16: return 2;
    case DType::Int32: return 3;
    case DType::Int64: return 4;
    case DType::Float16: return 5;
    case DType::Float32: return 6;
    case DType::Float64: return 7;
    case DType::Complex32: return 8;
    case DType::Complex64: return 9;
    case DType::Complex128: return 10;
    case DType::Bool: return 11;
    case DType::BFloat16: return 15;
    case DType::Float8E5M2: return 23;
    case DType::Float8E4M3FN: return 24;
    default: return -1;
    }
}

/// A schema default as an expression; nullopt when it is not a literal.
std::optional<Expr> defaultExpr(const std::string &text)
{
    Expr e;
    if (text == "None") {
        e.kind = ExprKind::None;
        return e;
    }
    if (text == "True" || text == "False") {
        e.kind = ExprKind::Bool;
        e.boolValue = text == "True";
        return e;
    }
    if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"') && text.back() == text[0]) {
        e.kind = ExprKind::String;
        e.text = text.substr(1, text.size() - 2);
        return e;
    }
    if (text.size() >= 2 && text[0] == '[' && text.back() == ']') {
        e.kind = ExprKind::List;
        std::string inner = text.substr(1, text.size() - 2);
        std::istringstream in(inner);
        std::string item;
        while (std::getline(in, item, ',')) {
            auto sub = defaultExpr(item.substr(item.find_first_not_of(' ')));
            if (!sub)
                return std::nullopt;
            e.operands.push_back(*sub);
        }
        return e;
    }
    try {
        size_t used = 0;
        long long i = std::stoll(text, &used);
        if (used == text.size()) {
            e.kind = ExprKind::Int;
            e.intValue = i;
            return e;
        }
        double f = std::stod(text, &used);
        if (used == text.size()) {
            e.kind = ExprKind::Float;
            e.floatValue = f;
            return e;
        }
    } catch (...) {
    }
    return std::nullopt;
}

std::string stripAlias(const std::string &type)
{
    std::string out;
    int depth = 0;
    for (char c : type) {
        if (c == '(')
            ++depth;
        else if (c == ')')
            --depth;
        else if (depth == 0)
            out += c;
    }
    return out;
}
} // namespace fusebox::patternexport
