#pragma once
// The pattern compiler: turns the checked syntax tree of a pattern file
// (core/io/PatternFile.h) into VerticalPatterns that the greedy driver, the
// explainer and the numeric verifier use like the built-in rules. The
// semantics are documented in docs/pattern-language.md ("Compiled patterns").

#include "core/io/PatternFile.h"
#include "core/ir/Expected.h"
#include "core/rewrite/Pattern.h"
#include "core/rewrite/PatternSet.h"

#include <memory>
#include <string>
#include <vector>

namespace fusebox {

class OpSchemaRegistry;

/// Compiles every pattern of a parsed file, in file order. Each becomes a
/// VerticalPattern named after the decl, anchored at the match statement no
/// other match statement reads (the last such), with the decl's benefit
/// (default 1), stage (default post_grad), description and options.
/// With `schemas`, arguments are matched after normalising both the pattern
/// call and the node to the schema (left-out arguments must hold their
/// defaults); the registry must outlive the patterns.
/// Errors are "file:line:col: problem": a match statement that cannot be
/// reached from the anchor, a replacement with op alternatives, a replacement
/// reading a value it replaces, an option that is not a bool/int/float
/// literal, and (with schemas) a replacement op whose result kind cannot be
/// the replaced value's (a Tensor[] replacing a Tensor).
Expected<std::vector<std::unique_ptr<Pattern>>> compilePatterns(const PatternFile &file,
                                                                const OpSchemaRegistry *schemas = nullptr);

/// readPatternFile + compilePatterns + adds every pattern to `set` (enabled).
/// A pattern whose name is already in `set` is an error naming the file and
/// pattern, and then nothing is added.
Status addPatternFile(PatternSet &set, const std::string &path, const OpSchemaRegistry *schemas = nullptr);

} // namespace fusebox
