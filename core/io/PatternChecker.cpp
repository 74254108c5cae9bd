// Checks of a parsed pattern file that need more than syntax: which names
// the match binds, where they may be used, and ops against the schemas.

#include "PatternReaderImpl.h"
#include "PatternTokenizer.h"

#include "core/ir/ArgNormalizer.h"
#include "core/ir/Node.h"
#include "core/ir/OpSchema.h"
#include "core/ir/Spelling.h"

#include <algorithm>
#include <map>
#include <set>

namespace fusebox::patternlang {
namespace {

struct CheckError {
    std::string message;
};

// Only the nearest names are suggested: "aten::rleu" gets relu, not gelu too.
std::string suggestion(const std::string &word, const std::vector<std::string> &candidates)
{
    std::vector<std::string> nearest = closestMatches(word, candidates);
    if (!nearest.empty()) {
        const size_t best = editDistance(word, nearest.front());
        std::erase_if(nearest, [&](const std::string &c) { return editDistance(word, c) > best; });
    }
    return didYouMean(word, nearest);
}

std::string at(SourcePos pos)
{
    return std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

bool contains(const std::vector<std::string> &names, const std::string &name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

// Where an expression sits decides what it may contain.
enum class Place { Match, Where, Replace };

class PatternChecker {
public:
    PatternChecker(const PatternFileReadOptions &options)
        : m_options(options)
    {
        if (!options.schemas)
            return;
        m_opNames = options.schemas->opNames();
        for (const std::string &name : m_opNames)
            m_namespaces.insert(name.substr(0, name.find("::")));
    }

    void checkFile(PatternFile &file)
    {
        std::map<std::string, SourcePos> seen;
        for (PatternDecl &decl : file.patterns) {
            auto [it, fresh] = seen.emplace(decl.name, decl.pos);
            if (!fresh)
                fail(decl.pos, "duplicate pattern '" + decl.name + "' (first defined at " + at(it->second) + ")");
            checkPattern(decl);
        }
    }

private:
    [[noreturn]] void fail(SourcePos pos, const std::string &problem) const
    {
        throw CheckError{positionPrefix(m_options.sourceName, pos.line, pos.column) + problem};
    }

    void checkPattern(PatternDecl &decl)
    {
        m_targets.clear();
        m_nameUses.clear();
        if (decl.match.empty())
            fail(decl.pos, "pattern '" + decl.name + "' has an empty match");
        std::map<std::string, SourcePos> defined;
        for (const Statement &s : decl.match) {
            auto [it, fresh] = defined.emplace(s.target, s.pos);
            if (!fresh)
                fail(s.pos, "'" + s.target + "' is defined twice in the match (first at " + at(it->second) + ")");
            if (s.value.kind != ExprKind::OpCall)
                fail(s.value.pos,
                     "a match statement's value must be an op call, found '" + writePatternExpr(s.value) + "'");
            m_targets.push_back(s.target);
        }
        for (const Statement &s : decl.match)
            checkExpr(s.value, Place::Match, false);
        deriveCaptures(decl);

        for (const Expr &constraint : decl.where)
            checkExpr(constraint, Place::Where, false);

        checkOptions(decl);
        checkReplacement(decl);
    }

    // Captures are the match's names that no statement defines; those seen
    // only inside variadic templates bind lists.
    void deriveCaptures(PatternDecl &decl)
    {
        for (const NameUse &use : m_nameUses) {
            if (contains(m_targets, use.name) || contains(decl.captures, use.name))
                continue;
            decl.captures.push_back(use.name);
            const bool onlyInTemplates = std::all_of(m_nameUses.begin(), m_nameUses.end(), [&](const NameUse &u) {
                return u.name != use.name || u.inTemplate;
            });
            if (onlyInTemplates)
                decl.listCaptures.push_back(use.name);
        }
        m_bound = m_targets;
        m_bound.insert(m_bound.end(), decl.captures.begin(), decl.captures.end());
    }

    void checkOptions(const PatternDecl &decl)
    {
        std::map<std::string, SourcePos> keys;
        for (const OptionEntry &option : decl.options) {
            auto [it, fresh] = keys.emplace(option.key, option.pos);
            if (!fresh)
                fail(option.pos, "option '" + option.key + "' is set twice (first at " + at(it->second) + ")");
            if (!isLiteral(option.value))
                fail(option.value.pos,
                     "option '" + option.key + "' must be a literal, found '" + writePatternExpr(option.value) + "'");
        }
    }

    static bool isLiteral(const Expr &e)
    {
        switch (e.kind) {
        case ExprKind::Int:
        case ExprKind::Float:
        case ExprKind::Bool:
        case ExprKind::String:
        case ExprKind::None:
        case ExprKind::DType: return true;
        case ExprKind::List: return std::all_of(e.operands.begin(), e.operands.end(), isLiteral);
        default: return false;
        }
    }

    void checkReplacement(PatternDecl &decl)
    {
        if (decl.replace.empty())
            fail(decl.pos, "pattern '" + decl.name + "' has no replacement");
        m_replaceDefined.clear();
        m_replaceTargets.clear();
        for (const Statement &s : decl.replace)
            m_replaceTargets.push_back(s.target);
        std::map<std::string, SourcePos> assigned;
        for (const Statement &s : decl.replace) {
            if (s.value.kind != ExprKind::OpCall && s.value.kind != ExprKind::Name)
                fail(s.value.pos, "a replacement statement's value must be an op call or a name, found '"
                                      + writePatternExpr(s.value) + "'");
            checkExpr(s.value, Place::Replace, false);
            auto [it, fresh] = assigned.emplace(s.target, s.pos);
            if (!fresh)
                fail(s.pos, "'" + s.target + "' is assigned twice in the replacement (first at " + at(it->second) + ")");
            if (contains(decl.captures, s.target))
                fail(s.pos, "'" + s.target
                                + "' is an input of the match, not a value it computes: only match "
                                  "statement targets can be replaced");
            if (contains(m_targets, s.target))
                decl.outputs.push_back(s.target);
            m_replaceDefined.push_back(s.target);
        }
        if (decl.outputs.empty())
            fail(decl.pos, "pattern '" + decl.name
                               + "': the replacement assigns no match value, so nothing "
                                 "would be replaced (assign one, e.g. '"
                               + decl.match.back().target + " = ...')");
    }

    void checkName(const Expr &e, Place place, bool inTemplate)
    {
        if (place == Place::Match) {
            m_nameUses.push_back({e.text, inTemplate});
            return;
        }
        if (place == Place::Where) {
            if (!contains(m_bound, e.text))
                fail(e.pos,
                     "unbound variable '" + e.text + "': the match does not bind it" + suggestion(e.text, m_bound));
            return;
        }
        // In the replacement a name is a match binding or an earlier replacement value.
        if (contains(m_replaceDefined, e.text) || contains(m_bound, e.text))
            return;
        if (contains(m_replaceTargets, e.text))
            fail(e.pos, "'" + e.text + "' is used before the replacement defines it");
        std::vector<std::string> known = m_bound;
        known.insert(known.end(), m_replaceDefined.begin(), m_replaceDefined.end());
        fail(e.pos, "replacement uses '" + e.text + "', which the match does not bind" + suggestion(e.text, known));
    }

    void checkExpr(const Expr &e, Place place, bool inTemplate)
    {
        switch (e.kind) {
        case ExprKind::Name: checkName(e, place, inTemplate); return;
        case ExprKind::Wildcard:
            if (place != Place::Match)
                fail(e.pos, "'_' is a wildcard: it can only appear in the match");
            return;
        case ExprKind::Variadic:
            if (place != Place::Match)
                fail(e.pos, "variadic lists '[template...]' can only appear in the match");
            if (inTemplate)
                fail(e.pos, "variadic lists do not nest");
            checkExpr(e.operands[0], place, true);
            return;
        case ExprKind::OpCall:
            if (place == Place::Where)
                fail(e.pos, "op calls are not allowed in constraints: bind the value in the match");
            checkOpCall(e);
            for (const Argument &arg : e.args)
                checkExpr(arg.value, place, inTemplate);
            return;
        case ExprKind::FunctionCall: checkFunctionCall(e, place); break;
        case ExprKind::Unary:
        case ExprKind::Binary:
        case ExprKind::Index:
            if (place == Place::Match)
                fail(e.pos, "'" + writePatternExpr(e)
                                + "' is not allowed in the match: bind a capture and constrain it in 'where'");
            break;
        default: break;
        }
        for (const Expr &operand : e.operands)
            checkExpr(operand, place, inTemplate);
        for (const Argument &arg : e.args)
            checkExpr(arg.value, place, inTemplate);
    }

    void checkFunctionCall(const Expr &e, Place place)
    {
        if (place == Place::Match)
            fail(e.pos, "expected an op (namespace::name or getitem), found function '" + e.text + "'");
        if (!contains(builtinFunctions(), e.text))
            fail(e.pos, "unknown function '" + e.text + "'" + suggestion(e.text, builtinFunctions()));
        if (e.args.size() != 1 || !e.args[0].keyword.empty())
            fail(e.pos, "'" + e.text + "' takes one positional argument, found " + std::to_string(e.args.size()));
    }

    void checkOpCall(const Expr &call)
    {
        for (const OpName &op : call.ops) {
            if (op.name == ops::kGetItem) {
                if (call.args.size() != 2 || !call.args[0].keyword.empty() || !call.args[1].keyword.empty())
                    fail(call.pos, "getitem takes 2 positional arguments (value, index), found "
                                       + std::to_string(call.args.size()));
                continue;
            }
            if (m_options.schemas)
                checkAgainstSchema(op, call);
        }
    }

    void checkAgainstSchema(const OpName &op, const Expr &call) const
    {
        // Custom namespaces (the fused ops a replacement introduces) are not
        // in libtorch's registry; only namespaces it knows can be checked.
        if (!m_namespaces.count(op.name.substr(0, op.name.find("::"))))
            return;
        std::vector<const OpSchema *> candidates = m_options.schemas->overloads(op.name);
        if (candidates.empty())
            fail(op.pos, "unknown op '" + op.name + "'" + suggestion(op.name, m_opNames));
        if (!op.overload.empty()) {
            const OpSchema *schema = m_options.schemas->find(op.name, op.overload);
            if (!schema) {
                std::vector<std::string> overloads;
                for (const OpSchema *c : candidates)
                    overloads.push_back(c->qualifiedName());
                fail(op.pos,
                     "unknown overload '" + op.qualifiedName() + "'" + suggestion(op.qualifiedName(), overloads));
            }
            candidates = {schema};
        }
        // The values are unknown here: placeholders test the call's shape only.
        CallArgs shape;
        for (const Argument &arg : call.args) {
            if (arg.keyword.empty())
                shape.args.push_back(Arg(NoneArg{}));
            else
                shape.kwargs.push_back({arg.keyword, Arg(NoneArg{})});
        }
        std::optional<Error> firstError;
        for (const OpSchema *schema : candidates) {
            auto normalized = normalizeCall(*schema, shape);
            if (normalized)
                return;
            if (!firstError)
                firstError = normalized.error();
        }
        fail(call.pos, firstError->message);
    }

    struct NameUse {
        std::string name;
        bool inTemplate;
    };

    const PatternFileReadOptions &m_options;
    std::vector<std::string> m_opNames;
    std::set<std::string> m_namespaces;
    // Per pattern:
    std::vector<std::string> m_targets;        // match statement targets
    std::vector<NameUse> m_nameUses;           // every name in match arguments, in order
    std::vector<std::string> m_bound;          // targets + captures
    std::vector<std::string> m_replaceTargets; // all replacement targets
    std::vector<std::string> m_replaceDefined; // replacement targets defined so far
};

} // namespace

Status checkPatternFile(PatternFile &file, const PatternFileReadOptions &options)
{
    try {
        PatternChecker(options).checkFile(file);
    } catch (const CheckError &error) {
        return Error{error.message};
    }
    return Status::ok();
}

} // namespace fusebox::patternlang
