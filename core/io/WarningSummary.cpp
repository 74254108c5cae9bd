#include "WarningSummary.h"

#include <charconv>
#include <cctype>

namespace fusebox {
namespace {

bool isAsciiDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// The count of a summary warning ("12 × kind: items") and where its kind ends; 0 when it is none.
size_t summaryCount(std::string_view message, std::string_view &kind)
{
    size_t i = 0;
    while (i < message.size() && isAsciiDigit(message[i]))
        ++i;
    constexpr std::string_view kTimes = " × ";
    if (i == 0 || message.substr(i, kTimes.size()) != kTimes)
        return 0;
    std::string_view rest = message.substr(i + kTimes.size());
    size_t colon = rest.find(": ");
    kind = rest.substr(0, colon);
    return std::stoul(std::string(message.substr(0, i)));
}

} // namespace

WarningParts splitWarning(std::string_view warning)
{
    // "file:line: message": the first ":<digits>: " ends the file name.
    for (size_t colon = warning.find(':'); colon != std::string_view::npos; colon = warning.find(':', colon + 1)) {
        size_t end = colon + 1;
        while (end < warning.size() && isAsciiDigit(warning[end]))
            ++end;
        if (end > colon + 1 && warning.substr(end, 2) == ": ") {
            WarningParts parts;
            parts.file = std::string(warning.substr(0, colon));
            // A number too long for an int (damaged input) reads as line 0.
            const std::string_view digits = warning.substr(colon + 1, end - colon - 1);
            if (std::from_chars(digits.data(), digits.data() + digits.size(), parts.line).ec != std::errc())
                parts.line = 0;
            parts.message = std::string(warning.substr(end + 2));
            return parts;
        }
    }
    return WarningParts{{}, 0, std::string(warning)};
}

std::string warningKind(std::string_view warning)
{
    const WarningParts parts = splitWarning(warning);
    std::string_view kind;
    if (summaryCount(parts.message, kind))
        return std::string(kind);
    std::string out;
    const std::string &m = parts.message;
    for (size_t i = 0; i < m.size(); ++i) {
        const char c = m[i];
        if (c == '\'') { // a quoted value
            size_t close = m.find('\'', i + 1);
            if (close != std::string::npos) {
                out += "'…'";
                i = close;
                continue;
            }
        }
        if (isAsciiDigit(c) && (i == 0 || !std::isalnum(static_cast<unsigned char>(m[i - 1])))) {
            while (i + 1 < m.size() && (isAsciiDigit(m[i + 1]) || m[i + 1] == '.'))
                ++i;
            out += "N";
            continue;
        }
        out += c;
    }
    // "... does not take 0.5; arguments kept as written": the value is the variable part.
    if (size_t at = out.find(" does not take "); at != std::string::npos) {
        size_t semi = out.find(';', at);
        out.replace(at, (semi == std::string::npos ? out.size() : semi) - at, " does not take …");
    }
    return out;
}

std::vector<WarningGroup> groupWarnings(const std::vector<std::string> &warnings)
{
    std::vector<WarningGroup> groups;
    for (size_t i = 0; i < warnings.size(); ++i) {
        const std::string kind = warningKind(warnings[i]);
        WarningGroup *group = nullptr;
        for (WarningGroup &g : groups)
            if (g.kind == kind)
                group = &g;
        if (!group) {
            groups.push_back(WarningGroup{kind, 0, {}, {}});
            group = &groups.back();
            const WarningParts parts = splitWarning(warnings[i]);
            if (!parts.file.empty())
                group->firstLocation = parts.file + ":" + std::to_string(parts.line);
        }
        std::string_view summaryKind;
        const size_t counted = summaryCount(splitWarning(warnings[i]).message, summaryKind);
        group->count += counted ? counted : 1;
        group->warnings.push_back(i);
    }
    return groups;
}

std::string formatWarningGroup(const WarningGroup &group)
{
    std::string s = std::to_string(group.count) + " × " + group.kind;
    if (!group.firstLocation.empty())
        s += " (first at " + group.firstLocation + ")";
    return s;
}

} // namespace fusebox
