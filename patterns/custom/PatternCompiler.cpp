#include "PatternCompiler.h"
#include "FilePattern.h"
#include "ReplacementTypeCheck.h"

#include "core/ir/OpSchema.h"

#include <algorithm>
#include <functional>
#include <set>

namespace fusebox {
namespace {

using namespace patternlang;
using custom::CallSpec;
using custom::CompiledPattern;
using custom::SearchStep;

/// Calls fn(nameExpr, inTemplate) for every name in e, nested calls included.
void forEachName(const Expr &e, bool inTemplate, const std::function<void(const Expr &, bool)> &fn)
{
    if (e.kind == ExprKind::Name)
        fn(e, inTemplate);
    const bool nested = inTemplate || e.kind == ExprKind::Variadic;
    for (const Expr &o : e.operands)
        forEachName(o, nested, fn);
    for (const Argument &a : e.args)
        forEachName(a.value, nested, fn);
}

/// Names a call's node reads itself: its arguments, and items of plain lists.
void directNames(const Expr &e, std::vector<const Expr *> &out)
{
    if (e.kind == ExprKind::Name)
        out.push_back(&e);
    else if (e.kind == ExprKind::List)
        for (const Expr &o : e.operands)
            directNames(o, out);
}

const OpSchema *schemaOf(const OpSchemaRegistry *schemas, const OpName &op)
{
    if (!schemas || op.name == "getitem")
        return nullptr;
    if (const OpSchema *s = schemas->find(op.name, op.overload == "default" ? "" : op.overload))
        return s;
    auto all = schemas->overloads(op.name);
    return op.overload.empty() && !all.empty() ? all.front() : nullptr;
}

bool isLiteral(ExprKind k)
{
    return k == ExprKind::Int || k == ExprKind::Float || k == ExprKind::Bool || k == ExprKind::String
           || k == ExprKind::None || k == ExprKind::DType;
}

class Compiler {
public:
    Compiler(const PatternDecl &decl, std::string source, const OpSchemaRegistry *schemas)
        : m_p(std::make_shared<CompiledPattern>())
    {
        m_p->decl = decl;
        m_p->sourceName = std::move(source);
        m_p->schemas = schemas;
    }

    Expected<std::unique_ptr<Pattern>> compile()
    {
        CompiledPattern &p = *m_p;
        const PatternDecl &d = p.decl;
        for (size_t i = 0; i < d.match.size(); ++i)
            p.statementIndex[d.match[i].target] = int(i);
        for (size_t i = 0; i < d.captures.size(); ++i)
            p.captureIndex[d.captures[i]] = int(i);
        for (const std::string &c : d.captures)
            p.isListCapture.push_back(std::count(d.listCaptures.begin(), d.listCaptures.end(), c) > 0);
        for (const Statement &s : d.match)
            p.isOutput.push_back(std::count(d.outputs.begin(), d.outputs.end(), s.target) > 0);
        for (size_t i = 0; i < d.match.size(); ++i)
            p.statementSpec.push_back(addSpec(d.match[i].value, int(i), false, d.match[i].target + " = "));
        if (auto error = plan(); !error.empty())
            return Error{error};
        for (const Expr &w : d.where)
            p.whereTexts.push_back(writePatternExpr(w));
        if (auto error = checkReplacement(); !error.empty())
            return Error{error};
        if (auto error = custom::checkReplacementTypes(d, p.sourceName); !error.empty())
            return Error{error};
        p.needsCycleCheck = !p.steps.empty() || d.outputs.size() > 1;

        PatternOptions options;
        for (const OptionEntry &o : d.options) {
            if (o.value.kind == ExprKind::Int)
                options.set(o.key, o.value.intValue);
            else if (o.value.kind == ExprKind::Float)
                options.set(o.key, o.value.floatValue);
            else if (o.value.kind == ExprKind::Bool)
                options.set(o.key, o.value.boolValue);
            else
                return Error{at(o.pos, "option '" + o.key + "' must be a bool, int or float literal")};
        }
        std::vector<std::string> roots;
        for (const OpName &op : d.match[size_t(p.anchorStatement)].value.ops)
            if (std::find(roots.begin(), roots.end(), op.name) == roots.end())
                roots.push_back(op.name);
        const PassStage stage = d.stage == Stage::PreGrad ? PassStage::PreGrad : PassStage::PostGrad;
        std::string description = d.description ? *d.description : "pattern " + d.name + " of " + p.sourceName;
        auto pattern = std::make_unique<custom::FilePattern>(m_p, stage, int(d.benefit.value_or(1)), std::move(roots),
                                                             std::move(description));
        pattern->setOptionsFrom(options);
        return std::unique_ptr<Pattern>(std::move(pattern));
    }

private:
    std::string at(const SourcePos &pos, const std::string &problem) const
    {
        return m_p->sourceName + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + problem;
    }

    int addSpec(const Expr &call, int statement, bool inTemplate, const std::string &prefix)
    {
        CallSpec spec;
        spec.call = &call;
        spec.statement = statement;
        spec.inTemplate = inTemplate;
        const std::string text = prefix + writePatternExpr(call);
        std::string ops;
        for (const OpName &op : call.ops)
            ops += (ops.empty() ? "" : " | ") + op.qualifiedName();
        spec.opText = text + ": op is " + ops;
        spec.distinctText = text + ": a node not matched already";
        spec.defaultsText = text + ": arguments left out hold their defaults";
        for (size_t j = 0; j < call.args.size(); ++j)
            spec.argTexts.push_back(text + ": argument "
                                    + (call.args[j].keyword.empty() ? std::to_string(j) : call.args[j].keyword) + " `"
                                    + writePatternExpr(call.args[j].value) + "`");
        const int index = int(m_p->specs.size());
        m_p->specs.push_back(std::move(spec));
        for (const Argument &a : call.args)
            nested(a.value, inTemplate);
        return index;
    }

    void nested(const Expr &e, bool inTemplate)
    {
        if (e.kind == ExprKind::OpCall) {
            m_p->specOf[&e] = addSpec(e, -1, inTemplate, "");
            return;
        }
        for (const Expr &o : e.operands)
            nested(o, inTemplate || e.kind == ExprKind::Variadic);
    }

    /// Picks the anchor and the order the other statements are found in.
    std::string plan()
    {
        CompiledPattern &p = *m_p;
        const auto &match = p.decl.match;
        std::vector<bool> read(match.size(), false);
        for (size_t i = 0; i < match.size(); ++i)
            forEachName(match[i].value, false, [&](const Expr &n, bool) {
                auto s = p.statementIndex.find(n.text);
                if (s != p.statementIndex.end() && size_t(s->second) != i)
                    read[size_t(s->second)] = true;
            });
        for (size_t i = match.size(); i-- > 0 && p.anchorStatement < 0;)
            if (!read[i])
                p.anchorStatement = int(i);
        if (p.anchorStatement < 0)
            return at(p.decl.pos, "pattern '" + p.decl.name
                                      + "': every match statement is read by another "
                                        "(a cycle), so none can be the anchor");
        m_statementBound.assign(match.size(), false);
        m_captureBound.assign(p.decl.captures.size(), false);
        close(p.anchorStatement);
        for (bool progress = true; progress;) {
            progress = false;
            for (size_t i = 0; i < match.size() && !progress; ++i) {
                if (m_statementBound[i])
                    continue;
                std::vector<const Expr *> names;
                for (const Argument &a : match[i].value.args)
                    directNames(a.value, names);
                for (const Expr *n : names) {
                    if (!isBound(n->text))
                        continue;
                    p.steps.push_back({p.statementSpec[i], n->text,
                                       match[i].target + " = " + writePatternExpr(match[i].value)
                                           + ": found among the users of " + n->text});
                    close(int(i));
                    progress = true;
                    break;
                }
            }
        }
        for (size_t i = 0; i < match.size(); ++i)
            if (!m_statementBound[i])
                return at(match[i].pos, "match statement '" + match[i].target + "' is not connected to the anchor '"
                                            + match[size_t(p.anchorStatement)].target
                                            + "': it must read a value or capture of the rest of the match as a "
                                              "direct argument");
        return {};
    }

    bool isBound(const std::string &name) const
    {
        if (auto s = m_p->statementIndex.find(name); s != m_p->statementIndex.end())
            return m_statementBound[size_t(s->second)];
        auto c = m_p->captureIndex.find(name);
        return c != m_p->captureIndex.end() && m_captureBound[size_t(c->second)]
               && !m_p->isListCapture[size_t(c->second)];
    }

    void close(int statement)
    {
        if (m_statementBound[size_t(statement)])
            return;
        m_statementBound[size_t(statement)] = true;
        forEachName(m_p->decl.match[size_t(statement)].value, false, [&](const Expr &n, bool) {
            if (auto s = m_p->statementIndex.find(n.text); s != m_p->statementIndex.end())
                close(s->second);
            else if (auto c = m_p->captureIndex.find(n.text); c != m_p->captureIndex.end())
                m_captureBound[size_t(c->second)] = true;
        });
    }

    std::string checkReplacement()
    {
        CompiledPattern &p = *m_p;
        std::set<std::string> assigned;
        std::string error;
        std::function<void(const Expr &, bool)> visit = [&](const Expr &e, bool computed) {
            if (!error.empty())
                return;
            if (e.kind == ExprKind::Name) {
                auto s = p.statementIndex.find(e.text);
                if (s != p.statementIndex.end() && p.isOutput[size_t(s->second)] && !assigned.count(e.text))
                    error = at(e.pos, "the replacement reads '" + e.text + "', the value it replaces");
                else if (computed && assigned.count(e.text))
                    error = at(e.pos, "a computed argument reads '" + e.text
                                          + "', a replacement value (its shape is not known before the rewrite)");
                return;
            }
            if (e.kind == ExprKind::OpCall) {
                if (e.ops.size() != 1)
                    error = at(e.pos, "a replacement call must name one op, not alternatives");
                for (const Argument &a : e.args)
                    argument(a.value, visit);
                return;
            }
            for (const Expr &o : e.operands)
                visit(o, computed);
            for (const Argument &a : e.args)
                visit(a.value, computed);
        };
        for (const Statement &st : p.decl.replace) {
            if (st.value.kind == ExprKind::OpCall) {
                visit(st.value, false);
                if (error.empty())
                    error = checkResultKind(st);
            } else {
                visit(st.value, false);
                if (st.value.kind == ExprKind::Name && p.captureIndex.count(st.value.text)
                    && std::count(p.decl.outputs.begin(), p.decl.outputs.end(), st.target))
                    p.nodeCaptures.push_back(st.value.text);
            }
            if (!error.empty())
                return error;
            assigned.insert(st.target);
        }
        return {};
    }

    /// An argument of a replacement call: names, calls, lists and literals are
    /// taken as they are; anything else is a computed literal.
    void argument(const Expr &e, const std::function<void(const Expr &, bool)> &visit)
    {
        if (e.kind == ExprKind::List) {
            for (const Expr &o : e.operands)
                argument(o, visit);
        } else if (e.kind == ExprKind::Name || e.kind == ExprKind::OpCall || isLiteral(e.kind)) {
            visit(e, false);
        } else {
            m_p->computed.push_back(&e);
            m_p->computedTexts.push_back("replacement argument `" + writePatternExpr(e) + "` can be computed");
            visit(e, true);
        }
    }

    /// With schemas: a replacement whose result is a list cannot stand for a
    /// tensor (and the other way round).
    std::string checkResultKind(const Statement &st) const
    {
        auto s = m_p->statementIndex.find(st.target);
        if (s == m_p->statementIndex.end() || !m_p->isOutput[size_t(s->second)])
            return {};
        const Statement &matched = m_p->decl.match[size_t(s->second)];
        const OpSchema *mine = schemaOf(m_p->schemas, st.value.ops.front());
        const OpSchema *theirs = schemaOf(m_p->schemas, matched.value.ops.front());
        if (!mine || !theirs || mine->returns.size() != 1 || theirs->returns.size() != 1)
            return {};
        const std::string &a = mine->returns[0].type, &b = theirs->returns[0].type;
        const bool aList = a.find("[]") != std::string::npos, bList = b.find("[]") != std::string::npos;
        if (aList == bList)
            return {};
        return at(st.value.pos, "the replacement of '" + st.target + "' returns " + a + " ("
                                    + st.value.ops.front().qualifiedName() + "), but the matched "
                                    + matched.value.ops.front().qualifiedName() + " returns " + b);
    }

    std::shared_ptr<CompiledPattern> m_p;
    std::vector<bool> m_statementBound, m_captureBound;
};

} // namespace

Expected<std::vector<std::unique_ptr<Pattern>>> compilePatterns(const PatternFile &file, const OpSchemaRegistry *schemas)
{
    std::vector<std::unique_ptr<Pattern>> out;
    const std::string source = file.sourceName.empty() ? "<patterns>" : file.sourceName;
    for (const PatternDecl &decl : file.patterns) {
        auto pattern = Compiler(decl, source, schemas).compile();
        if (!pattern)
            return pattern.error();
        out.push_back(std::move(pattern.value()));
    }
    return out;
}

Status addPatternFile(PatternSet &set, const std::string &path, const OpSchemaRegistry *schemas)
{
    PatternFileReadOptions options;
    options.schemas = schemas;
    auto file = readPatternFile(path, options);
    if (!file)
        return file.error();
    auto patterns = compilePatterns(*file, schemas);
    if (!patterns)
        return patterns.error();
    for (const auto &p : *patterns)
        if (set.find(p->name()))
            return Error{path + ": pattern '" + p->name() + "' clashes with a pattern already in the set"};
    for (auto &p : *patterns)
        set.add(std::move(p));
    return Status::ok();
}

} // namespace fusebox
