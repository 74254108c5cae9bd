#include "PatternExport.h"
#include "PatternExportCommon.h"

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

using namespace patternexport;

// ------------------------------------------------------------ TorchScript

class TsGraph {
public:
    TsGraph(const OpSchemaRegistry *schemas, const PatternDecl &decl)
        : m_schemas(schemas)
        , m_decl(decl)
    {}

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
        m_body += "  %" + name + " : " + type + " = prim::Constant" + (attr.empty() ? "" : "[value=" + attr + "]")
                  + "()\n";
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
                throw Unexpressible{"the replacement reads match value '" + e.text
                                    + "', which SubgraphRewriter does not pass to the replacement"};
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
                    throw Unexpressible{op.qualifiedName() + ": the default of '" + s->arguments[i].name + "' ("
                                        + *s->arguments[i].defaultValue + ") has no constant form"};
                args.push_back(value(*d));
            }
            if (s->returns.size() != 1)
                throw Unexpressible{op.qualifiedName() + " returns " + std::to_string(s->returns.size()) + " values"};
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
            skip(std::to_string(decl.outputs.size())
                 + " outputs: only single-output patterns are exported (SubgraphRewriter's multi-output matches "
                   "are not checked for outside uses of every output)");
            continue;
        }
        if (hasVariadic(decl)) {
            skip("variadic list `[...]`: SubgraphRewriter patterns have a fixed arity");
            continue;
        }
        if (auto missing = unreachedFromOutput(decl, decl.outputs.front()); !missing.empty()) {
            skip("match statement '" + missing.front() + "' does not feed the output '" + decl.outputs.front()
                 + "' (SubgraphRewriter matches upward from the output only)");
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
                if (usersEquals(*c, name, n) && n == 1 && isMatchTarget(decl, name) && !isOutput(decl, name)
                    && readsInMatch(decl, name) == 1)
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
    out.text
        = "// Generated by `fusebox-pass export-patterns --to torchscript` from "
          + (file.sourceName.empty() ? std::string("<patterns>") : file.sourceName)
          + ".\n// TorchScript IR pattern/replacement pairs for torch::jit::SubgraphRewriter.\n"
            "#pragma once\n\n#include <torch/csrc/jit/passes/subgraph_rewrite.h>\n\nnamespace fusebox_patterns {\n\n"
          + body
          + "/// Registers every exported pattern; then call rewriter.runOnGraph(graph).\n"
            "inline void registerFuseboxPatterns(torch::jit::SubgraphRewriter &rewriter)\n{\n"
          + (registrations.empty() ? "    (void)rewriter;\n" : registrations)
          + "}\n\n} // namespace fusebox_patterns\n";
    return out;
}
} // namespace fusebox
