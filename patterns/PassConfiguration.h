#pragma once

#include "core/io/PassConfig.h"
#include "core/ir/Expected.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"

#include <string>
#include <vector>

namespace fusebox {

class OpSchemaRegistry;

/// Narrows a pattern set to a pass config, as Inductor reads its config: the
/// rules named in pre_grad_fusion_options / post_grad_fusion_options are
/// enabled with their option overrides, all others disabled. Errors name the
/// section and rule: unknown rules and options (with the closest names), a
/// rule in the wrong section, a value of the wrong kind.
Status configurePatterns(PatternSet &patterns, const PassConfig &config);

/// Compiles the config's custom patterns (pattern files it references, or
/// text it embeds) and adds them to `patterns`, enabled. Returns their names.
/// Errors name the file (or "<config>: custom_patterns[i]") and line:col.
Expected<std::vector<std::string>> addCustomPatterns(PatternSet &patterns, const PassConfig &config,
                                                     const std::string &configName,
                                                     const OpSchemaRegistry *schemas = nullptr);

/// The config that enables exactly the set's enabled patterns with their
/// current options (what the IDE exports).
PassConfig passConfigFor(const PatternSet &patterns);

/// A DriverOptions::isRejected predicate that skips the config's rejected
/// matches (by matchSignature()).
std::function<bool(const Graph &, const Match &)> rejectionFilter(const PassConfig &config);

} // namespace fusebox
