#pragma once
// Fusebox's result beside Inductor's: the one check that compare-inductor,
// the IDE's Compare with Inductor and the oracle suite share, so that the
// three never disagree on whether two results are the same.

#include "core/ir/GraphSignature.h"
#include "core/ir/OpSchema.h"
#include "core/pt2/Pt2Bridge.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fusebox::pt2 {

struct InductorComparison {
    InductorResult inductor; ///< the bridge's answer: graph text, counters["inductor"], time
    Graph inductorGraph;     ///< Inductor's result, read back with the given schemas
    /// The first difference between Fusebox's result and Inductor's, both
    /// taken to one call form first (firstCanonicalDifference); nullopt when
    /// they are the same graph up to node names. Its NodeIds are those of the
    /// two graphs compared (fuseboxResult and inductorGraph).
    std::optional<StructuralDifference> difference;
};

/// Runs Inductor's own passes on `original` (its FX text: graphTextForInductor
/// with `originalPath`) under configJson through the bridge, reads the result
/// back and compares it with fuseboxResult. configJson travels as text so that
/// Inductor runs the passes in its order. Errors start "Inductor: " (the
/// bridge's or Inductor's own failure) or "cannot read Inductor's result
/// back: " (its FX text did not read). `schemas` must be those `original`
/// was read with (pt2GraphSchemas()): with libtorch 1.13's alone, an op 1.13
/// lacks (scaled_dot_product_attention) reads back under its Python spelling
/// and the two sides differ in name only.
Expected<InductorComparison> compareWithInductor(Pt2Bridge &bridge, const Graph &original,
                                                 const std::string &originalPath, const Graph &fuseboxResult,
                                                 const std::string &configJson, const OpSchemaRegistry &schemas,
                                                 const RequestControl &control = {});

/// One pass's count on each side, where they differ.
struct CountDifference {
    std::string pass;
    int64_t fusebox = 0, inductor = 0;
};

/// The passes whose count differs although the graphs may be the same (a
/// pass that fires twice on one node): for each pass in `passesRun` that
/// Inductor counts under its own name, Fusebox's count (`fuseboxCounts`,
/// missing = 0) beside Inductor's. Passes Inductor counts under other names
/// (split_cat_pass's scmerge_* counters) are not compared. Sorted by pass.
std::vector<CountDifference> countDifferences(const std::map<std::string, int64_t> &fuseboxCounts,
                                              const Counters &inductorCounters, const std::set<std::string> &passesRun);

/// firstStructuralDifference(a, b) after canonicaliseCalls and
/// forgetListMetadata on copies: Fusebox's rewrites pass every argument
/// positionally and record list dtypes, Inductor's FX leaves defaults out.
std::optional<StructuralDifference> firstCanonicalDifference(const Graph &a, const Graph &b,
                                                             const OpSchemaRegistry &schemas);

} // namespace fusebox::pt2
