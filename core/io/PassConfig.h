#pragma once

#include "core/ir/Expected.h"

#include <cstdint>
#include <map>
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

/// The production pass's configuration, in Inductor's shape:
/// {"pre_grad_fusion_options": {"batch_linear": {"min_fuse_set_size": 5}},
///  "post_grad_fusion_options": {...}, "rejected": [...]}.
/// A rule is enabled when its name appears in either section (with its option
/// overrides), as with torch._inductor.config.
struct PassConfig {
    std::map<std::string, std::map<std::string, ConfigValue>> preGradFusionOptions;
    std::map<std::string, std::map<std::string, ConfigValue>> postGradFusionOptions;
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
