// FilePattern::rewrite: runs the replacement program before the anchor, then
// points the users of each output at its replacement and erases what died.

#include "FilePattern.h"
#include "PatternEval.h"

#include "core/ir/OpSchema.h"

#include <algorithm>

namespace fusebox::custom {
namespace {

using patternlang::Expr;
using patternlang::ExprKind;

class Rewrite final : public Scope {
public:
    Rewrite(const CompiledPattern &p, PatternRewriter &rw, const Bindings &b, NodeId anchor)
        : m_p(p)
        , m_rw(rw)
        , m_b(b)
        , m_anchor(anchor)
    {}

    std::optional<Arg> lookup(const std::string &name) const override
    {
        for (auto it = m_values.rbegin(); it != m_values.rend(); ++it)
            if (it->first == name)
                return it->second;
        if (auto s = m_p.statementIndex.find(name); s != m_p.statementIndex.end())
            return Arg(m_b.statementNode[size_t(s->second)]);
        if (auto c = m_p.captureIndex.find(name); c != m_p.captureIndex.end())
            return m_b.captures[size_t(c->second)];
        return std::nullopt;
    }

    void run()
    {
        const auto &replace = m_p.decl.replace;
        for (size_t k = 0; k < replace.size(); ++k) {
            const auto &st = replace[k];
            if (st.value.kind != ExprKind::OpCall) {
                m_values.emplace_back(st.target, argValue(st.value));
                continue;
            }
            // The output's final value takes over the replaced node's metadata.
            const Node *replaced = nullptr;
            bool last = true;
            for (size_t j = k + 1; j < replace.size(); ++j)
                last = last && replace[j].target != st.target;
            auto s = m_p.statementIndex.find(st.target);
            if (last && s != m_p.statementIndex.end() && m_p.isOutput[size_t(s->second)])
                replaced = m_rw.graph().node(m_b.statementNode[size_t(s->second)]);
            m_values.emplace_back(st.target, Arg(create(st.value, replaced, st.target)));
        }
        for (size_t s = 0; s < m_p.decl.match.size(); ++s) {
            if (!m_p.isOutput[s])
                continue;
            const NodeId old = m_b.statementNode[s];
            auto value = lookup(m_p.decl.match[s].target);
            if (value && value->isNode() && value->node() != old)
                m_rw.replaceAllUsesWith(old, value->node());
        }
        for (NodeId id : m_b.matched)
            if (m_rw.graph().contains(id))
                m_rw.eraseIfDead(id);
    }

private:
    NodeId create(const Expr &call, const Node *replaced, const std::string &target)
    {
        std::vector<Arg> args;
        std::vector<NamedArg> kwargs;
        for (const auto &a : call.args) {
            Arg v = argValue(a.value);
            if (a.keyword.empty())
                args.push_back(std::move(v));
            else
                kwargs.push_back({a.keyword, std::move(v)});
        }
        const auto &op = call.ops.front();
        TensorMeta meta = replaced ? replaced->meta : TensorMeta{};
        std::string type = replaced ? replaced->type : resultType(op, target);
        NodeId id = m_rw.createOp(op.name, std::move(args), std::move(kwargs), m_anchor, std::move(meta));
        if (!op.overload.empty() || type != "Tensor")
            m_rw.modify(id, [&](Node &n) {
                n.overload = op.overload;
                n.type = type;
            });
        return id;
    }

    /// The schema's return type, else "Tensor[]" when a replacement getitem reads the value.
    std::string resultType(const patternlang::OpName &op, const std::string &target) const
    {
        if (m_p.schemas && op.name != "getitem") {
            const OpSchema *s = m_p.schemas->find(op.name, op.overload == "default" ? "" : op.overload);
            if (s && s->returns.size() == 1)
                return s->returns[0].type;
        }
        for (const auto &st : m_p.decl.replace)
            if (st.value.kind == ExprKind::OpCall && st.value.ops.front().name == "getitem" && !st.value.args.empty()
                && st.value.args[0].value.isName() && st.value.args[0].value.text == target && !target.empty())
                return "Tensor[]";
        return "Tensor";
    }

    Arg argValue(const Expr &e)
    {
        if (e.kind == ExprKind::OpCall)
            return Arg(create(e, nullptr, {}));
        if (e.kind == ExprKind::List) {
            std::vector<Arg> items;
            for (const Expr &o : e.operands)
                items.push_back(argValue(o));
            return Arg::list(std::move(items));
        }
        // Names, literals and computed literals (checked computable when matching).
        return evaluate(e, m_rw.graph(), *this).value_or(Arg(NoneArg{}));
    }

    const CompiledPattern &m_p;
    PatternRewriter &m_rw;
    const Bindings &m_b;
    NodeId m_anchor;
    std::vector<std::pair<std::string, Arg>> m_values;
};

} // namespace

FilePattern::FilePattern(std::shared_ptr<const CompiledPattern> compiled, PassStage stage, int benefit,
                         std::vector<std::string> rootOps, std::string description)
    : VerticalPattern(compiled->decl.name, stage, benefit, std::move(rootOps), std::move(description))
    , m_compiled(std::move(compiled))
{}

LogicalResult FilePattern::rewrite(PatternRewriter &rewriter, const Match &match) const
{
    auto bindings = bind(rewriter.graph(), match.anchor);
    if (!bindings)
        return failure();
    Rewrite(*m_compiled, rewriter, *bindings, match.anchor).run();
    return success();
}

} // namespace fusebox::custom
