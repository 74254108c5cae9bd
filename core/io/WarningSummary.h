#pragma once
// Groups a reader's warnings (LoadedModel::warnings) by kind, for the CLI's
// one-line-per-kind summary and the IDE's Problems panel.

#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// One warning taken apart: "model.py:28: aten::x: message" ->
/// file "model.py", line 28, message "aten::x: message".
struct WarningParts {
    std::string file;
    int line = 0;
    std::string message;
};

/// Splits a warning into its location and message. A warning without a
/// "file:line: " prefix has an empty file and line 0.
WarningParts splitWarning(std::string_view warning);

/// The kind of a warning: its message with the location, quoted values,
/// numbers and the reader's per-kind counts taken out, so that warnings
/// that differ only in those fall together ("dtype '…' has no Fusebox
/// equivalent"). A summary warning ("12 × ops without a schema ...: a ×3, b")
/// has the kind before its colon.
std::string warningKind(std::string_view warning);

/// The warnings of one kind.
struct WarningGroup {
    std::string kind;
    /// Occurrences: summary warnings count their items ("12 × ...").
    size_t count = 0;
    /// Indices into the warning list, in order.
    std::vector<size_t> warnings;
    /// "model.py:28" of the first one ("" when it has none).
    std::string firstLocation;
};

/// The warnings grouped by kind, kinds in order of their first warning.
std::vector<WarningGroup> groupWarnings(const std::vector<std::string> &warnings);

/// "412 × scalar for ... (first at model.py:28)": one line per group.
std::string formatWarningGroup(const WarningGroup &group);

} // namespace fusebox
