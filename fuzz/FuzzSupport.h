#pragma once
// What the fuzz targets share: reporting a broken contract (abort, so that
// libFuzzer keeps the input) and the shapes of the readers' error messages.

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::fuzz {

[[noreturn]] inline void contractBroken(const char *target, const char *what, const std::string &detail)
{
    std::fprintf(stderr, "%s: %s\n%s\n", target, what, detail.c_str());
    std::abort();
}

inline bool isOneLine(std::string_view message)
{
    return !message.empty() && message.find('\n') == std::string_view::npos;
}

/// "<source>:<line>:<column>: text" on one line.
inline bool isLineColumnError(std::string_view message, std::string_view source)
{
    if (!isOneLine(message) || !message.starts_with(source) || message.substr(source.size(), 1) != ":")
        return false;
    size_t at = source.size() + 1;
    for (int field = 0; field < 2; ++field) {
        const size_t digits = at;
        while (at < message.size() && std::isdigit(static_cast<unsigned char>(message[at])))
            ++at;
        if (at == digits || at >= message.size() || message[at] != ':')
            return false;
        ++at;
    }
    return message.substr(at, 1) == " " && message.size() > at + 1;
}

/// "<source>: text" or "<source>/<entry>: text" or "<source>:line:column: text",
/// on one line: the message names the file it is about.
inline bool isNamedError(std::string_view message, std::string_view source)
{
    return isOneLine(message) && message.starts_with(source) && message.size() > source.size() + 2
           && (message[source.size()] == ':' || message[source.size()] == '/');
}

/// True when a reader's guarded accessors let one of nlohmann's exceptions
/// through to its last-resort catch: "<source>[/entry]: [json.exception.type_error.302] ..."
/// (not merely quoting that text from the input, as the fuzzer learns to).
inline bool isEscapedJsonException(std::string_view message, std::string_view source)
{
    if (!message.starts_with(source))
        return false;
    const size_t colon = message.find(": ", source.size());
    return colon != std::string_view::npos && message.substr(colon + 2).starts_with("[json.exception.");
}

} // namespace fusebox::fuzz
