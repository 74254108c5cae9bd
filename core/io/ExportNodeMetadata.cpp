#include "ExportNodeMetadata.h"

#include <vector>

namespace fusebox::export_json {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

std::string_view unquote(std::string_view s)
{
    s = trim(s);
    if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front())
        return s.substr(1, s.size() - 2);
    return s;
}

/// Splits at `separator` where no (), [] is open.
std::vector<std::string_view> splitTopLevel(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '[')
            ++depth;
        else if ((c == ')' || c == ']') && depth > 0)
            --depth;
        else if (c == separator && depth == 0) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    parts.push_back(text.substr(start));
    return parts;
}

std::string joinPath(const std::string &base, std::string_view name)
{
    if (name.empty())
        return base;
    return base.empty() ? std::string(name) : base + "." + std::string(name);
}

} // namespace

std::string normalizeModulePath(std::string_view path)
{
    path = trim(path);
    if (path.starts_with("getattr(") && path.ends_with(")")) {
        auto args = splitTopLevel(path.substr(8, path.size() - 9), ',');
        if (args.size() == 2)
            return joinPath(normalizeModulePath(args[0]), unquote(args[1]));
    }
    std::vector<std::string> segments;
    size_t i = 0;
    while (i < path.size()) {
        if (path[i] == '.') {
            ++i;
        } else if (path[i] == '[') {
            const size_t close = path.find(']', i);
            const size_t end = close == std::string_view::npos ? path.size() : close;
            segments.emplace_back(unquote(path.substr(i + 1, end - i - 1)));
            i = end + 1;
        } else {
            // An attribute name, possibly with a call such as "slice(1, None, None)".
            size_t j = i;
            int depth = 0;
            while (j < path.size() && (depth > 0 || (path[j] != '.' && path[j] != '['))) {
                if (path[j] == '(')
                    ++depth;
                else if (path[j] == ')' && depth > 0)
                    --depth;
                ++j;
            }
            segments.emplace_back(trim(path.substr(i, j - i)));
            i = j;
        }
    }
    size_t first = 0;
    if (segments.size() >= 2 && segments[0] == "L" && segments[1] == "self")
        first = 2;
    else if (!segments.empty() && (segments[0] == "self" || segments[0] == "L__self__"))
        first = 1;
    std::string result;
    for (size_t k = first; k < segments.size(); ++k)
        if (segments[k] != "_modules" && !segments[k].empty())
            result = joinPath(result, segments[k]);
    return result;
}

std::string scopeFromModuleStack(const nlohmann::json &stack)
{
    if (stack.is_string()) {
        const std::string &text = stack.get_ref<const std::string &>();
        std::string_view innermost;
        for (std::string_view entry : splitTopLevel(text, ';'))
            if (!trim(entry).empty())
                innermost = entry;
        auto parts = splitTopLevel(innermost, ',');
        if (parts.size() >= 2)
            return normalizeModulePath(parts[1]);
        // torch 2.1 wrote "key:(path,type)".
        innermost = trim(innermost);
        if (const size_t open = innermost.find(":("); open != std::string_view::npos && innermost.ends_with(")")) {
            auto inner = splitTopLevel(innermost.substr(open + 2, innermost.size() - open - 3), ',');
            if (inner.size() >= 2)
                return normalizeModulePath(inner[0]);
        }
        return {};
    }
    const nlohmann::json *last = nullptr;
    if (stack.is_object() || stack.is_array())
        for (const auto &item : stack)
            last = &item;
    if (!last)
        return {};
    const nlohmann::json &entry = *last;
    // {key: [path, type]}, {key: {"path": ...}}, or [key, path, type].
    if (entry.is_array() && !entry.empty()) {
        const size_t index = stack.is_array() && entry.size() >= 3 ? 1 : 0;
        if (entry[index].is_string())
            return normalizeModulePath(entry[index].get<std::string>());
    }
    if (entry.is_object() && entry.contains("path") && entry["path"].is_string())
        return normalizeModulePath(entry["path"].get<std::string>());
    if (entry.is_string())
        return normalizeModulePath(entry.get<std::string>());
    return {};
}

SourceLocation sourceFromStackTrace(std::string_view trace)
{
    SourceLocation location;
    const size_t at = trace.rfind("File \"");
    if (at == std::string_view::npos)
        return location;
    const size_t start = at + 6;
    const size_t quote = trace.find('"', start);
    if (quote == std::string_view::npos)
        return location;
    location.file = std::string(trace.substr(start, quote - start));
    const size_t lineAt = trace.find("line ", quote);
    if (lineAt != std::string_view::npos && lineAt < quote + 4) {
        int line = 0;
        for (size_t k = lineAt + 5; k < trace.size() && trace[k] >= '0' && trace[k] <= '9' && line < 100000000; ++k)
            line = line * 10 + (trace[k] - '0');
        location.line = line;
    }
    return location;
}

} // namespace fusebox::export_json
