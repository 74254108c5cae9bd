// Canonical text of pattern files: the form writePatternFile() promises to
// read back to an equal tree.

#include "PatternFile.h"

#include <charconv>

namespace fusebox {
namespace {

using namespace patternlang;

// Binding strength, loosest first; parentheses go where a child binds looser
// than its place requires.
enum Precedence { Lowest = 0, Or, And, Not, Compare, Additive, Term, Negate, Postfix, Primary };

int precedenceOf(const Expr &e)
{
    switch (e.kind) {
    case ExprKind::Binary:
        if (e.text == "or")
            return Or;
        if (e.text == "and")
            return And;
        if (e.text == "+" || e.text == "-")
            return Additive;
        if (e.text == "*" || e.text == "/" || e.text == "%")
            return Term;
        return Compare;
    case ExprKind::Unary: return e.text == "not" ? Not : Negate;
    case ExprKind::Int: return e.intValue < 0 ? Negate : Primary;
    case ExprKind::Float: return e.floatValue < 0 ? Negate : Primary;
    case ExprKind::Index: return Postfix;
    default: return Primary;
    }
}

std::string quote(const std::string &s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else
            out += c;
    }
    return out + "\"";
}

std::string formatFloat(double value)
{
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    std::string text(buffer, ec == std::errc() ? end : buffer);
    // Keep it a float when read back: "2" would read as an int.
    if (text.find_first_of(".e") == std::string::npos)
        text += ".0";
    return text;
}

std::string write(const Expr &e, int minPrecedence);

std::string writeArguments(const std::vector<Argument> &args)
{
    std::string out = "(";
    for (size_t i = 0; i < args.size(); ++i) {
        if (i)
            out += ", ";
        if (!args[i].keyword.empty())
            out += args[i].keyword + "=";
        out += write(args[i].value, Lowest);
    }
    return out + ")";
}

std::string writeUnparenthesised(const Expr &e)
{
    switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::DType: return e.text;
    case ExprKind::Wildcard: return "_";
    case ExprKind::Int: return std::to_string(e.intValue);
    case ExprKind::Float: return formatFloat(e.floatValue);
    case ExprKind::Bool: return e.boolValue ? "True" : "False";
    case ExprKind::String: return quote(e.text);
    case ExprKind::None: return "None";
    case ExprKind::List: {
        std::string out = "[";
        for (size_t i = 0; i < e.operands.size(); ++i)
            out += (i ? ", " : "") + write(e.operands[i], Lowest);
        return out + "]";
    }
    case ExprKind::Variadic: return "[" + write(e.operands.at(0), Lowest) + "...]";
    case ExprKind::OpCall: {
        std::string callee;
        for (size_t i = 0; i < e.ops.size(); ++i)
            callee += (i ? " | " : "") + e.ops[i].qualifiedName();
        if (e.ops.size() > 1)
            callee = "(" + callee + ")";
        return callee + writeArguments(e.args);
    }
    case ExprKind::FunctionCall: return e.text + writeArguments(e.args);
    case ExprKind::Unary:
        return e.text == "not" ? "not " + write(e.operands.at(0), Not) : "-" + write(e.operands.at(0), Negate);
    case ExprKind::Binary: {
        const int p = precedenceOf(e);
        // Left-associative operators; comparisons do not chain, so both sides bind tighter.
        const int left = p == Compare ? p + 1 : p;
        return write(e.operands.at(0), left) + " " + e.text + " " + write(e.operands.at(1), p + 1);
    }
    case ExprKind::Index: return write(e.operands.at(0), Postfix) + "[" + write(e.operands.at(1), Lowest) + "]";
    }
    return {};
}

std::string write(const Expr &e, int minPrecedence)
{
    std::string text = writeUnparenthesised(e);
    return precedenceOf(e) < minPrecedence ? "(" + text + ")" : text;
}

void writeStatements(std::string &out, const char *block, const std::vector<Statement> &statements)
{
    if (statements.empty())
        return;
    out += std::string("    ") + block + " {\n";
    for (const Statement &s : statements)
        out += "        " + s.target + " = " + write(s.value, Lowest) + "\n";
    out += "    }\n";
}

} // namespace

std::string writePatternExpr(const Expr &expr)
{
    return write(expr, Lowest);
}

std::string writePatternFile(const PatternFile &file)
{
    std::string out;
    for (const PatternDecl &p : file.patterns) {
        if (!out.empty())
            out += "\n";
        out += "pattern " + p.name + " {\n";
        if (p.benefit)
            out += "    benefit = " + std::to_string(*p.benefit) + "\n";
        if (p.description)
            out += "    description = " + quote(*p.description) + "\n";
        if (p.stage != Stage::Unspecified)
            out += "    stage = " + std::string(stageName(p.stage)) + "\n";
        if (!p.options.empty()) {
            out += "    options {\n";
            for (const OptionEntry &o : p.options)
                out += "        " + o.key + " = " + write(o.value, Lowest) + "\n";
            out += "    }\n";
        }
        writeStatements(out, "match", p.match);
        if (!p.where.empty()) {
            out += "    where {\n";
            for (const Expr &c : p.where)
                out += "        " + write(c, Lowest) + "\n";
            out += "    }\n";
        }
        writeStatements(out, "replace", p.replace);
        out += "}\n";
    }
    return out;
}

} // namespace fusebox
