#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// Standard base64 (RFC 4648, with padding) of bytes.
std::string encodeBase64(const std::vector<std::byte> &bytes);
/// Decodes standard base64; nullopt on a malformed input.
std::optional<std::vector<std::byte>> decodeBase64(std::string_view text);

} // namespace fusebox
