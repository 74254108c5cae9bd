#include "JsonSupport.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace fusebox::json_support {

std::string describe(const nlohmann::json &value)
{
    std::string text = value.dump();
    if (text.size() > 40)
        text = text.substr(0, 37) + "...";
    return std::string(value.type_name()) + " " + text;
}

std::string oneLine(std::string message)
{
    if (std::none_of(message.begin(), message.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        return message;
    std::string out;
    for (char c : message) {
        const auto b = static_cast<unsigned char>(c);
        if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (b < 0x20 || b == 0x7f)
            out += std::string("\\x") + "0123456789abcdef"[b >> 4] + "0123456789abcdef"[b & 15];
        else
            out += c;
    }
    return out;
}

namespace {

/// "line:column" of a 0-based byte offset.
std::string lineColumn(const std::string &text, size_t offset)
{
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return std::to_string(line) + ":" + std::to_string(column);
}

/// nlohmann's message after its "[json.exception...] " prefix and "...: ",
/// with bytes that are not printable ASCII escaped (a broken file's bytes
/// need not be UTF-8, and the message may end up in JSON output).
std::string quotedReason(const std::string &what)
{
    const auto colon = what.rfind(": ");
    std::string quoted;
    for (char c : colon == std::string::npos ? what : what.substr(colon + 2)) {
        const auto b = static_cast<unsigned char>(c);
        if (b >= 0x20 && b < 0x7f) {
            quoted += c;
        } else {
            static const char *kHex = "0123456789abcdef";
            quoted += std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
        }
    }
    return quoted;
}

/// "number overflow parsing '1e999'" from "[json.exception.out_of_range.406] number ...".
std::string withoutPrefix(const std::string &what)
{
    const auto bracket = what.find("] ");
    return quotedReason(what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos ? what.substr(bracket + 2)
                                                                                              : what);
}

/// A SAX pass that only follows where it is ("a.b[3].c"), to name the value
/// a lexer error (a number too large for a double) stopped at.
class PathTracker final : public nlohmann::json_sax<nlohmann::json> {
public:
    std::string path() const
    {
        std::string out;
        for (const Frame &f : m_frames) {
            if (f.array)
                out += "[" + std::to_string(f.index) + "]";
            else if (!f.key.empty())
                out += (out.empty() ? "" : ".") + f.key;
        }
        return out;
    }
    size_t errorOffset = 0;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t &) override { return value(); }
    bool string(string_t &) override { return value(); }
    bool binary(binary_t &) override { return value(); }
    bool start_object(std::size_t) override
    {
        m_frames.push_back({false, {}, 0});
        return true;
    }
    bool key(string_t &key) override
    {
        m_frames.back().key = key;
        return true;
    }
    bool end_object() override { return end(); }
    bool start_array(std::size_t) override
    {
        m_frames.push_back({true, {}, 0});
        return true;
    }
    bool end_array() override { return end(); }
    bool parse_error(std::size_t position, const std::string &lastToken, const nlohmann::detail::exception &) override
    {
        // position is one past the offending token's last byte: point at its first.
        errorOffset = position > lastToken.size() ? position - lastToken.size() : 0;
        return false;
    }

private:
    struct Frame {
        bool array;
        std::string key;
        size_t index;
    };
    bool value()
    {
        if (!m_frames.empty() && m_frames.back().array)
            ++m_frames.back().index;
        return true;
    }
    bool end()
    {
        m_frames.pop_back();
        return value();
    }
    std::vector<Frame> m_frames;
};

} // namespace

Expected<nlohmann::json> parse(const std::string &text, const std::string &sourceName)
{
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error &e) {
        // nlohmann reports a 1-based byte offset.
        return Error{sourceName + ":" + lineColumn(text, e.byte ? e.byte - 1 : 0)
                     + ": invalid JSON: " + quotedReason(e.what())};
    } catch (const nlohmann::json::exception &e) {
        // A value the lexer cannot represent (out_of_range.406: a number too
        // large for a double, such as 1e999): say where, by JSON path.
        PathTracker tracker;
        nlohmann::json::sax_parse(text, &tracker);
        const std::string path = tracker.path();
        return Error{sourceName + ":" + lineColumn(text, tracker.errorOffset) + ": "
                     + (path.empty() ? std::string() : "at " + oneLine(path) + ": ") + withoutPrefix(e.what())
                     + " (it does not fit a double)"};
    }
}

Expected<std::string> readTextFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open for reading"};
    // A regular file is read once into a string of its size: a stringstream
    // grew by doubling and copied the text out again (3 ms of a 3 MB dump's read).
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size >= 0) {
        std::string text(static_cast<size_t>(size), '\0');
        in.seekg(0, std::ios::beg);
        if (in.read(text.data(), size) && in.gcount() == size)
            return text;
        in.clear();
    }
    // Not seekable (a pipe), or it changed while read: as a stream.
    in.clear();
    in.seekg(0, std::ios::beg);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Status writeTextFile(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary);
    if (!out)
        return Error{path + ": cannot open for writing"};
    out << text;
    out.close();
    if (!out)
        return Error{path + ": write failed (disk full?)"};
    return Status::ok();
}

} // namespace fusebox::json_support
