#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::cli {

/// A declared option of a subcommand.
struct OptionSpec {
    std::string name;      ///< "--json"
    std::string valueName; ///< "FILE"; empty for a flag
    std::string help;
    bool repeatable = false;
};

/// The parsed words of one subcommand: positionals and option values.
struct ParsedArgs {
    std::vector<std::string> positionals;
    std::map<std::string, std::vector<std::string>> options;

    bool has(const std::string &name) const { return options.count(name) != 0; }
    /// The last value given for name, or nullopt.
    std::optional<std::string> value(const std::string &name) const;
    /// Every value given for a repeatable option.
    std::vector<std::string> values(const std::string &name) const;
};

/// Parses args against specs. Returns an error message ("unknown option --x",
/// "--output needs a value") or nullopt and fills out.
std::optional<std::string> parseArgs(const std::vector<std::string> &args, const std::vector<OptionSpec> &specs,
                                     ParsedArgs &out);

/// The options table for --help.
std::string formatOptions(const std::vector<OptionSpec> &specs);

/// Parses "1,3,224,224" into sizes; nullopt when it is not a comma-separated
/// list of non-negative integers.
std::optional<std::vector<int64_t>> parseShape(const std::string &text);

} // namespace fusebox::cli
