#pragma once
// Turns a parsed FX dump (FxParser's AST) into IR. Internal to core/io; the
// public entry points are in FxText.h.

#include "FxParser.h"
#include "FxText.h"

namespace fusebox::fx {

/// Builds model.graph from fn: inputs from forward's parameters (or, for AOT
/// joint graphs, from the tree_flatten_spec unpack), one node per call,
/// outputs from the return. Errors are one "file:line:column: ..." line.
Status buildGraph(const FxFunction &fn, const FxReadOptions &options, LoadedModel &model);

/// "a/b.py:12" (or ":12:5") of a "# File:" comment's text after "File: ";
/// PyTorch's " in fn, code: ..." tail is dropped.
SourceLocation parseFileComment(std::string_view text);

} // namespace fusebox::fx
