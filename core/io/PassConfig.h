#pragma once

#include "core/ir/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fusebox {

/// A value of a rule option in a pass config.
using ConfigValue = std::variant<bool, int64_t, double>;

/// A match a reviewer rejected, identified robustly (matchSignature(): the
/// pattern, the anchor's op and scope, a structural hash) plus the anchor's
/// name when it was known, for people reading the file.
struct RejectedMatch {
    std::string pattern;
    std::string signature;
    std::string anchor;
    friend bool operator==(const RejectedMatch &, const RejectedMatch &) = default;
};

/// Custom patterns (docs/pattern-language.md) a pass config carries: a
/// pattern file it references, or pattern text embedded in it.
struct CustomPatternSource {
    /// The file as written in the config ("patterns/fusions.patterns").
    std::string file;
    /// The file resolved against the config's folder (loadPassConfig); equal
    /// to `file` when read from text or absolute.
    std::string resolvedFile;
    /// Embedded pattern text (when `file` is empty).
    std::string text;
    friend bool operator==(const CustomPatternSource &, const CustomPatternSource &) = default;
};

/// The production pass's configuration, in Inductor's shape:
/// {"pre_grad_fusion_options": {"batch_linear": {"min_fuse_set_size": 5}},
///  "post_grad_fusion_options": {...}, "disabled_passes": "...",
///  "custom_patterns": [...], "rejected": [...]}.
/// A built-in rule is enabled when its name appears in either section (with
/// its option overrides), as with torch._inductor.config; every custom
/// pattern is enabled (a section may still override its options).
struct PassConfig {
    std::map<std::string, std::map<std::string, ConfigValue>> preGradFusionOptions;
    std::map<std::string, std::map<std::string, ConfigValue>> postGradFusionOptions;
    /// The rules of each section in the file's order, the order Inductor runs
    /// them in (a JSON object's order is Python's dict order).
    std::vector<std::string> preGradOrder, postGradOrder;
    /// Inductor 2.14's per-pass option `devices` (["cuda"]), per rule of each
    /// section: kept apart from the rule's options, as Inductor strips it
    /// before a pass reads them. Before grad, 2.14 drops a pass when no
    /// example input is on one of these device types; after grad it ignores it.
    std::map<std::string, std::vector<std::string>> preGradDevices, postGradDevices;
    /// torch._inductor.config.disabled_passes (2.14; also set by
    /// TORCHINDUCTOR_DISABLED_PASSES): comma-separated GraphTransformObserver
    /// pass names, matched case-insensitively; nullopt when the config does
    /// not set it.
    std::optional<std::string> disabledPasses;
    /// [{"file": "x.patterns"} | {"text": "pattern p { ... }"}].
    std::vector<CustomPatternSource> customPatterns;
    std::vector<RejectedMatch> rejected;
    friend bool operator==(const PassConfig &, const PassConfig &) = default;
};

/// Parses a pass config; errors name the JSON path ("passes.json:
/// /pre_grad_fusion_options/batch_linear/min_fuse_set_size: expected a number
/// or bool, found string \"5\"").
Expected<PassConfig> readPassConfig(const std::string &text, const std::string &sourceName);
Expected<PassConfig> loadPassConfig(const std::string &path);
/// Writes the config as JSON.
std::string writePassConfig(const PassConfig &config);
Status savePassConfig(const PassConfig &config, const std::string &path);

} // namespace fusebox
