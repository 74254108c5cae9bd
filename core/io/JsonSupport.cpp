#include "JsonSupport.h"

#include <fstream>
#include <sstream>

namespace fusebox::json_support {

std::string describe(const nlohmann::json &value)
{
    std::string text = value.dump();
    if (text.size() > 40)
        text = text.substr(0, 37) + "...";
    return std::string(value.type_name()) + " " + text;
}

Expected<nlohmann::json> parse(const std::string &text, const std::string &sourceName)
{
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error &e) {
        // nlohmann reports a 1-based byte offset; turn it into line:column.
        const size_t offset = e.byte ? e.byte - 1 : 0;
        size_t line = 1, column = 1;
        for (size_t i = 0; i < offset && i < text.size(); ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string what = e.what();
        auto colon = what.rfind(": ");
        // nlohmann quotes the bytes it stopped at; a broken file's bytes need
        // not be UTF-8, and the message may end up in JSON output.
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
        return Error{sourceName + ":" + std::to_string(line) + ":" + std::to_string(column) + ": invalid JSON: "
                     + quoted};
    }
}

Expected<std::string> readTextFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open for reading"};
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
