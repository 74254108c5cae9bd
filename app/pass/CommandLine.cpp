#include "CommandLine.h"

#include <algorithm>
#include <charconv>

namespace fusebox::cli {

std::optional<std::string> ParsedArgs::value(const std::string &name) const
{
    auto it = options.find(name);
    if (it == options.end() || it->second.empty())
        return std::nullopt;
    return it->second.back();
}

std::vector<std::string> ParsedArgs::values(const std::string &name) const
{
    auto it = options.find(name);
    return it == options.end() ? std::vector<std::string>{} : it->second;
}

std::optional<std::string> parseArgs(const std::vector<std::string> &args, const std::vector<OptionSpec> &specs,
                                     ParsedArgs &out)
{
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &word = args[i];
        if (word.size() < 2 || word[0] != '-' || word == "-") {
            out.positionals.push_back(word);
            continue;
        }
        std::string name = word, inlineValue;
        bool hasInline = false;
        if (auto eq = word.find('='); eq != std::string::npos) {
            name = word.substr(0, eq);
            inlineValue = word.substr(eq + 1);
            hasInline = true;
        }
        auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec &s) { return s.name == name; });
        if (spec == specs.end())
            return "unknown option " + name;
        if (spec->valueName.empty()) {
            if (hasInline)
                return name + " takes no value";
            out.options[name].push_back("");
            continue;
        }
        if (!hasInline) {
            if (i + 1 >= args.size())
                return name + " needs a value (" + spec->valueName + ")";
            inlineValue = args[++i];
        }
        if (!spec->repeatable)
            out.options[name].clear();
        out.options[name].push_back(inlineValue);
    }
    return std::nullopt;
}

std::string formatOptions(const std::vector<OptionSpec> &specs)
{
    std::string text;
    for (const OptionSpec &s : specs) {
        std::string left = "  " + s.name + (s.valueName.empty() ? "" : " " + s.valueName);
        if (left.size() < 26)
            left.resize(26, ' ');
        else
            left += "  ";
        text += left + s.help + "\n";
    }
    return text;
}

std::optional<std::vector<int64_t>> parseShape(const std::string &text)
{
    std::vector<int64_t> shape;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        int64_t size = 0;
        auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), size);
        if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || size < 0)
            return std::nullopt;
        shape.push_back(size);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return shape;
}

} // namespace fusebox::cli
