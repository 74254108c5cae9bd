#include "ReplacementTypeCheck.h"
#include "TypeFacts.h"

#include "core/io/PatternFile.h"
#include "core/ir/DType.h"

#include <bitset>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace fusebox::custom {
namespace {

using namespace patternlang;
using namespace typefacts;

class Interpreter {
public:
    Interpreter(const PatternDecl &decl, std::string source)
        : m_decl(decl)
        , m_source(std::move(source))
    {
        for (size_t i = 0; i < decl.match.size(); ++i)
            m_matchIndex[decl.match[i].target] = i;
        for (const std::string &c : decl.captures)
            m_allowed[c] = everyDType();
        for (const std::string &c : decl.listCaptures)
            m_lists.insert(c);
        for (const Expr &w : decl.where)
            narrow(w);
        for (const Statement &s : decl.match)
            narrowByUse(s.value);
    }

    std::string check()
    {
        std::map<std::string, Facts> replaced;
        for (const Statement &st : m_decl.replace) {
            Facts mine = eval(st.value, &replaced);
            auto m = m_matchIndex.find(st.target);
            if (m != m_matchIndex.end()) {
                const Statement &matched = m_decl.match[m->second];
                const Facts theirs = matchFacts(m->second);
                if (auto problem = compare(st, mine, matched, theirs); !problem.empty())
                    return problem;
            }
            replaced[st.target] = std::move(mine);
        }
        return {};
    }

private:
    // ---- what the constraints say of captures -------------------------------

    static const Expr *captureOf(const Expr &e, const char *function)
    {
        if (e.kind == ExprKind::FunctionCall && e.text == function && e.args.size() == 1
            && e.args[0].value.kind == ExprKind::Name)
            return &e.args[0].value;
        return nullptr;
    }

    void narrow(const Expr &w)
    {
        if (w.kind != ExprKind::Binary)
            return;
        if (w.text == "and") {
            narrow(w.operands[0]);
            narrow(w.operands[1]);
            return;
        }
        for (int side = 0; side < 2; ++side) {
            const Expr &fn = w.operands[size_t(side)], &value = w.operands[size_t(1 - side)];
            if (const Expr *x = captureOf(fn, "dtype"); x && m_allowed.count(x->text)) {
                DTypeSet allowed;
                if (w.text == "==" && value.kind == ExprKind::DType)
                    allowed = dtypesOf({value});
                else if (w.text == "in" && side == 0 && value.kind == ExprKind::List)
                    allowed = dtypesOf(value.operands);
                else
                    continue;
                m_allowed[x->text] &= allowed;
            }
            if (const Expr *x = captureOf(fn, "rank"); x && w.text == "==" && value.kind == ExprKind::Int)
                m_fixedRank[x->text] = value.intValue;
        }
    }

    static DTypeSet dtypesOf(const std::vector<Expr> &items)
    {
        DTypeSet s;
        for (const Expr &e : items) {
            if (e.kind != ExprKind::DType)
                return everyDType();
            if (auto d = parseDType(e.text))
                s.set(size_t(*d));
        }
        return s;
    }

    /// A capture read by an op with no integer kernel is floating.
    void narrowByUse(const Expr &e)
    {
        if (e.kind == ExprKind::OpCall) {
            bool allNeedFloating = !e.ops.empty();
            for (const OpName &op : e.ops)
                allNeedFloating = allNeedFloating && needsFloatingInput(baseName(op));
            if (allNeedFloating && !e.args.empty() && e.args[0].keyword.empty()
                && e.args[0].value.kind == ExprKind::Name && m_allowed.count(e.args[0].value.text))
                m_allowed[e.args[0].value.text] &= floatingDTypes();
        }
        for (const Expr &o : e.operands)
            narrowByUse(o);
        for (const Argument &a : e.args)
            narrowByUse(a.value);
    }

    // ---- evaluation ---------------------------------------------------------

    Facts matchFacts(size_t index)
    {
        if (auto it = m_matchFacts.find(index); it != m_matchFacts.end())
            return it->second;
        if (!m_evaluating.insert(index).second)
            return {}; // a cycle in a malformed match: know nothing
        Facts f = eval(m_decl.match[index].value, nullptr);
        m_evaluating.erase(index);
        return m_matchFacts[index] = f;
    }

    Facts eval(const Expr &e, const std::map<std::string, Facts> *replaced)
    {
        switch (e.kind) {
        case ExprKind::Name: {
            if (replaced)
                if (auto r = replaced->find(e.text); r != replaced->end())
                    return r->second;
            if (auto m = m_matchIndex.find(e.text); m != m_matchIndex.end())
                return matchFacts(m->second);
            if (auto a = m_allowed.find(e.text); a != m_allowed.end() && !m_lists.count(e.text)) {
                Facts f;
                f.dtypes = a->second;
                f.dtypeOf = e.text;
                if (auto r = m_fixedRank.find(e.text); r != m_fixedRank.end())
                    f.rank = Rank{"", r->second};
                else
                    f.rank = Rank{e.text, 0};
                return f;
            }
            return {};
        }
        case ExprKind::Int:
        case ExprKind::Bool: {
            Facts f;
            f.scalar = true;
            return f;
        }
        case ExprKind::Float: {
            Facts f;
            f.scalar = f.floatScalar = true;
            return f;
        }
        case ExprKind::OpCall: {
            // Alternatives: what holds for every one of them.
            std::optional<Facts> joined;
            for (const OpName &op : e.ops) {
                Facts f = call(op, e, replaced);
                if (!joined) {
                    joined = f;
                    continue;
                }
                joined->dtypes |= f.dtypes;
                if (joined->dtypeOf != f.dtypeOf)
                    joined->dtypeOf.clear();
                if (joined->rank != f.rank)
                    joined->rank.reset();
                joined->item.reset();
            }
            return joined.value_or(Facts{});
        }
        default: return {};
        }
    }

    /// The argument at `index` or named `keyword`, or null.
    static const Expr *arg(const Expr &call, size_t index, const char *keyword)
    {
        size_t positional = 0;
        for (const Argument &a : call.args) {
            if (a.keyword.empty() ? positional++ == index : a.keyword == keyword)
                return &a.value;
        }
        return nullptr;
    }

    Facts argFacts(const Expr &call, size_t index, const char *keyword, const std::map<std::string, Facts> *replaced)
    {
        const Expr *a = arg(call, index, keyword);
        return a ? eval(*a, replaced) : Facts{};
    }

    Facts call(const OpName &op, const Expr &e, const std::map<std::string, Facts> *replaced)
    {
        Facts f = callIgnoringDTypeArgument(op, e, replaced);
        // `dtype=` (or to()'s second argument) sets the result's dtype.
        const std::string name = baseName(op);
        const Expr *dtypeArg = arg(e, name == "to" || name == "_to_copy" ? 1 : 99, "dtype");
        if (dtypeArg && dtypeArg->kind == ExprKind::DType) {
            if (auto d = parseDType(dtypeArg->text)) {
                f.dtypes = only(*d);
                f.dtypeOf.clear();
            }
        }
        return f;
    }

    Facts callIgnoringDTypeArgument(const OpName &op, const Expr &e, const std::map<std::string, Facts> *replaced)
    {
        const std::string name = baseName(op);
        const std::string ns = nsOf(op);
        if (op.name == "getitem") {
            const Facts list = argFacts(e, 0, "self", replaced);
            return list.item ? *list.item : Facts{};
        }
        if (ns != "aten" && !(ns == "fusebox" && (name == "linear_relu" || name == "linear_gelu")))
            return {};
        const Facts self = argFacts(e, 0, "self", replaced);
        if (name == "to" || name == "_to_copy" || name == "type_as") {
            Facts f = name == "type_as" ? sameAs(argFacts(e, 1, "other", replaced)) : Facts{};
            f.rank = self.rank;
            return f;
        }
        if (keepsDTypeAndRank(name))
            return sameAs(self);
        if (floatingUnary(name)) {
            Facts f;
            f.dtypes = floatingResultOf(self.dtypes);
            f.rank = self.rank;
            return f;
        }
        if (broadcasting(name))
            return broadcast(name, e, replaced);
        if (reduction(name))
            return reduce(name, e, self);
        return shapeOp(name, e, self, replaced);
    }

    Facts broadcast(const std::string &name, const Expr &e, const std::map<std::string, Facts> *replaced)
    {
        std::vector<Facts> tensors;
        bool floatScalar = false, anyScalar = false;
        const size_t first = name == "where" ? 1 : 0;
        for (size_t i = 0; i < e.args.size() && i < 3; ++i) {
            if (!e.args[i].keyword.empty() && e.args[i].keyword != "other")
                continue;
            Facts f = eval(e.args[i].value, replaced);
            if (f.scalar) {
                anyScalar = true;
                floatScalar = floatScalar || f.floatScalar;
            }
            if (!f.scalar && (i >= first || name != "where"))
                tensors.push_back(std::move(f));
        }
        Facts out;
        if (tensors.empty())
            return out;
        // The rank is the widest operand's: known when all agree or all are fixed.
        bool same = true, fixed = true;
        int64_t widest = 0;
        for (const Facts &t : tensors) {
            same = same && t.rank && t.rank == tensors.front().rank;
            fixed = fixed && t.rank && t.rank->capture.empty();
            if (fixed)
                widest = std::max(widest, t.rank->offset);
        }
        if (same)
            out.rank = tensors.front().rank;
        else if (fixed)
            out.rank = Rank{"", widest};
        if (comparison(name)) {
            out.dtypes = only(DType::Bool);
            return out;
        }
        // Promotion gives one of the operands' dtypes, or the default float
        // when a 0-dim float meets an integer tensor.
        DTypeSet all;
        for (const Facts &t : tensors)
            all |= t.dtypes;
        if ((all & floatingDTypes()).any() && (all & ~floatingDTypes()).any())
            all.set(size_t(DType::Float32));
        if (floatScalar || name == "div")
            all = floatingResultOf(all);
        else if (anyScalar && all.test(size_t(DType::Bool)))
            all.set(size_t(DType::Int64));
        out.dtypes = all;
        if (tensors.size() == 1 && !floatScalar && name != "div" && !all.test(size_t(DType::Bool)))
            out.dtypeOf = tensors.front().dtypeOf;
        return out;
    }

    Facts reduce(const std::string &name, const Expr &e, const Facts &self)
    {
        Facts out;
        if (name == "argmax" || name == "argmin")
            out.dtypes = only(DType::Int64);
        else if (name == "mean" || name == "std" || name == "var" || name == "logsumexp")
            out.dtypes = floatingResultOf(self.dtypes);
        else if (name == "sum" || name == "prod") {
            out.dtypes = self.dtypes & floatingDTypes();
            if ((self.dtypes & ~floatingDTypes()).any())
                out.dtypes.set(size_t(DType::Int64));
        } else {
            out.dtypes = self.dtypes;
            out.dtypeOf = self.dtypeOf;
        }
        const Expr *dim = arg(e, 1, "dim");
        const Expr *keep = arg(e, 2, "keepdim");
        if (keep && keep->kind != ExprKind::Bool)
            return out; // keepdim unknown: the rank is too
        const bool keepdim = keep && keep->boolValue;
        if (!dim || dim->kind == ExprKind::None) {
            if (!keepdim)
                out.rank = Rank{"", 0};
            else
                out.rank = self.rank;
        } else if (keepdim) {
            out.rank = self.rank;
        } else if (dim->kind == ExprKind::Int) {
            out.rank = shifted(self.rank, -1);
        } else if (dim->kind == ExprKind::List) {
            out.rank = shifted(self.rank, -int64_t(dim->operands.size()));
        }
        return out;
    }

    Facts shapeOp(const std::string &name, const Expr &e, const Facts &self,
                  const std::map<std::string, Facts> *replaced)
    {
        Facts out;
        out.dtypes = self.dtypes;
        out.dtypeOf = self.dtypeOf;
        if (name == "unsqueeze") {
            out.rank = shifted(self.rank, 1);
        } else if (name == "select") {
            out.rank = shifted(self.rank, -1);
        } else if (name == "view" || name == "reshape" || name == "expand") {
            const Expr *shape = arg(e, 1, name == "expand" ? "size" : "shape");
            if (shape && shape->kind == ExprKind::List)
                out.rank = Rank{"", int64_t(shape->operands.size())};
        } else if (name == "flatten") {
            const Expr *start = arg(e, 1, "start_dim"), *end = arg(e, 2, "end_dim");
            const int64_t s = start && start->kind == ExprKind::Int ? start->intValue : start ? -99 : 0;
            const int64_t t = end && end->kind == ExprKind::Int ? end->intValue : end ? -99 : -1;
            if (s == 0 && t == -1)
                out.rank = Rank{"", 1};
            else if (s >= 0 && t >= s)
                out.rank = shifted(self.rank, -(t - s));
        } else if (name == "mm" || name == "addmm") {
            if (name == "addmm")
                out = sameAs(argFacts(e, 1, "mat1", replaced));
            out.rank = Rank{"", 2};
        } else if (name == "bmm" || name == "baddbmm") {
            out.rank = Rank{"", 3};
        } else if (name == "matmul") {
            const Facts other = argFacts(e, 1, "other", replaced);
            if (self.rank && other.rank && self.rank->capture.empty() && other.rank->capture.empty()
                && self.rank->offset >= 2 && other.rank->offset >= 2)
                out.rank = Rank{"", std::max(self.rank->offset, other.rank->offset)};
            if (!(other.dtypes == self.dtypes && other.dtypeOf == self.dtypeOf)) {
                out.dtypes |= other.dtypes;
                out.dtypeOf.clear();
            }
        } else if (name == "embedding") {
            out.rank = shifted(argFacts(e, 1, "indices", replaced).rank, 1);
        } else if (name == "cat" || name == "stack") {
            out = listItem(e, replaced);
            if (name == "stack")
                out.rank = shifted(out.rank, 1);
            out.item.reset();
        } else if (name == "split" || name == "chunk" || name == "split_with_sizes" || name == "unbind") {
            out = Facts{};
            out.item = std::make_shared<Facts>(sameAs(self));
            if (name == "unbind")
                out.item->rank = shifted(self.rank, -1);
        } else {
            return {};
        }
        return out;
    }

    /// What each item of cat's/stack's list is, when the items agree.
    Facts listItem(const Expr &e, const std::map<std::string, Facts> *replaced)
    {
        const Expr *list = arg(e, 0, "tensors");
        if (!list)
            return {};
        if (list->kind == ExprKind::Variadic)
            return eval(list->operands[0], replaced);
        if (list->kind != ExprKind::List || list->operands.empty())
            return {};
        Facts first = eval(list->operands[0], replaced);
        for (size_t i = 1; i < list->operands.size(); ++i) {
            const Facts f = eval(list->operands[i], replaced);
            first.dtypes |= f.dtypes;
            if (f.dtypeOf != first.dtypeOf)
                first.dtypeOf.clear();
            if (f.rank != first.rank)
                first.rank.reset();
        }
        if ((first.dtypes & floatingDTypes()).any() && (first.dtypes & ~floatingDTypes()).any())
            first.dtypes.set(size_t(DType::Float32));
        return first;
    }

    // ---- the verdict --------------------------------------------------------

    std::string compare(const Statement &st, const Facts &mine, const Statement &matched, const Facts &theirs) const
    {
        const std::string what = st.value.kind == ExprKind::OpCall ? st.value.ops.front().qualifiedName()
                                                                   : "'" + writePatternExpr(st.value) + "'";
        const std::string matchedOp = matched.value.ops.empty() ? matched.target
                                                                : matched.value.ops.front().qualifiedName();
        if ((mine.dtypes & theirs.dtypes).none() && mine.dtypes.any() && theirs.dtypes.any()) {
            return at(st.value.pos, "the replacement of '" + st.target
                                        + "' cannot have the dtype of the value it "
                                          "replaces: "
                                        + what + " gives " + describeDType(mine) + ", the matched " + matchedOp
                                        + " gives " + describeDType(theirs));
        }
        if (mine.rank && theirs.rank && ranksDiffer(*mine.rank, *theirs.rank)) {
            return at(st.value.pos, "the replacement of '" + st.target
                                        + "' cannot have the rank of the value it "
                                          "replaces: "
                                        + what + " gives rank " + describe(*mine.rank) + ", the matched " + matchedOp
                                        + " gives rank " + describe(*theirs.rank));
        }
        return {};
    }

    static std::string describeDType(const Facts &f)
    {
        std::string s = describe(f.dtypes);
        if (!f.dtypeOf.empty())
            s += " (the dtype of " + f.dtypeOf + ")";
        return s;
    }

    std::string at(const SourcePos &pos, const std::string &problem) const
    {
        return m_source + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + problem;
    }

    const PatternDecl &m_decl;
    std::string m_source;
    std::map<std::string, size_t> m_matchIndex;
    std::map<std::string, DTypeSet> m_allowed;
    std::map<std::string, int64_t> m_fixedRank;
    std::set<std::string> m_lists;
    std::map<size_t, Facts> m_matchFacts;
    std::set<size_t> m_evaluating;
};

} // namespace

std::string checkReplacementTypes(const PatternDecl &decl, const std::string &sourceName)
{
    return Interpreter(decl, sourceName).check();
}

} // namespace fusebox::custom
