#pragma once
// The line level of TORCH_TRACE logs (core/io/TorchTrace.h): the glog prefix
// of an envelope, a chunked line reader that knows each line's byte offset,
// and the payload text behind its tabs.

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

namespace fusebox {

/// The JSON object of an envelope line: what follows a glog prefix
/// ("V1206 15:18:20.253000 1500233 torch/_dynamo/x.py:22] "), when the line
/// has one and the rest starts with '{'; nullopt otherwise (a payload line,
/// other logging, a blank line). Only the prefix is checked, not the JSON.
std::optional<std::string_view> envelopeJson(std::string_view line);

/// Reads a stream line by line in large chunks. Each line is given without
/// its '\n' (a trailing '\r' is kept: payloads are hashed as written), with
/// the byte offset where it starts.
class TraceLineReader {
public:
    explicit TraceLineReader(std::istream &in)
        : m_in(in)
    {}

    /// The next line; false at the end of the stream. `endsMidLine` is set
    /// when the last line had no '\n' (a log cut short).
    bool next(std::string_view &line, uint64_t &offset, bool &endsMidLine);
    /// Bytes consumed so far (the file size once next() returned false).
    uint64_t bytesRead() const { return m_consumed; }

private:
    bool fill();

    std::istream &m_in;
    std::string m_buffer;
    size_t m_pos = 0;
    uint64_t m_bufferOffset = 0;
    uint64_t m_consumed = 0;
    bool m_eof = false;
};

/// A payload's text from its raw lines: each line's leading tab removed, the
/// lines joined with '\n', no final newline (what PyTorch hashes).
std::string stripPayloadTabs(std::string_view raw);

/// A whole non-negative decimal int ("17"); nullopt for anything else
/// ("", "-1", "1a", an overflow): compile ids, ranks and occurrences.
std::optional<int> parseTraceInt(std::string_view text);

/// The md5 of `text` as 32 lowercase hex digits (OpenSSL's EVP).
std::string md5Hex(std::string_view text);

} // namespace fusebox
