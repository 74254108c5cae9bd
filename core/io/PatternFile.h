#pragma once
// Pattern files: the language engineers write patterns in (see
// docs/pattern-language.md). Reading gives a checked syntax tree; compiling
// it into Pattern objects is the pattern compiler's job (patterns/).

#include "PatternAst.h"
#include "core/ir/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

class OpSchemaRegistry;

/// The patterns of one file, in file order; names are unique.
struct PatternFile {
    /// Where the text came from (PatternFileReadOptions::sourceName); not part
    /// of the file's meaning, so operator== ignores it.
    std::string sourceName;
    std::vector<patternlang::PatternDecl> patterns;

    /// The pattern called name, or nullptr.
    const patternlang::PatternDecl *find(std::string_view name) const;
    friend bool operator==(const PatternFile &a, const PatternFile &b) { return a.patterns == b.patterns; }
};

/// Options of parsePatternFile() / readPatternFile().
struct PatternFileReadOptions {
    /// When given, every op is checked against it: unknown ops (with the closest
    /// names suggested) and calls that fit no overload are errors. Ops in a
    /// namespace the registry has no op of ("fusebox::", custom ops) and
    /// getitem are not checked. When null, ops are only checked for form.
    const OpSchemaRegistry *schemas = nullptr;
    /// Names the text in errors ("linear_relu.fbp"); "<patterns>" when empty.
    std::string sourceName;
};

/// Parses and checks a pattern file. Errors are one line,
/// "source:line:column: problem": syntax ("expected ')', found 'x'"),
/// unbalanced braces, unknown ops, arity against the schema, unbound names in
/// constraints or the replacement, duplicate patterns or match definitions,
/// an empty match. The first error found is returned.
/// Not checked here (needs shapes, so the compiler does it): whether the
/// replacement's outputs can have the matched outputs' shape/dtype.
Expected<PatternFile> parsePatternFile(std::string_view text, const PatternFileReadOptions &options = {});

/// Reads path and parses it; sourceName defaults to path. An unreadable file
/// is an error naming the path.
Expected<PatternFile> readPatternFile(const std::string &path, const PatternFileReadOptions &options = {});

/// The canonical text of file: one statement a line, four-space indents,
/// fields in a fixed order, no comments. parsePatternFile(writePatternFile(f)) == f.
std::string writePatternFile(const PatternFile &file);

/// The canonical text of one expression (as writePatternFile prints it); for
/// explanations and error messages that quote a constraint.
std::string writePatternExpr(const patternlang::Expr &expr);

} // namespace fusebox
