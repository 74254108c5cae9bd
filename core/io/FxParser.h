#pragma once
// Recursive-descent parser from FX dump tokens to a small AST. Both dump forms
// (print_readable code and str(graph) lines) parse into the same FxFunction,
// so one reader turns either into IR. Internal to core/io.

#include "FxTokenizer.h"

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::fx {

struct Expr;
/// An expression of a parse: it lives in the parse's ExprStore (see there).
using ExprPtr = const Expr *;

/// An expression of the Python subset FX prints. Its texts are views: into
/// the parsed text, or into its ExprStore's texts where they are not spelled
/// as written (decoded strings, a folded "-1"), so the parsed text must
/// outlive the FxFunction that holds it.
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
    std::string_view text;
    ExprPtr object = nullptr;
    std::vector<ExprPtr> items;
    std::vector<std::pair<std::string_view, ExprPtr>> keywords;
    int line = 0;
    int column = 0;
};

/// Where a parse's expressions live, and the texts they view that are not
/// in the parsed text. One block of memory for many expressions, freed at
/// once: a 3 MB dump holds some 200,000 of them, and one allocation (and one
/// free) each was a fifth of a read. Deques keep their elements in place as
/// they grow, so an ExprPtr or a view stays valid until the store is freed.
struct ExprStore {
    std::deque<Expr> exprs;
    std::deque<std::string> texts;
    /// A new expression, kept here.
    ExprPtr make(Expr e) { return &exprs.emplace_back(std::move(e)); }
    /// A view of `text`, kept here.
    std::string_view keep(std::string text) { return texts.emplace_back(std::move(text)); }
};

/// A type annotation as written: the string's value for quoted ones, the
/// source text for unquoted 2.0-style ones; the position of its first character.
/// The text is a view, as an Expr's is.
struct Annotation {
    std::string_view text;
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
    ExprPtr value = nullptr;
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
    ExprPtr defaultValue = nullptr;
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
    /// The stores the expressions of this function and of its nested
    /// classes live in (set on the function parseFx returns; a nested
    /// class's function lives as long as the one that holds it).
    std::vector<std::shared_ptr<ExprStore>> stores;
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
