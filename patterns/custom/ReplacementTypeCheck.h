#pragma once

#include "core/io/PatternAst.h"

#include <string>

namespace fusebox::custom {

/// Checks, before any graph is seen, that each replaced match value can have
/// the dtype and rank of its replacement. A small abstract interpretation
/// runs over both programs: a value's dtype is unknown, a fixed dtype
/// (aten::eq gives bool, `to(x, f16)` gives f16) or "the dtype of capture x",
/// and its rank is unknown, fixed, or "rank(x) + k" (`sum(x, [1])` is
/// rank(x) - 1). Constraints in `where` (`dtype(x) in [f32, bf16]`,
/// `rank(x) == 2`) narrow what a capture can be, and a capture read by an op
/// that takes only floating tensors (linear, layer_norm, gelu...) cannot be
/// bool or an integer.
///
/// Only a mismatch that holds for every graph the pattern can match is an
/// error, so the check never refuses a pattern that could be right; other
/// mismatches (sizes, promotion) are left to the numeric verifier at apply
/// time. Returns "" when consistent, else "source:line:col: problem" at the
/// replacement statement.
std::string checkReplacementTypes(const patternlang::PatternDecl &decl, const std::string &sourceName);

} // namespace fusebox::custom
