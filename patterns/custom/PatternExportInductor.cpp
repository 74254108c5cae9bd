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

using namespace patternexport;

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
    explicit InductorPattern(const PatternDecl &d)
        : m_decl(d)
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

    /// The CallFunction tree matching e. `path` is the Python expression of
    /// the graph value e matches, from `_out` (the output node) or, inside a
    /// variadic template, from `_el` (one list element): how a list capture's
    /// items are read back from the match.
    std::string tree(const Expr &e, const std::string &path)
    {
        switch (e.kind) {
        case ExprKind::Name:
            for (const Statement &s : m_decl.match)
                if (s.target == e.text) {
                    // Read once per repetition of a template: one node, many users.
                    const bool inTemplate = !m_templateList.empty();
                    if (readsInMatch(m_decl, e.text) != 1)
                        throw Unexpressible{"match value '" + e.text + "' is read "
                                            + std::to_string(readsInMatch(m_decl, e.text))
                                            + " times: CallFunction patterns are trees"};
                    m_reached.insert(e.text);
                    return call(s.value, e.text, path, inTemplate);
                }
            if (isListCapture(e.text)) {
                if (m_templateList.empty())
                    throw Unexpressible{"list capture '" + e.text + "' outside its template"};
                m_listReads[e.text] = "[" + path + " for _el in " + m_templateList + "]";
                return "Ignored()";
            }
            return "KeywordArg(" + pyString(e.text) + ")";
        case ExprKind::Wildcard: return "Ignored()";
        case ExprKind::List: {
            std::string items;
            for (size_t i = 0; i < e.operands.size(); ++i)
                items += (items.empty() ? "" : ", ") + tree(e.operands[i], path + "[" + std::to_string(i) + "]");
            return "[" + items + "]";
        }
        case ExprKind::Variadic: {
            // ListOf matches every element against the template; captures read
            // once per element are collected from the matched list afterwards.
            if (!m_templateList.empty())
                throw Unexpressible{"nested variadic lists"};
            m_templateList = path;
            std::string inner = tree(e.operands[0], "_el");
            m_templateList.clear();
            return "ListOf(" + inner + ")";
        }
        case ExprKind::OpCall: return call(e, "", path, false);
        default: return pyLiteral(e);
        }
    }

    bool isListCapture(const std::string &name) const
    {
        return std::find(m_decl.listCaptures.begin(), m_decl.listCaptures.end(), name) != m_decl.listCaptures.end();
    }

    std::string call(const Expr &e, const std::string &target, const std::string &path, bool manyUsers)
    {
        std::string fns;
        for (const auto &op : e.ops)
            fns += (fns.empty() ? "" : ", ") + pyOp(op);
        if (e.ops.size() > 1)
            fns = "[" + fns + "]";
        std::string text = "CallFunction(" + fns;
        for (size_t i = 0; i < e.args.size(); ++i) {
            const Argument &a = e.args[i];
            const std::string argPath = "_arg_at(" + path + ", " + std::to_string(i) + ", "
                                        + (a.keyword.empty() ? std::string("None") : pyString(a.keyword)) + ")";
            text += ", " + (a.keyword.empty() ? "" : a.keyword + "=") + tree(a.value, argPath);
        }
        if (manyUsers)
            text += ", _users=MULTIPLE";
        else if (!target.empty() && m_users.count(target))
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
            if (e.text == "len" || e.text == "first" || e.text == "last" || e.text == "consecutive")
                return "_" + e.text + "(_arg(match, " + pyString(a.text) + "))";
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
            if (e.text == "first")
                return v + "[0]";
            if (e.text == "last")
                return v + "[-1]";
            if (e.text == "len")
                return "len(" + v + ")";
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
            throw Unexpressible{std::to_string(d.outputs.size())
                                + " outputs: only single-output patterns are exported (MultiOutputPattern is not "
                                  "generated)"};
        const std::string &out = d.outputs.front();
        if (readsInMatch(d, out) != 0)
            throw Unexpressible{"output '" + out + "' is read inside the match"};
        m_reached.insert(out);
        const Statement *outStmt = nullptr;
        for (const Statement &s : d.match)
            if (s.target == out)
                outStmt = &s;
        const std::string pattern = call(outStmt->value, out, "_out", false);
        for (const Statement &s : d.match)
            if (!m_reached.count(s.target))
                throw Unexpressible{"match statement '" + s.target + "' is not an input of the output's tree"};
        std::string checks;
        for (const Expr *c : m_checks)
            checks += "        and " + check(*c) + "\n";
        // List captures are read back from the matched list (ListOf binds no
        // names) and passed on to the replacement like the other captures.
        std::string listReads;
        for (const std::string &name : d.listCaptures) {
            auto it = m_listReads.find(name);
            if (it == m_listReads.end())
                throw Unexpressible{"list capture '" + name + "' is not read from the match"};
            listReads += "        match.kwargs[" + pyString(name) + "] = " + it->second + "\n";
        }
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
        text += "def _check_" + id + "(match):\n    try:\n"
                + (listReads.empty() ? std::string() : "        _out = match.output_node()\n" + listReads)
                + "        return bool(True\n" + checks
                + "        )\n    except Exception:  # unknown metadata: do not fire\n        return False\n\n\n";
        text += "@register_graph_pattern(\n    " + pattern + ",\n    pass_dict=" + pass + ",\n    extra_check=_check_"
                + id + ",\n)\n";
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
    std::string m_templateList;                     ///< the list path while inside a variadic template
    std::map<std::string, std::string> m_listReads; ///< list capture -> Python list expression
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

/// Fusebox's own ops (core/torch/FuseboxOps.h) defined for PyTorch 2 by the
/// same decompositions, so that a graph a pattern rewrote into them runs in
/// stock PyTorch. CompositeExplicitAutograd keeps them as single nodes when
/// Inductor traces a replacement (an implicit composite would decompose at once).
std::string fuseboxOpsPreamble()
{
    return "# Fusebox's own ops (core/torch/FuseboxOps.h), defined by their decompositions so that\n"
           "# graphs rewritten into them run in stock PyTorch 2.\n"
           "_fusebox_library = torch.library.Library(\"fusebox\", \"FRAGMENT\")\n\n\n"
           "def _define_fusebox_op(schema, decomposition):\n"
           "    name = schema.split(\"(\", 1)[0]\n"
           "    if hasattr(torch.ops.fusebox, name):\n"
           "        return  # defined by an earlier import\n"
           "    _fusebox_library.define(schema)\n"
           "    _fusebox_library.impl(name, decomposition, \"CompositeExplicitAutograd\")\n\n\n"
           "_define_fusebox_op(\"linear_relu(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor\",\n"
           "                   lambda input, weight, bias=None: torch.relu(torch.nn.functional.linear(input, weight, "
           "bias)))\n"
           "_define_fusebox_op(\"linear_gelu(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor\",\n"
           "                   lambda input, weight, bias=None: "
           "torch.nn.functional.gelu(torch.nn.functional.linear(input, weight, bias)))\n\n\n";
}

} // namespace

PatternExport exportInductorPatterns(const PatternFile &file, const PassConfig *config)
{
    PatternExport out;
    std::string text;
    text += "# Generated by `fusebox-pass export-patterns --to inductor` from "
            + (file.sourceName.empty() ? std::string("<patterns>") : file.sourceName) + ".\n";
    text += "# Registers the custom patterns with torch._inductor.pattern_matcher (PyTorch 2.x).\n"
            "# Hook the passes in with install(); import this module before compiling.\n"
            "import operator\n\n"
            "import torch\n"
            "import torch._inductor.config as inductor_config\n"
            "from torch._inductor.pattern_matcher import (\n"
            "    MULTIPLE,\n    CallFunction,\n    Ignored,\n    KeywordArg,\n    ListOf,\n    PatternMatcherPass,\n"
            "    register_graph_pattern,\n)\n\n"
            "pre_grad_patterns = PatternMatcherPass()\n"
            "post_grad_patterns = PatternMatcherPass()\n\n\n"
            "def _arg(match, name):\n    return match.kwargs[name]\n\n\n"
            "def _val(match, name):\n    v = match.kwargs[name]\n"
            "    return v.meta[\"val\"] if isinstance(v, torch.fx.Node) else v\n\n\n"
            "def _users(match, name):\n    return len(match.kwargs[name].users)\n\n\n"
            "def _dtype(match, name):\n    return _val(match, name).dtype\n\n\n"
            "def _rank(match, name):\n    return _val(match, name).dim()\n\n\n"
            "def _shape(match, name):\n    return [int(s) for s in _val(match, name).shape]\n\n\n"
            "def _numel(match, name):\n    return int(_val(match, name).numel())\n\n\n"
            "def _arg_at(node, index, keyword):\n"
            "    \"\"\"A call's argument by position, or by keyword when it was passed so.\"\"\"\n"
            "    if index < len(node.args):\n        return node.args[index]\n"
            "    return node.kwargs[keyword] if keyword else list(node.kwargs.values())[index - len(node.args)]\n\n\n"
            "def _len(items):\n    return len(items)\n\n\n"
            "def _first(items):\n    return items[0]\n\n\n"
            "def _last(items):\n    return items[-1]\n\n\n"
            "def _consecutive(items):\n    return all(b == a + 1 for a, b in zip(items, items[1:]))\n\n\n";
    text += fuseboxOpsPreamble();
    if (config) {
        text += "# Built-in rules and their options (the pass config).\n";
        text += "inductor_config.pre_grad_fusion_options = " + pyOptions(config->preGradFusionOptions) + "\n";
        text += "inductor_config.post_grad_fusion_options = " + pyOptions(config->postGradFusionOptions) + "\n\n\n";
    }
    for (const PatternDecl &decl : file.patterns) {
        try {
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
            "    inductor_config.pre_grad_custom_pass = pre_grad_patterns.apply\n"
            "\n\n"
            "def apply(gm):\n"
            "    \"\"\"Runs the custom patterns on a torch.fx.GraphModule through Inductor's pattern\n"
            "    matcher (pre-grad patterns, then post-grad ones); returns the number of\n"
            "    replacements. Nodes need meta[\"val\"] (shape propagation) for the checks.\"\"\"\n"
            "    count = pre_grad_patterns.apply(gm.graph) + post_grad_patterns.apply(gm.graph)\n"
            "    if count:\n"
            "        gm.graph.eliminate_dead_code()\n"
            "        gm.graph.lint()\n"
            "        gm.recompile()\n"
            "    return count\n";
    out.text = std::move(text);
    return out;
}

} // namespace fusebox
