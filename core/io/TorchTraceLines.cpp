#include "TorchTraceLines.h"

#include <openssl/evp.h>

#include <cctype>
#include <charconv>
#include <cstring>

namespace fusebox {
namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// Advances over `count` digits; false when fewer are there.
bool digits(std::string_view line, size_t &at, size_t count)
{
    for (size_t i = 0; i < count; ++i, ++at)
        if (at >= line.size() || !isDigit(line[at]))
            return false;
    return true;
}

bool someDigits(std::string_view line, size_t &at)
{
    const size_t start = at;
    while (at < line.size() && isDigit(line[at]))
        ++at;
    return at > start;
}

bool literal(std::string_view line, size_t &at, char c)
{
    if (at >= line.size() || line[at] != c)
        return false;
    ++at;
    return true;
}

constexpr size_t kChunk = 1 << 20;

} // namespace

std::optional<std::string_view> envelopeJson(std::string_view line)
{
    // {level}{MMDD} {HH:MM:SS}.{micros} {pid} {path}:{line}] {json}, as
    // torch/_logging/_internal.py's TorchLogsFormatter writes it for traces.
    size_t at = 0;
    if (line.empty() || std::strchr("VIWEC", line[0]) == nullptr || line[0] == '\0')
        return std::nullopt;
    ++at;
    if (!digits(line, at, 4) || !literal(line, at, ' ') || !digits(line, at, 2) || !literal(line, at, ':')
        || !digits(line, at, 2) || !literal(line, at, ':') || !digits(line, at, 2) || !literal(line, at, '.')
        || !someDigits(line, at))
        return std::nullopt;
    while (at < line.size() && line[at] == ' ')
        ++at;
    if (!someDigits(line, at) || !literal(line, at, ' '))
        return std::nullopt;
    const size_t close = line.find("] ", at);
    if (close == std::string_view::npos)
        return std::nullopt;
    at = close + 2;
    if (at >= line.size() || line[at] != '{')
        return std::nullopt;
    return line.substr(at);
}

bool TraceLineReader::fill()
{
    if (m_eof)
        return false;
    // Keep the unread tail and append the next chunk behind it.
    m_bufferOffset += m_pos;
    m_buffer.erase(0, m_pos);
    m_pos = 0;
    const size_t old = m_buffer.size();
    m_buffer.resize(old + kChunk);
    m_in.read(m_buffer.data() + old, static_cast<std::streamsize>(kChunk));
    const size_t got = static_cast<size_t>(m_in.gcount());
    m_buffer.resize(old + got);
    if (got < kChunk)
        m_eof = true;
    return got > 0;
}

bool TraceLineReader::next(std::string_view &line, uint64_t &offset, bool &endsMidLine)
{
    while (true) {
        const char *start = m_buffer.data() + m_pos;
        const size_t left = m_buffer.size() - m_pos;
        if (const void *newline = left ? std::memchr(start, '\n', left) : nullptr) {
            const size_t length = static_cast<size_t>(static_cast<const char *>(newline) - start);
            line = std::string_view(start, length);
            offset = m_bufferOffset + m_pos;
            m_pos += length + 1;
            m_consumed = m_bufferOffset + m_pos;
            return true;
        }
        if (!fill()) {
            if (m_pos == m_buffer.size())
                return false;
            // The last line has no newline: the log was cut mid-line.
            line = std::string_view(m_buffer.data() + m_pos, m_buffer.size() - m_pos);
            offset = m_bufferOffset + m_pos;
            m_pos = m_buffer.size();
            m_consumed = m_bufferOffset + m_pos;
            endsMidLine = true;
            return true;
        }
    }
}

std::string stripPayloadTabs(std::string_view raw)
{
    std::string text;
    text.reserve(raw.size());
    size_t start = 0;
    bool first = true;
    while (start < raw.size()) {
        size_t end = raw.find('\n', start);
        std::string_view line = raw.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!line.empty() && line.front() == '\t')
            line.remove_prefix(1);
        if (!first)
            text += '\n';
        text.append(line);
        first = false;
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
    return text;
}

std::string md5Hex(std::string_view text)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(text.data(), text.size(), digest, &length, EVP_md5(), nullptr);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

std::optional<int> parseTraceInt(std::string_view text)
{
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0)
        return std::nullopt;
    return value;
}

} // namespace fusebox
