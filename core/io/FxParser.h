#pragma once
// Recursive-descent parser from FX dump tokens to a small AST. Both dump forms
// (print_readable code and str(graph) lines) parse into the same FxFunction,
// so one reader turns either into IR. Internal to core/io.

#include "FxTokenizer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::fx {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// An expression of the Python subset FX prints.
struct Expr {
    enum class Kind {
        Name,      // text = identifier (also None/True/False/inf/nan)
        Percent,   // %name of str(graph); text = name
        Attribute, // object.text
        Call,      // object(items..., keywords...)
        Subscript, // object[items[0]]
        Binary,    // items[0] text items[1]; text = "+", "-", "*", "/", "@", "//", "%", "**"
        Unary,     // text items[0]; text = "-", "+", "~"
        Int,       // text = digits (a leading '-' when folded from a unary minus)
        Float,     // text as written
        String,    // text = decoded value
        List,
        Tuple,
        Dict,  // keywords = entries (keys as text)
        Slice, // a:b:c inside a subscript; items = 3 entries, null when omitted
    };
    Kind kind = Kind::Name;
    std::string text;
    ExprPtr object;
    std::vector<ExprPtr> items;
    std::vector<std::pair<std::string, ExprPtr>> keywords;
    int line = 0;
    int column = 0;
};

/// A type annotation as written: the string's value for quoted ones, the
/// source text for unquoted 2.0-style ones; the position of its first character.
struct Annotation {
    std::string text;
    int line = 0;
    int column = 0;
};

/// One simple statement of forward().
struct Stmt {
    enum class Kind { Assign, AnnotationOnly, Expression, Return, Pass };
    Kind kind = Kind::Expression;
    /// Assign: one entry per '=' (a Name, or a Tuple of Names); AnnotationOnly: the Name.
    std::vector<ExprPtr> targets;
    std::optional<Annotation> annotation;
    /// The assigned, evaluated or returned value (null for a bare return).
    ExprPtr value;
    int line = 0;
    int column = 0;
    int endLine = 0;
    /// `a += b` (read as `a = a + b`): the one assignment that may rebind a name.
    bool augmented = false;
};

/// A parameter of forward() (or a placeholder of str(graph)).
struct Param {
    std::string name;
    std::optional<Annotation> annotation;
    int line = 0;
    int column = 0;
    /// The `= value` default, or null.
    ExprPtr defaultValue;
    /// 1 for `*args`, 2 for `**kwargs`, 0 otherwise.
    int star = 0;
};

struct FxFunction;

/// A class nested in the module class: a submodule's code, as print_readable
/// prints the children that are GraphModules (nested again for theirs).
struct NestedClass {
    std::string name;
    /// Its forward, parameters, nested classes and comments; null when the
    /// class did not parse (then `error` says why; reported only when it is called).
    std::shared_ptr<FxFunction> function;
    std::string error;
    /// The class's source text, from `class` to its last line, dedented so
    /// that `class` is at column 1 and with trailing spaces removed (kept as
    /// a higher-order op's subgraph).
    std::string source;
    /// The `class` keyword's position and the class's last line.
    int line = 0;
    int column = 0;
    int endLine = 0;
};

/// The parsed dump: forward's parameters and body, nested classes, comments.
struct FxFunction {
    /// "GraphModule", "<lambda>", or "graph" for the str(graph) form.
    std::string className;
    bool graphForm = false;
    std::vector<Param> params; // without self
    std::vector<Stmt> body;
    std::vector<NestedClass> nested;
    /// The comments of this class (not those inside its nested classes).
    std::vector<Comment> comments;
    /// Where forward's `def` (or the `graph():` header) is.
    int line = 0;
    int column = 0;
};

/// Where the dump starts in a text and which form it is; nullopt when the
/// text holds neither a module class, a `def forward(`, nor a `graph():` header.
struct DumpStart {
    size_t offset = 0;
    int line = 1;
    bool graphForm = false;
};
std::optional<DumpStart> findDumpStart(std::string_view text);

/// Parses a dump whose header starts at `start`. Errors are one line:
/// "file:line:column: expected <what>, found <what>".
Expected<FxFunction> parseFx(std::string_view text, const DumpStart &start, const std::string &sourceName);

} // namespace fusebox::fx
