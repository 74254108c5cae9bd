#pragma once

#include "core/rewrite/PatternSet.h"

#include <string_view>

namespace fusebox {

/// Every built-in Optimus rule under Inductor's name, with Inductor's default
/// options: the vertical split/cat passes and the horizontal group/batch
/// fusions, pre- and post-grad, giving the newest Inductor profile's answers
/// (applyInductorProfile gives another's). All are enabled; a pass config
/// narrows them.
PatternSet builtinCatalog();

/// Adds the vertical split/cat rules (patterns/split_cat/).
void addSplitCatPatterns(PatternSet &set);
/// Adds the horizontal group/batch fusions (patterns/group_batch/).
void addGroupBatchPatterns(PatternSet &set);
/// Names, on every built-in rule of `set`, the code of Inductor `version`
/// ("2.6", "2.14") it follows, with that version's line numbers
/// (Pattern::inductorSource; patterns/InductorSources.cpp).
void setInductorSources(PatternSet &set, std::string_view version);

} // namespace fusebox
