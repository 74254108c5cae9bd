#include "PatternExport.h"

#include "core/io/PatternFile.h"
#include "core/ir/DType.h"
#include "core/ir/OpSchema.h"

#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace fusebox {
namespace {

using patternlang::Argument;
using patternlang::Expr;
using patternlang::ExprKind;
using patternlang::PatternDecl;
using patternlang::Statement;

// ---------------------------------------------------------------- helpers

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
    if (l.kind != ExprKind::FunctionCall || l.text != "users" || l.args.size() != 1 || !l.args[0].value.isName() ||
        r.kind != ExprKind::Int)
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

// ------------------------------------------------------------ TorchScript

struct Unexpressible {
    std::string why;
};

class TsGraph {
public:
    TsGraph(const OpSchemaRegistry *schemas, const PatternDecl &decl) : m_schemas(schemas), m_decl(decl) {}

    /// The match graph; fills inputs().
    std::string match()
    {
        for (const Statement *s : topoMatch(m_decl))
            call(s->value, s->target);
        const std::string out = "%" + m_decl.outputs.front();
        return assemble(out);
    }

    /// The replacement graph over the match's inputs.
    std::string replacement(const std::vector<std::string> &inputs)
    {
        m_inputs = inputs;
        m_replacing = true;
        m_counter = 0;
        m_body.clear();
        m_defined.clear();
        for (const std::string &in : inputs)
            m_defined.insert(in);
        for (const Statement &s : m_decl.replace) {
            if (s.value.kind == ExprKind::Name) {
                m_current[s.target] = value(s.value);
                continue;
            }
            std::string name = s.target;
            while (m_defined.count(name))
                name += "_";
            m_current[s.target] = call(s.value, name);
        }
        auto it = m_current.find(m_decl.outputs.front());
        return assemble(it->second);
    }

    const std::vector<std::string> &inputs() const { return m_inputs; }

private:
    std::string assemble(const std::string &out)
    {
        std::string text = "graph(";
        for (size_t i = 0; i < m_inputs.size(); ++i)
            text += (i ? ", %" : "%") + m_inputs[i];
        text += "):\n" + m_body + "  return (" + out + ")\n";
        return text;
    }

    std::string fresh(const std::string &prefix)
    {
        std::string name;
        do
            name = prefix + std::to_string(m_counter++);
        while (m_defined.count(name) || isMatchTarget(m_decl, name) || readsInMatch(m_decl, name));
        m_defined.insert(name);
        return name;
    }

    std::string constant(const std::string &type, const std::string &attr)
    {
        const std::string name = fresh("_c");
        m_body += "  %" + name + " : " + type + " = prim::Constant" + (attr.empty() ? "" : "[value=" + attr + "]") +
                  "()\n";
        return "%" + name;
    }

    std::string intOp(const std::string &op, const std::vector<std::string> &args)
    {
        const std::string name = fresh("_i");
        std::string list;
        for (const std::string &a : args)
            list += (list.empty() ? "" : ", ") + a;
        m_body += "  %" + name + " : int = " + op + "(" + list + ")\n";
        return "%" + name;
    }

    std::string value(const Expr &e)
    {
        switch (e.kind) {
        case ExprKind::Name: {
            if (m_replacing) {
                auto it = m_current.find(e.text);
                if (it != m_current.end())
                    return it->second;
                for (const std::string &in : m_inputs)
                    if (in == e.text)
                        return "%" + in;
                throw Unexpressible{"the replacement reads match value '" + e.text +
                                    "', which SubgraphRewriter does not pass to the replacement"};
            }
            if (isMatchTarget(m_decl, e.text))
                return "%" + e.text;
            bool known = false;
            for (const std::string &in : m_inputs)
                known = known || in == e.text;
            if (!known) {
                m_inputs.push_back(e.text);
                m_defined.insert(e.text);
            }
            return "%" + e.text;
        }
        case ExprKind::Wildcard: {
            const std::string name = fresh("_any");
            m_inputs.push_back(name);
            return "%" + name;
        }
        case ExprKind::Int: return constant("int", std::to_string(e.intValue));
        case ExprKind::Float: return constant("float", formatDouble(e.floatValue));
        case ExprKind::Bool: return constant("bool", e.boolValue ? "1" : "0");
        case ExprKind::None: return constant("NoneType", "");
        case ExprKind::String: {
            std::string quoted = "\"";
            for (char c : e.text) {
                if (c == '"' || c == '\\')
                    quoted += '\\';
                quoted += c;
            }
            return constant("str", quoted + "\"");
        }
        case ExprKind::DType: {
            auto t = parseDType(e.text);
            const int code = t ? scalarTypeCode(*t) : -1;
            if (code < 0)
                throw Unexpressible{"dtype '" + e.text + "' has no TorchScript ScalarType"};
            return constant("int", std::to_string(code));
        }
        case ExprKind::List: {
            std::string type = "Tensor[]";
            if (!e.operands.empty()) {
                bool ints = true, floats = true, bools = true;
                for (const Expr &o : e.operands) {
                    ints = ints && o.kind == ExprKind::Int;
                    floats = floats && o.kind == ExprKind::Float;
                    bools = bools && o.kind == ExprKind::Bool;
                }
                if (ints)
                    type = "int[]";
                else if (floats)
                    type = "float[]";
                else if (bools)
                    type = "bool[]";
            } else {
                type = "int[]";
            }
            std::string items;
            for (const Expr &o : e.operands)
                items += (items.empty() ? "" : ", ") + value(o);
            const std::string name = fresh("_l");
            m_body += "  %" + name + " : " + type + " = prim::ListConstruct(" + items + ")\n";
            return "%" + name;
        }
        case ExprKind::Variadic: throw Unexpressible{"variadic list: SubgraphRewriter patterns have a fixed arity"};
        case ExprKind::OpCall: return call(e, fresh("_t"));
        case ExprKind::Binary: {
            static const std::map<std::string, std::string> ops = {{"+", "aten::add"},
                                                                   {"-", "aten::sub"},
                                                                   {"*", "aten::mul"},
                                                                   {"/", "aten::floordiv"},
                                                                   {"%", "aten::remainder"}};
            auto it = ops.find(e.text);
            if (it == ops.end() || !m_replacing)
                break;
            return intOp(it->second, {value(e.operands[0]), value(e.operands[1])});
        }
        case ExprKind::Unary:
            if (e.text == "-" && m_replacing)
                return intOp("aten::neg", {value(e.operands[0])});
            break;
        case ExprKind::Index: {
            const Expr &f = e.operands[0];
            if (m_replacing && f.kind == ExprKind::FunctionCall && f.text == "shape")
                return intOp("aten::size", {value(f.args[0].value), value(e.operands[1])});
            break;
        }
        case ExprKind::FunctionCall:
            if (m_replacing && e.text == "rank")
                return intOp("aten::dim", {value(e.args[0].value)});
            if (m_replacing && e.text == "numel")
                return intOp("aten::numel", {value(e.args[0].value)});
            break;
        }
        throw Unexpressible{"argument `" + writePatternExpr(e) + "` has no TorchScript IR form"};
    }

    const OpSchema *schemaFor(const Expr &call) const
    {
        if (!m_schemas)
            return nullptr;
        const auto &op = call.ops.front();
        if (!op.overload.empty())
            return m_schemas->find(op.name, op.overload == "default" ? "" : op.overload);
        size_t positional = 0;
        for (const Argument &a : call.args)
            positional += a.keyword.empty();
        for (const OpSchema *s : m_schemas->overloads(op.name)) {
            size_t accepted = 0;
            for (const SchemaArgument &p : s->arguments)
                accepted += !p.kwargOnly;
            if (positional > accepted)
                continue;
            bool fits = true;
            for (size_t i = 0; i < s->arguments.size() && fits; ++i) {
                bool given = i < positional;
                for (const Argument &a : call.args)
                    given = given || a.keyword == s->arguments[i].name;
                fits = given || s->arguments[i].defaultValue.has_value();
            }
            for (const Argument &a : call.args)
                fits = fits && (a.keyword.empty() || s->argumentIndex(a.keyword) >= 0);
            if (fits)
                return s;
        }
        return nullptr;
    }

    std::string call(const Expr &e, const std::string &target)
    {
        if (e.kind != ExprKind::OpCall)
            throw Unexpressible{"`" + writePatternExpr(e) + "` is not an op call"};
        if (e.ops.size() != 1)
            throw Unexpressible{"op alternatives"};
        const auto &op = e.ops.front();
        std::vector<std::string> args;
        std::string type;
        if (op.name == "getitem") {
            for (const Argument &a : e.args)
                args.push_back(value(a.value));
        } else if (const OpSchema *s = schemaFor(e)) {
            std::vector<const Expr *> laid(s->arguments.size(), nullptr);
            size_t pos = 0;
            for (const Argument &a : e.args) {
                if (a.keyword.empty())
                    laid[pos++] = &a.value;
                else
                    laid[s->argumentIndex(a.keyword)] = &a.value;
            }
            for (size_t i = 0; i < laid.size(); ++i) {
                if (laid[i]) {
                    args.push_back(value(*laid[i]));
                    continue;
                }
                auto d = defaultExpr(*s->arguments[i].defaultValue);
                if (!d)
                    throw Unexpressible{op.qualifiedName() + ": the default of '" + s->arguments[i].name + "' (" +
                                        *s->arguments[i].defaultValue + ") has no constant form"};
                args.push_back(value(*d));
            }
            if (s->returns.size() != 1)
                throw Unexpressible{op.qualifiedName() + " returns " + std::to_string(s->returns.size()) +
                                    " values"};
            const std::string ret = stripAlias(s->returns[0].type);
            if (ret != "Tensor")
                type = ret;
        } else {
            for (const Argument &a : e.args)
                if (a.keyword.empty())
                    args.push_back(value(a.value));
            for (const Argument &a : e.args)
                if (!a.keyword.empty())
                    args.push_back(value(a.value));
        }
        const std::string kind = op.name == "getitem" ? "aten::__getitem__" : op.name;
        std::string list;
        for (const std::string &a : args)
            list += (list.empty() ? "" : ", ") + a;
        m_defined.insert(target);
        m_body += "  %" + target + (type.empty() ? "" : " : " + type) + " = " + kind + "(" + list + ")\n";
        return "%" + target;
    }

    const OpSchemaRegistry *m_schemas;
    const PatternDecl &m_decl;
    std::vector<std::string> m_inputs;
    std::set<std::string> m_defined;
    std::map<std::string, std::string> m_current;
    std::string m_body;
    int m_counter = 0;
    bool m_replacing = false;
};

/// True when the constraint reads only dtype/rank/shape/numel of values and literals.
bool isMetadataGuard(const Expr &e)
{
    bool ok = true;
    std::function<void(const Expr &, bool)> check = [&](const Expr &x, bool insideMeta) {
        if (x.kind == ExprKind::FunctionCall) {
            if (x.text != "dtype" && x.text != "rank" && x.text != "shape" && x.text != "numel")
                ok = false;
            for (const Argument &a : x.args)
                check(a.value, true);
            return;
        }
        if (x.kind == ExprKind::Name && !insideMeta)
            ok = false;
        for (const Expr &o : x.operands)
            check(o, insideMeta);
    };
    check(e, false);
    return ok;
}

std::string rawLiteral(const std::string &text)
{
    return "R\"FBX(" + text + ")FBX\"";
}

} // namespace

PatternExport exportTorchScriptPatterns(const PatternFile &file, const OpSchemaRegistry *schemas)
{
    PatternExport out;
    std::string body;
    std::string registrations;
    for (const PatternDecl &decl : file.patterns) {
        auto skip = [&](const std::string &why) {
            out.skipped.emplace_back(decl.name, why);
            body += "// SKIPPED " + decl.name + ": " + why + "\n\n";
        };
        if (decl.outputs.size() != 1) {
            skip(std::to_string(decl.outputs.size()) +
                 " outputs: only single-output patterns are exported (SubgraphRewriter's multi-output matches "
                 "are not checked for outside uses of every output)");
            continue;
        }
        if (hasVariadic(decl)) {
            skip("variadic list `[...]`: SubgraphRewriter patterns have a fixed arity");
            continue;
        }
        if (auto missing = unreachedFromOutput(decl, decl.outputs.front()); !missing.empty()) {
            skip("match statement '" + missing.front() + "' does not feed the output '" + decl.outputs.front() +
                 "' (SubgraphRewriter matches upward from the output only)");
            continue;
        }
        std::vector<std::string> unchecked;
        std::string why;
        for (const Expr &w : decl.where) {
            std::vector<const Expr *> parts;
            conjuncts(w, parts);
            for (const Expr *c : parts) {
                std::string name;
                int64_t n = 0;
                if (usersEquals(*c, name, n) && n == 1 && isMatchTarget(decl, name) && !isOutput(decl, name) &&
                    readsInMatch(decl, name) == 1)
                    continue; // implied: inner values may not be used outside the match
                if (isMetadataGuard(*c)) {
                    unchecked.push_back(writePatternExpr(*c));
                    continue;
                }
                if (why.empty())
                    why = "constraint `" + writePatternExpr(*c) + "` cannot be expressed in a SubgraphRewriter pattern";
            }
        }
        if (!why.empty()) {
            skip(why);
            continue;
        }
        std::string section;
        std::string sectionRegs;
        try {
            for (auto &[suffix, d] : expandAlternatives(decl)) {
                TsGraph g(schemas, d);
                const std::string pattern = g.match();
                const std::string replacement = g.replacement(g.inputs());
                const std::string id = decl.name + suffix;
                section += "inline const char *const k" + id + "Pattern = " + rawLiteral(pattern) + ";\n";
                section += "inline const char *const k" + id + "Replacement = " + rawLiteral(replacement) + ";\n";
                sectionRegs += "    rewriter.RegisterRewritePattern(k" + id + "Pattern, k" + id + "Replacement);\n";
            }
        } catch (const Unexpressible &u) {
            skip(u.why);
            continue;
        }
        body += "// " + decl.name + (decl.description ? ": " + *decl.description : std::string()) + "\n";
        for (const std::string &c : unchecked) {
            body += "// NOT CHECKED by SubgraphRewriter: `" + c + "` (add a MatchFilter to runOnGraph)\n";
            out.unchecked.emplace_back(decl.name, c);
        }
        body += section + "\n";
        registrations += sectionRegs;
    }
    out.text = "// Generated by `fusebox-pass export-patterns --to torchscript` from " +
               (file.sourceName.empty() ? std::string("<patterns>") : file.sourceName) +
               ".\n// TorchScript IR pattern/replacement pairs for torch::jit::SubgraphRewriter.\n"
               "#pragma once\n\n#include <torch/csrc/jit/passes/subgraph_rewrite.h>\n\nnamespace fusebox_patterns {\n\n" +
               body +
               "/// Registers every exported pattern; then call rewriter.runOnGraph(graph).\n"
               "inline void registerFuseboxPatterns(torch::jit::SubgraphRewriter &rewriter)\n{\n" +
               (registrations.empty() ? "    (void)rewriter;\n" : registrations) +
               "}\n\n} // namespace fusebox_patterns\n";
    return out;
}

// ---------------------------------------------------------------- Inductor

namespace {

std::string pyString(const std::string &s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string pyLiteral(const Expr &e)
{
    switch (e.kind) {
    case ExprKind::Int: return std::to_string(e.intValue);
    case ExprKind::Float: return formatDouble(e.floatValue);
    case ExprKind::Bool: return e.boolValue ? "True" : "False";
    case ExprKind::None: return "None";
    case ExprKind::String: return pyString(e.text);
    case ExprKind::DType: {
        auto t = parseDType(e.text);
        return t ? std::string(torchName(*t)) : "None";
    }
    default: throw Unexpressible{"`" + writePatternExpr(e) + "` is not a literal"};
    }
}

std::string pyOp(const patternlang::OpName &op)
{
    if (op.name == "getitem")
        return "operator.getitem";
    const auto sep = op.name.find("::");
    std::string text = "torch.ops." + op.name.substr(0, sep) + "." + op.name.substr(sep + 2);
    if (!op.overload.empty())
        text += "." + op.overload;
    return text;
}

class InductorPattern {
public:
    explicit InductorPattern(const PatternDecl &d) : m_decl(d)
    {
        for (const Expr &w : d.where) {
            std::vector<const Expr *> parts;
            conjuncts(w, parts);
            for (const Expr *c : parts) {
                std::string name;
                int64_t n = 0;
                if (usersEquals(*c, name, n) && isMatchTarget(d, name)) {
                    m_users[name] = n;
                    continue;
                }
                m_checks.push_back(c);
            }
        }
    }

    std::string tree(const Expr &e)
    {
        switch (e.kind) {
        case ExprKind::Name:
            for (const Statement &s : m_decl.match)
                if (s.target == e.text) {
                    if (readsInMatch(m_decl, e.text) != 1)
                        throw Unexpressible{"match value '" + e.text + "' is read " +
                                            std::to_string(readsInMatch(m_decl, e.text)) +
                                            " times: CallFunction patterns are trees"};
                    m_reached.insert(e.text);
                    return call(s.value, e.text);
                }
            return "KeywordArg(" + pyString(e.text) + ")";
        case ExprKind::Wildcard: return "Ignored()";
        case ExprKind::List: {
            std::string items;
            for (const Expr &o : e.operands)
                items += (items.empty() ? "" : ", ") + tree(o);
            return "[" + items + "]";
        }
        case ExprKind::Variadic: throw Unexpressible{"variadic list `[...]` (needs a custom Pattern class)"};
        case ExprKind::OpCall: return call(e, "");
        default: return pyLiteral(e);
        }
    }

    std::string call(const Expr &e, const std::string &target)
    {
        std::string fns;
        for (const auto &op : e.ops)
            fns += (fns.empty() ? "" : ", ") + pyOp(op);
        if (e.ops.size() > 1)
            fns = "[" + fns + "]";
        std::string text = "CallFunction(" + fns;
        for (const Argument &a : e.args)
            text += ", " + (a.keyword.empty() ? "" : a.keyword + "=") + tree(a.value);
        if (!target.empty() && m_users.count(target))
            text += ", _users=" + std::to_string(m_users[target]);
        return text + ")";
    }

    std::string check(const Expr &e)
    {
        switch (e.kind) {
        case ExprKind::Name:
            if (isMatchTarget(m_decl, e.text))
                throw Unexpressible{"constraint reads match value '" + e.text + "' directly"};
            return "_arg(match, " + pyString(e.text) + ")";
        case ExprKind::FunctionCall: {
            const Expr &a = e.args[0].value;
            if (!a.isName())
                throw Unexpressible{"`" + writePatternExpr(e) + "`: argument is not a name"};
            if (isMatchTarget(m_decl, a.text))
                throw Unexpressible{"`" + writePatternExpr(e) + "` on a match value other than users(v) == N"};
            static const std::set<std::string> known = {"users", "dtype", "rank", "shape", "numel"};
            if (!known.count(e.text))
                throw Unexpressible{"function " + e.text + "() in a constraint"};
            return "_" + e.text + "(match, " + pyString(a.text) + ")";
        }
        case ExprKind::Binary: {
            std::string op = e.text == "/" ? "//" : e.text;
            return "(" + check(e.operands[0]) + " " + op + " " + check(e.operands[1]) + ")";
        }
        case ExprKind::Unary: return "(" + e.text + (e.text == "not" ? " " : "") + check(e.operands[0]) + ")";
        case ExprKind::Index: return check(e.operands[0]) + "[" + check(e.operands[1]) + "]";
        case ExprKind::List: {
            std::string items;
            for (const Expr &o : e.operands)
                items += (items.empty() ? "" : ", ") + check(o);
            return "[" + items + "]";
        }
        default: return pyLiteral(e);
        }
    }

    std::string replacementExpr(const Expr &e)
    {
        switch (e.kind) {
        case ExprKind::Name: return e.text;
        case ExprKind::List: {
            std::string items;
            for (const Expr &o : e.operands)
                items += (items.empty() ? "" : ", ") + replacementExpr(o);
            return "[" + items + "]";
        }
        case ExprKind::OpCall: {
            std::string text = pyOp(e.ops.front()) + "(";
            bool first = true;
            for (const Argument &a : e.args) {
                text += (first ? "" : ", ") + (a.keyword.empty() ? "" : a.keyword + "=") + replacementExpr(a.value);
                first = false;
            }
            return text + ")";
        }
        case ExprKind::Binary: {
            std::string op = e.text == "/" ? "//" : e.text;
            return "(" + replacementExpr(e.operands[0]) + " " + op + " " + replacementExpr(e.operands[1]) + ")";
        }
        case ExprKind::Unary: return "(-" + replacementExpr(e.operands[0]) + ")";
        case ExprKind::Index: return replacementExpr(e.operands[0]) + "[" + replacementExpr(e.operands[1]) + "]";
        case ExprKind::FunctionCall: {
            const std::string v = replacementExpr(e.args[0].value);
            if (e.text == "shape")
                return v + ".shape";
            if (e.text == "rank")
                return v + ".dim()";
            if (e.text == "numel")
                return v + ".numel()";
            if (e.text == "dtype")
                return v + ".dtype";
            throw Unexpressible{"function " + e.text + "() in the replacement"};
        }
        default: return pyLiteral(e);
        }
    }

    std::string emit()
    {
        const PatternDecl &d = m_decl;
        if (d.outputs.size() != 1)
            throw Unexpressible{std::to_string(d.outputs.size()) +
                                " outputs: only single-output patterns are exported (MultiOutputPattern is not "
                                "generated)"};
        const std::string &out = d.outputs.front();
        if (readsInMatch(d, out) != 0)
            throw Unexpressible{"output '" + out + "' is read inside the match"};
        m_reached.insert(out);
        const Statement *outStmt = nullptr;
        for (const Statement &s : d.match)
            if (s.target == out)
                outStmt = &s;
        const std::string pattern = call(outStmt->value, out);
        for (const Statement &s : d.match)
            if (!m_reached.count(s.target))
                throw Unexpressible{"match statement '" + s.target + "' is not an input of the output's tree"};
        std::string checks;
        for (const Expr *c : m_checks)
            checks += "        and " + check(*c) + "\n";
        // The replacement: a function of the captures.
        std::string params;
        for (const std::string &c : d.captures)
            params += (params.empty() ? "" : ", ") + c;
        std::string repl;
        for (const Statement &s : d.replace)
            repl += "        " + s.target + " = " + replacementExpr(s.value) + "\n";
        repl += "        return " + out + "\n";

        const std::string id = d.name;
        const std::string pass = d.stage == patternlang::Stage::PreGrad ? "pre_grad_patterns" : "post_grad_patterns";
        std::string text;
        text += "# " + d.name + (d.description ? ": " + *d.description : std::string()) + "\n";
        text += "def _check_" + id + "(match):\n    try:\n        return bool(True\n" + checks +
                "        )\n    except Exception:  # unknown metadata: do not fire\n        return False\n\n\n";
        text += "@register_graph_pattern(\n    " + pattern + ",\n    pass_dict=" + pass + ",\n    extra_check=_check_" +
                id + ",\n)\n";
        text += "def _replace_" + id + "(match, *args, **kwargs):\n";
        text += "    def repl(" + params + "):\n" + repl;
        std::string argList;
        for (const std::string &c : d.captures)
            argList += (argList.empty() ? "" : ", ") + std::string("kwargs[") + pyString(c) + "]";
        text += "    match.replace_by_example(repl, [" + argList + "])\n\n\n";
        return text;
    }

private:
    const PatternDecl &m_decl;
    std::map<std::string, int64_t> m_users;
    std::vector<const Expr *> m_checks;
    std::set<std::string> m_reached;
};

std::string pyConfigValue(const ConfigValue &v)
{
    if (std::holds_alternative<bool>(v))
        return std::get<bool>(v) ? "True" : "False";
    if (std::holds_alternative<int64_t>(v))
        return std::to_string(std::get<int64_t>(v));
    return formatDouble(std::get<double>(v));
}

std::string pyOptions(const std::map<std::string, std::map<std::string, ConfigValue>> &options)
{
    if (options.empty())
        return "{}";
    std::string text = "{\n";
    for (const auto &[rule, opts] : options) {
        text += "    " + pyString(rule) + ": {";
        bool first = true;
        for (const auto &[k, v] : opts) {
            text += (first ? "" : ", ") + pyString(k) + ": " + pyConfigValue(v);
            first = false;
        }
        text += "},\n";
    }
    return text + "}";
}

} // namespace

PatternExport exportInductorPatterns(const PatternFile &file, const PassConfig *config)
{
    PatternExport out;
    std::string text;
    text += "# Generated by `fusebox-pass export-patterns --to inductor` from " +
            (file.sourceName.empty() ? std::string("<patterns>") : file.sourceName) + ".\n";
    text += "# Registers the custom patterns with torch._inductor.pattern_matcher (PyTorch 2.x).\n"
            "# Hook the passes in with install(); import this module before compiling.\n"
            "import operator\n\n"
            "import torch\n"
            "import torch._inductor.config as inductor_config\n"
            "from torch._inductor.pattern_matcher import (\n"
            "    CallFunction,\n    Ignored,\n    KeywordArg,\n    PatternMatcherPass,\n    register_graph_pattern,\n)\n\n"
            "pre_grad_patterns = PatternMatcherPass()\n"
            "post_grad_patterns = PatternMatcherPass()\n\n\n"
            "def _arg(match, name):\n    return match.kwargs[name]\n\n\n"
            "def _val(match, name):\n    v = match.kwargs[name]\n"
            "    return v.meta[\"val\"] if isinstance(v, torch.fx.Node) else v\n\n\n"
            "def _users(match, name):\n    return len(match.kwargs[name].users)\n\n\n"
            "def _dtype(match, name):\n    return _val(match, name).dtype\n\n\n"
            "def _rank(match, name):\n    return _val(match, name).dim()\n\n\n"
            "def _shape(match, name):\n    return [int(s) for s in _val(match, name).shape]\n\n\n"
            "def _numel(match, name):\n    return int(_val(match, name).numel())\n\n\n";
    if (config) {
        text += "# Built-in rules and their options (the pass config).\n";
        text += "inductor_config.pre_grad_fusion_options = " + pyOptions(config->preGradFusionOptions) + "\n";
        text += "inductor_config.post_grad_fusion_options = " + pyOptions(config->postGradFusionOptions) + "\n\n\n";
    }
    for (const PatternDecl &decl : file.patterns) {
        try {
            if (hasVariadic(decl))
                throw Unexpressible{"variadic list `[...]`: CallFunction trees have a fixed arity"};
            InductorPattern p(decl);
            text += p.emit();
        } catch (const Unexpressible &u) {
            out.skipped.emplace_back(decl.name, u.why);
            text += "# SKIPPED " + decl.name + ": " + u.why + "\n\n\n";
        }
    }
    text += "def install():\n"
            "    \"\"\"Runs the custom patterns in Inductor's custom pre-/post-grad pass hooks.\"\"\"\n"
            "    inductor_config.post_grad_custom_post_pass = post_grad_patterns.apply\n"
            "    inductor_config.pre_grad_custom_pass = pre_grad_patterns.apply\n";
    out.text = std::move(text);
    return out;
}

} // namespace fusebox
