#pragma once
// Splitting text at a separator without copying. C++20 standard library only.

#include <string_view>
#include <vector>

namespace fusebox {

/// The pieces of `text` between `separator`s, as views into it: n separators
/// give n + 1 pieces, empty ones included ("a,,b" → a, "", b; "" → one "").
inline std::vector<std::string_view> splitAt(std::string_view text, char separator)
{
    std::vector<std::string_view> pieces;
    for (size_t start = 0;;) {
        const size_t end = text.find(separator, start);
        pieces.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
            return pieces;
        start = end + 1;
    }
}

} // namespace fusebox
