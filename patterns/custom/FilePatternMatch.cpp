// FilePattern::match: a backtracking search over the match statements from the
// anchor. Statements read by matched nodes are found through their arguments
// (walking up); the others among the users of a bound value (CompiledPattern::
// steps), trying each candidate in users order. The search runs quietly; when
// explaining, the path that got furthest is replayed on the caller's trace,
// so the explanation shows one attempt's checks, not every backtrack.

#include "FilePattern.h"
#include "PatternEval.h"

#include "core/io/PatternFile.h"
#include "core/ir/ArgNormalizer.h"
#include "core/ir/OpSchema.h"

#include <algorithm>

namespace fusebox::custom {
namespace {

using patternlang::Expr;
using patternlang::ExprKind;
using patternlang::OpName;

bool opMatches(const OpName &op, const Node &n)
{
    if (n.op != op.name)
        return false;
    if (op.overload.empty() || op.overload == n.overload)
        return true;
    return op.overload == "default" && n.overload.empty();
}

bool anyOpMatches(const Expr &call, const Node &n)
{
    return std::any_of(call.ops.begin(), call.ops.end(), [&](const OpName &op) { return opMatches(op, n); });
}

bool contains(const std::vector<NodeId> &ids, NodeId id)
{
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

class BindingScope final : public Scope {
public:
    BindingScope(const CompiledPattern &p, const Bindings &b)
        : m_p(p)
        , m_b(b)
    {}
    std::optional<Arg> lookup(const std::string &name) const override
    {
        if (auto s = m_p.statementIndex.find(name); s != m_p.statementIndex.end())
            return m_b.statementNode[size_t(s->second)].isValid()
                       ? std::optional<Arg>(Arg(m_b.statementNode[size_t(s->second)]))
                       : std::nullopt;
        if (auto c = m_p.captureIndex.find(name); c != m_p.captureIndex.end())
            return m_b.captures[size_t(c->second)];
        return std::nullopt;
    }

private:
    const CompiledPattern &m_p;
    const Bindings &m_b;
};

class Search {
public:
    Search(const CompiledPattern &p, const Graph &g, MatchTrace &t, const std::vector<int> *forced)
        : m_p(p)
        , m_g(g)
        , m_trace(t)
        , m_forced(forced)
    {}

    bool run(NodeId anchor, Bindings &out)
    {
        Bindings b;
        b.statementNode.resize(m_p.decl.match.size());
        b.captures.resize(m_p.decl.captures.size());
        return matchNode(b, m_p.statementSpec[size_t(m_p.anchorStatement)], anchor, nullptr) && solve(b, 0, out);
    }

    int bestProgress = -1;
    std::vector<int> bestChoices;

private:
    using Lists = std::vector<std::vector<Arg>>;

    /// A structural check: its actual-value text describes a failure, so a
    /// passing check shows none.
    template<typename Actual>
    bool check(Bindings &b, bool ok, const std::string &desc, Actual &&actual, std::vector<NodeId> nodes = {})
    {
        if (ok)
            return checkWithValues(
                b, true, desc, [] { return std::string(); }, std::move(nodes));
        return checkWithValues(b, false, desc, std::forward<Actual>(actual), std::move(nodes));
    }
    /// A check whose actual-value text holds either way (where-constraints).
    template<typename Actual>
    bool checkWithValues(Bindings &b, bool ok, const std::string &desc, Actual &&actual, std::vector<NodeId> nodes = {})
    {
        if (m_trace.check(ok, desc, std::forward<Actual>(actual), std::move(nodes))) {
            ++b.progress;
            return true;
        }
        if (b.progress > bestProgress) {
            bestProgress = b.progress;
            bestChoices = b.choices;
        }
        return false;
    }
    /// Nodes for a check, only when they will be shown.
    std::vector<NodeId> at(NodeId a, NodeId b = {}) const
    {
        std::vector<NodeId> ids;
        if (m_trace.explaining()) {
            if (a.isValid())
                ids.push_back(a);
            if (b.isValid())
                ids.push_back(b);
        }
        return ids;
    }
    std::string ref(NodeId id) const { return nodeRef(m_g, id); }
    std::string fmt(const Arg &a) const { return formatValue(m_g, a); }

    bool matchNode(Bindings &b, int specIndex, NodeId id, Lists *lists)
    {
        const CallSpec &spec = m_p.specs[size_t(specIndex)];
        if (!check(
                b, !contains(b.matched, id), spec.distinctText,
                [&] { return ref(id) + " is already part of the match"; }, at(id)))
            return false;
        const Node *n = m_g.node(id);
        if (!check(
                b, n && n->isOp() && anyOpMatches(*spec.call, *n), spec.opText,
                [&] { return ref(id) + " is " + (n && n->isOp() ? n->qualifiedOp() : "not an op call"); }, at(id)))
            return false;
        b.matched.push_back(id);
        if (spec.statement >= 0)
            b.statementNode[size_t(spec.statement)] = id;
        if (const OpSchema *schema = schemaFor(*n)) {
            auto normal = normalizeCall(*schema, CallArgs{n->args(), n->kwargs()});
            if (normal)
                return matchSchemaArgs(b, spec, *n, *schema, *normal, lists);
        }
        const auto &args = spec.call->args;
        for (size_t j = 0; j < args.size(); ++j) {
            const Arg *actual = nullptr;
            if (args[j].keyword.empty())
                actual = j < n->args().size() ? &n->args()[j] : nullptr;
            else
                actual = n->kwarg(args[j].keyword);
            if (!check(
                    b, actual != nullptr, spec.argTexts[j], [&] { return ref(id) + " has no such argument"; }, at(id)))
                return false;
            if (!matchExpr(b, args[j].value, *actual, spec.argTexts[j], lists))
                return false;
        }
        return true;
    }

    const OpSchema *schemaFor(const Node &n) const
    {
        if (!m_p.schemas || n.op == "getitem")
            return nullptr;
        if (const OpSchema *s = m_p.schemas->find(n.op, n.overload == "default" ? "" : n.overload))
            return s;
        auto all = m_p.schemas->overloads(n.op);
        return n.overload.empty() && all.size() == 1 ? all.front() : nullptr;
    }

    bool matchSchemaArgs(Bindings &b, const CallSpec &spec, const Node &n, const OpSchema &schema,
                         const CallArgs &normal, Lists *lists)
    {
        const auto &params = schema.arguments;
        const auto &args = spec.call->args;
        std::vector<int> argOf(params.size(), -1);
        for (size_t j = 0; j < args.size(); ++j) {
            const int i = args[j].keyword.empty() ? int(j) : schema.argumentIndex(args[j].keyword);
            if (!check(
                    b, i >= 0 && size_t(i) < params.size(), spec.argTexts[j],
                    [&] { return schema.qualifiedName() + " has no such parameter"; }, at(n.id())))
                return false;
            argOf[size_t(i)] = int(j);
        }
        for (size_t i = 0; i < params.size(); ++i) {
            const Arg *actual = nullptr;
            if (!params[i].kwargOnly && i < normal.args.size())
                actual = &normal.args[i];
            for (const NamedArg &kw : normal.kwargs)
                if (!actual && kw.name == params[i].name)
                    actual = &kw.value;
            std::optional<Arg> def;
            if (params[i].defaultValue)
                def = parseSchemaDefault(*params[i].defaultValue);
            if (argOf[i] < 0) {
                // Left out of the pattern: the node must hold the default (when one is known).
                if (actual && def
                    && !check(
                        b, valuesEqual(*actual, *def), spec.defaultsText,
                        [&] {
                            return ref(n.id()) + " has " + params[i].name + " = " + fmt(*actual) + ", the default is "
                                   + fmt(*def);
                        },
                        at(n.id())))
                    return false;
                continue;
            }
            const size_t j = size_t(argOf[i]);
            const Arg *value = actual ? actual : (def ? &*def : nullptr);
            if (!check(
                    b, value != nullptr, spec.argTexts[j],
                    [&] { return ref(n.id()) + " has no argument " + params[i].name; }, at(n.id())))
                return false;
            if (!matchExpr(b, args[j].value, *value, spec.argTexts[j], lists))
                return false;
        }
        return true;
    }

    bool bindCapture(Bindings &b, const std::string &name, int index, const Arg &actual, const std::string &desc)
    {
        std::optional<Arg> &slot = b.captures[size_t(index)];
        if (!slot) {
            slot = actual;
            return true;
        }
        return check(b, valuesEqual(*slot, actual), desc,
                     [&] { return name + " is bound to " + fmt(*slot) + ", here it is " + fmt(actual); });
    }

    bool matchExpr(Bindings &b, const Expr &e, const Arg &actual, const std::string &desc, Lists *lists)
    {
        switch (e.kind) {
        case ExprKind::Wildcard: return true;
        case ExprKind::Name: {
            if (auto s = m_p.statementIndex.find(e.text); s != m_p.statementIndex.end()) {
                if (!check(b, actual.isNode(), desc, [&] { return fmt(actual) + " is a literal, not " + e.text; }))
                    return false;
                const NodeId bound = b.statementNode[size_t(s->second)];
                if (bound.isValid())
                    return check(
                        b, bound == actual.node(), desc,
                        [&] { return e.text + " is " + ref(bound) + ", here it is " + ref(actual.node()); },
                        at(actual.node(), bound));
                return matchNode(b, m_p.statementSpec[size_t(s->second)], actual.node(), nullptr);
            }
            const int c = m_p.captureIndex.at(e.text);
            if (lists && m_p.isListCapture[size_t(c)]) {
                (*lists)[size_t(c)].push_back(actual);
                return true;
            }
            return bindCapture(b, e.text, c, actual, desc);
        }
        case ExprKind::List: {
            const auto *items = actual.items();
            if (!check(b, items && items->size() == e.operands.size(), desc, [&] {
                    return fmt(actual) + " is not a list of " + std::to_string(e.operands.size()) + " items";
                }))
                return false;
            for (size_t k = 0; k < items->size(); ++k)
                if (!matchExpr(b, e.operands[k], (*items)[k], desc, lists))
                    return false;
            return true;
        }
        case ExprKind::Variadic: {
            const auto *items = actual.items();
            if (!check(b, items && !items->empty(), desc, [&] { return fmt(actual) + " is not a non-empty list"; }))
                return false;
            Lists local(m_p.decl.captures.size());
            for (const Arg &item : *items)
                if (!matchExpr(b, e.operands[0], item, desc, &local))
                    return false;
            for (size_t c = 0; c < local.size(); ++c)
                if (!local[c].empty()
                    && !bindCapture(b, m_p.decl.captures[c], int(c), Arg::list(std::move(local[c])), desc))
                    return false;
            return true;
        }
        case ExprKind::OpCall:
            if (!check(b, actual.isNode(), desc, [&] { return fmt(actual) + " is a literal, not a call"; }))
                return false;
            return matchNode(b, m_p.specOf.at(&e), actual.node(), lists);
        default: {
            auto literal = evaluate(e, m_g, BindingScope(m_p, b));
            return check(b, literal && valuesEqual(*literal, actual), desc,
                         [&] { return "it is " + fmt(actual) + ", not " + writePatternExpr(e); });
        }
        }
    }

    bool solve(Bindings &b, size_t step, Bindings &out)
    {
        if (step == m_p.steps.size()) {
            if (!finish(b))
                return false;
            out = std::move(b);
            return true;
        }
        const SearchStep &st = m_p.steps[step];
        const auto via = BindingScope(m_p, b).lookup(st.via);
        const NodeId from = via && via->isNode() ? via->node() : NodeId{};
        if (!check(b, from.isValid(), st.text,
                   [&] { return st.via + " is " + (via ? fmt(*via) : "unbound") + ", not a graph value"; }))
            return false;
        const Expr &call = *m_p.specs[size_t(st.spec)].call;
        std::vector<NodeId> candidates;
        for (NodeId u : m_g.users(from))
            if (!contains(b.matched, u) && m_g.node(u)->isOp() && anyOpMatches(call, *m_g.node(u)))
                candidates.push_back(u);
        if (!check(
                b, !candidates.empty(), st.text,
                [&] {
                    return "no user of " + ref(from) + " outside the match has the op ("
                           + std::to_string(m_g.users(from).size()) + " users)";
                },
                at(from)))
            return false;
        const size_t depth = b.choices.size();
        for (size_t i = 0; i < candidates.size(); ++i) {
            if (m_forced && depth < m_forced->size() && (*m_forced)[depth] != int(i))
                continue;
            Bindings next = b;
            next.choices.push_back(int(i));
            if (matchNode(next, st.spec, candidates[i], nullptr) && solve(next, step + 1, out))
                return true;
        }
        return false;
    }

    bool finish(Bindings &b);

    const CompiledPattern &m_p;
    const Graph &m_g;
    MatchTrace &m_trace;
    const std::vector<int> *m_forced;
};

bool Search::finish(Bindings &b)
{
    BindingScope scope(m_p, b);
    for (size_t k = 0; k < m_p.decl.where.size(); ++k) {
        const Expr &constraint = m_p.decl.where[k];
        auto v = evaluate(constraint, m_g, scope);
        const bool ok = v && std::holds_alternative<bool>(v->value) && std::get<bool>(v->value);
        if (!checkWithValues(b, ok, m_p.whereTexts[k], [&] { return describeOperands(constraint, m_g, scope); }))
            return false;
    }
    NodeId offender, user;
    for (NodeId m : b.matched) {
        bool output = false;
        for (size_t s = 0; s < m_p.isOutput.size(); ++s)
            output = output || (m_p.isOutput[s] && b.statementNode[s] == m);
        if (output || offender.isValid())
            continue;
        m_g.forEachUse(m, [&](NodeId u) {
            // A user nothing reads (a dead getitem FX keeps) observes nothing:
            // the rewrite erases only what died, so it stays valid. Inductor's
            // matcher accepts such matches too.
            const bool deadUser = u != m_g.output() && m_g.useCount(u) == 0;
            if (!offender.isValid() && !deadUser && !contains(b.matched, u)) {
                offender = m;
                user = u;
            }
        });
    }
    if (!check(
            b, !offender.isValid(), "only pattern outputs are used outside the match",
            [&] {
                return ref(offender) + " is used outside the match by " + ref(user) + " (only pattern outputs may be)";
            },
            at(offender, user)))
        return false;
    for (size_t k = 0; k < m_p.computed.size(); ++k) {
        auto v = evaluate(*m_p.computed[k], m_g, scope);
        if (!check(b, v.has_value(), m_p.computedTexts[k],
                   [&] { return describeOperands(*m_p.computed[k], m_g, scope); }))
            return false;
    }
    for (const std::string &name : m_p.nodeCaptures) {
        auto v = scope.lookup(name);
        if (!check(b, v && v->isNode(), "replacement outputs are graph values",
                   [&] { return name + " is " + (v ? fmt(*v) : "unbound"); }))
            return false;
    }
    if (!m_p.needsCycleCheck)
        return true;
    // A capture computed from a matched node would make the rewrite read its own result.
    std::vector<char> seen(m_g.idBound(), 0);
    std::vector<NodeId> stack;
    for (const auto &c : b.captures)
        if (c)
            forEachNodeRef(*c, [&](NodeId id) { stack.push_back(id); });
    NodeId hit;
    while (!stack.empty() && !hit.isValid()) {
        NodeId id = stack.back();
        stack.pop_back();
        if (seen[id.value])
            continue;
        seen[id.value] = 1;
        if (contains(b.matched, id))
            hit = id;
        else
            m_g.forEachInput(id, [&](NodeId in) { stack.push_back(in); });
    }
    return check(
        b, !hit.isValid(), "no capture depends on a matched node (the rewrite makes no cycle)",
        [&] { return "a capture is computed from the matched " + ref(hit); }, at(hit));
}

MatchTrace &quietTrace()
{
    thread_local MatchTrace trace;
    trace = MatchTrace();
    return trace;
}

} // namespace

std::optional<Bindings> FilePattern::bind(const Graph &graph, NodeId anchor) const
{
    Search search(*m_compiled, graph, quietTrace(), nullptr);
    Bindings b;
    if (!search.run(anchor, b))
        return std::nullopt;
    return b;
}

std::optional<Match> FilePattern::match(const Graph &graph, NodeId anchor, MatchTrace &trace) const
{
    Search search(*m_compiled, graph, quietTrace(), nullptr);
    Bindings b;
    const bool ok = search.run(anchor, b);
    if (trace.explaining()) {
        // Replays the successful path, or the attempt that got furthest.
        Search replay(*m_compiled, graph, trace, ok ? &b.choices : &search.bestChoices);
        Bindings again;
        replay.run(anchor, again);
    } else if (!ok) {
        trace.fail("the pattern matches here", [] { return std::string(); });
    }
    if (!ok)
        return std::nullopt;
    return Match{name(), anchor, b.matched, {}, benefit()};
}

} // namespace fusebox::custom
