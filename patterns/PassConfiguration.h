#pragma once

#include "core/io/PassConfig.h"
#include "core/ir/Expected.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"

#include <string>
#include <vector>

namespace fusebox {

class OpSchemaRegistry;
struct InductorProfile;

/// Narrows a pattern set to a pass config, as Inductor 2.6 reads its config:
/// the rules named in pre_grad_fusion_options / post_grad_fusion_options are
/// enabled with their option overrides, all others disabled. What 2.6 refuses
/// is refused, with the section and rule named: a name it has no pass for
/// (with the closest names), a rule in the wrong section, a non-integer
/// counter. What 2.6 accepts without acting on it is accepted and described
/// in `notes` (one line each, "post_grad_fusion_options/group_linear: ..."):
/// options a pass does not read (with the closest names), counter on a
/// fusion, counter < 1 (the pass never runs), require_fbgemm (the fusion is
/// dropped, as open-source PyTorch has no fbgemm) and 2.6 passes Fusebox does
/// not model (decompose_mm_pass, normalization_aten_pass, pad_aten_mm_pass,
/// shape_padding_multiplier).
Status configurePatterns(PatternSet &patterns, const PassConfig &config, std::vector<std::string> *notes = nullptr);

/// configurePatterns() as `profile`'s Inductor reads a config: a pass of a
/// newer version is refused with that version named ("cat_linear: a pass of
/// Inductor 2.14, which Inductor 2.6 does not have"), a pass the version has
/// and Fusebox does not model is accepted with a note, and an unknown
/// pre-grad name is refused (2.6: KeyError) or skipped with a note (2.14).
/// The overload without a profile reads as Inductor 2.6.
Status configurePatterns(PatternSet &patterns, const PassConfig &config, const InductorProfile &profile,
                         std::vector<std::string> *notes = nullptr);

/// Compiles the config's custom patterns (pattern files it references, or
/// text it embeds) and adds them to `patterns`, enabled. Returns their names.
/// Errors name the file (or "<config>: custom_patterns[i]") and line:col.
Expected<std::vector<std::string>> addCustomPatterns(PatternSet &patterns, const PassConfig &config,
                                                     const std::string &configName,
                                                     const OpSchemaRegistry *schemas = nullptr);

/// The config that enables exactly the set's enabled patterns with their
/// current options, in the set's order (what the IDE exports).
PassConfig passConfigFor(const PatternSet &patterns);

/// A DriverOptions::isRejected predicate that skips the config's rejected
/// matches (by matchSignature()); empty when the config rejects none.
std::function<bool(const Graph &, const Match &)> rejectionFilter(const PassConfig &config);

} // namespace fusebox
