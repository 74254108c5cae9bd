#pragma once
// Internal: what the TorchScript and Inductor pattern exports share (reading
// a pattern's syntax tree, literal formatting, schema defaults).

#include "core/io/PatternAst.h"
#include "core/ir/DType.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fusebox::patternexport {

using patternlang::Argument;
using patternlang::Expr;
using patternlang::ExprKind;
using patternlang::PatternDecl;
using patternlang::Statement;

/// Thrown while exporting one pattern: why the target cannot express it (the
/// pattern is then skipped with this reason).
struct Unexpressible {
    std::string why;
};

/// Calls f on e and every expression below it.
void walk(const Expr &e, const std::function<void(const Expr &)> &f);

/// True when the match uses a variadic list `[template...]`.
bool hasVariadic(const PatternDecl &d);

/// Number of times the match reads `name`.
int readsInMatch(const PatternDecl &d, const std::string &name);

/// True when a match statement assigns `name`.
bool isMatchTarget(const PatternDecl &d, const std::string &name);

/// True when `name` is a pattern output (a match value the replacement assigns).
bool isOutput(const PatternDecl &d, const std::string &name);

/// Top-level `and` operands of a constraint.
void conjuncts(const Expr &e, std::vector<const Expr *> &out);

/// `users(v) == N` with v a Name: returns v and N.
bool usersEquals(const Expr &e, std::string &name, int64_t &count);

/// One decl per combination of op alternatives in the match, with a name
/// suffix naming the chosen ops ("" when there were none).
std::vector<std::pair<std::string, PatternDecl>> expandAlternatives(const PatternDecl &decl);

/// Match statements the output's value does not depend on (SubgraphRewriter
/// would ignore them, weakening the pattern).
std::vector<std::string> unreachedFromOutput(const PatternDecl &d, const std::string &out);

/// The match statements in dependency order (a statement after those it reads).
std::vector<const Statement *> topoMatch(const PatternDecl &d);

/// A float literal both targets read back exactly ("1e-05", "2.0").
std::string formatDouble(double v);

/// c10::ScalarType's number for a dtype (TorchScript constants), or -1.
int scalarTypeCode(DType t);

/// A schema default as an expression; nullopt when it is not a literal.
std::optional<Expr> defaultExpr(const std::string &text);

/// A schema type without alias annotations: "Tensor(a!)" -> "Tensor".
std::string stripAlias(const std::string &type);

} // namespace fusebox::patternexport
