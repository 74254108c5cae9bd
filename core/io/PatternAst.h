#pragma once
// The syntax tree of a pattern file (docs/pattern-language.md). Plain values,
// no graph references: parsePatternFile() builds it, writePatternFile() prints
// it, and the pattern compiler (patterns/) turns it into Pattern objects.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::patternlang {

/// A 1-based line:column in the pattern file's text.
/// Positions say where a node was written, not what it means, so two trees
/// that differ only in layout compare equal: operator== ignores them. This is
/// what makes parse(write(tree)) == tree hold although the writer re-lays text.
struct SourcePos {
    int line = 0;
    int column = 0;
    friend bool operator==(const SourcePos &, const SourcePos &) { return true; }
};

/// An op as written: "aten::split" with overload "Tensor", or the IR's "getitem".
struct OpName {
    /// Qualified name without overload: "aten::linear", "fusebox::linear_relu", "getitem".
    std::string name;
    /// Overload after the '.': "Tensor", "default"; empty when none was written.
    std::string overload;
    SourcePos pos;
    /// "aten::split.Tensor" or "aten::relu".
    std::string qualifiedName() const { return overload.empty() ? name : name + "." + overload; }
    friend bool operator==(const OpName &, const OpName &) = default;
};

struct Argument;

/// Kinds of expression nodes; which Expr fields a kind uses is listed here.
enum class ExprKind {
    Name,         ///< text: identifier. A capture in the match, a reference elsewhere.
    Wildcard,     ///< `_`: matches anything, binds nothing (match only).
    Int,          ///< intValue (negative literals are folded: `-1` is Int -1).
    Float,        ///< floatValue.
    Bool,         ///< boolValue (`True` / `False`).
    String,       ///< text: the decoded string.
    None,         ///< `None`.
    DType,        ///< text: the short dtype name ("f32", "bf16"), see core/ir/DType.h.
    List,         ///< operands: the items of `[a, b, c]`.
    Variadic,     ///< operands[0]: the template of `[template...]`.
    OpCall,       ///< ops: one or more alternatives; args: the arguments.
    FunctionCall, ///< text: a built-in function (users, shape, first...); args: its arguments.
    Unary,        ///< text: "-" or "not"; operands[0].
    Binary,       ///< text: the operator ("+", "==", "and", "in"...); operands[0], operands[1].
    Index,        ///< operands[0] indexed by operands[1]: `shape(x)[1]`.
};

/// One expression node. A single struct rather than a variant of node types
/// keeps the tree easy to walk, compare and print; the kind says which fields
/// are meaningful, the others stay empty.
struct Expr {
    ExprKind kind = ExprKind::None;
    SourcePos pos;
    std::string text;
    int64_t intValue = 0;
    double floatValue = 0;
    bool boolValue = false;
    std::vector<Expr> operands;
    /// OpCall: the alternatives `(aten::relu | aten::gelu)`, in written order.
    std::vector<OpName> ops;
    /// OpCall / FunctionCall: positional arguments first, then keywords (the
    /// parser rejects a positional argument after a keyword).
    std::vector<Argument> args;

    bool isName() const { return kind == ExprKind::Name; }
    friend bool operator==(const Expr &, const Expr &) = default;
};

/// An argument of a call: positional when keyword is empty, else `keyword = value`.
struct Argument {
    std::string keyword;
    Expr value;
    SourcePos pos;
    friend bool operator==(const Argument &, const Argument &) = default;
};

/// `target = value`. In the match and the replacement the value is an OpCall;
/// the replacement may also alias a value (`r = x`, value is a Name).
struct Statement {
    std::string target;
    Expr value;
    SourcePos pos;
    friend bool operator==(const Statement &, const Statement &) = default;
};

/// `key = literal` inside `options { ... }`: Inductor's knob names, kept opaque here.
struct OptionEntry {
    std::string key;
    Expr value;
    SourcePos pos;
    friend bool operator==(const OptionEntry &, const OptionEntry &) = default;
};

/// Which of Inductor's pass groups a pattern belongs to.
enum class Stage { Unspecified, PreGrad, PostGrad };

/// One `pattern name { ... }` block, checked: every name it uses is bound.
struct PatternDecl {
    std::string name;
    /// Position of the name (errors about the whole pattern point here).
    SourcePos pos;
    std::optional<int64_t> benefit;
    std::optional<std::string> description;
    Stage stage = Stage::Unspecified;
    std::vector<OptionEntry> options;
    /// The match graph, as written; statements may refer to later ones.
    std::vector<Statement> match;
    /// Constraints, each a boolean expression; all must hold.
    std::vector<Expr> where;
    /// The replacement program, in execution order.
    std::vector<Statement> replace;

    // Derived by the parser from the blocks above (so a compiler need not
    // re-derive scoping rules):
    /// Names the match binds that no match statement defines, in first-use
    /// order: the pattern's inputs (values or literals; the schema decides).
    std::vector<std::string> captures;
    /// Captures bound inside a variadic template: each binds a list, one item per repetition.
    std::vector<std::string> listCaptures;
    /// Match statement targets the replacement assigns: the values it replaces.
    /// Any other match value used outside the match makes a match fail.
    std::vector<std::string> outputs;

    friend bool operator==(const PatternDecl &, const PatternDecl &) = default;
};

/// Names of the built-in constraint/replacement functions, each taking one argument.
const std::vector<std::string> &builtinFunctions();

/// "pre_grad", "post_grad", or "" for Unspecified.
std::string_view stageName(Stage stage);

} // namespace fusebox::patternlang
