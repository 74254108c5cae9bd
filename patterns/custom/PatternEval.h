#pragma once
// Evaluation of pattern-language expressions (constraints, computed literal
// arguments of replacements) over the values a match bound (internal).

#include "core/io/PatternAst.h"
#include "core/ir/Graph.h"

#include <optional>
#include <string>

namespace fusebox::custom {

/// Where names get their values.
class Scope {
public:
    virtual ~Scope() = default;
    /// The value bound to name (a node reference, a literal, a list), or nullopt.
    virtual std::optional<Arg> lookup(const std::string &name) const = 0;
};

/// Evaluates e: literals, names, lists, the built-in functions (users counts
/// distinct users), unary/binary operators and indexing (negative indices
/// count from the end). Integer arithmetic unless a float takes part; `/`
/// divides integers (floor toward zero, as C++). nullopt when a value is
/// unknown (a symbolic or unknown shape, an unbound name, a type mismatch,
/// division by zero, an index out of range).
std::optional<Arg> evaluate(const patternlang::Expr &e, const Graph &graph, const Scope &scope);

/// The values a constraint saw, for an explanation: each function call,
/// index and bound name in e, written with node names and its value:
/// "users(%linear_3) is 2", "shape(%x)[1] is 12", "i is [0, 2]".
std::string describeOperands(const patternlang::Expr &e, const Graph &graph, const Scope &scope);

/// True when a and b are equal values (ints and floats compare numerically).
bool valuesEqual(const Arg &a, const Arg &b);

} // namespace fusebox::custom
