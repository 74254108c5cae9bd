#pragma once
// The two stages of reading a pattern file, internal to core/io:
// PatternParser.cpp (text -> tree) and PatternChecker.cpp (scoping, schemas).

#include "PatternFile.h"

namespace fusebox::patternlang {

/// Builds the tree from text, checking syntax only; derived fields
/// (captures, listCaptures, outputs) are left empty.
Expected<PatternFile> parsePatternSyntax(std::string_view text, const std::string &sourceName);

/// Checks names, structure and (with options.schemas) ops of a parsed file,
/// and fills each pattern's derived fields.
Status checkPatternFile(PatternFile &file, const PatternFileReadOptions &options);

/// True for names that are literals, not identifiers: True, False, None and
/// the dtype short names (f32, bf16, i64, b8...).
bool isReservedLiteralName(std::string_view name);

} // namespace fusebox::patternlang
