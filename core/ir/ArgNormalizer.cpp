#include "ArgNormalizer.h"

#include <charconv>
#include <string>

namespace fusebox {
namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

std::optional<Arg> parseNumber(std::string_view text)
{
    int64_t i = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
    if (ec == std::errc() && end == text.data() + text.size())
        return Arg(i);
    try {
        size_t used = 0;
        double d = std::stod(std::string(text), &used);
        if (used == text.size())
            return Arg(d);
    } catch (const std::exception &) {
    }
    return std::nullopt;
}

} // namespace

std::optional<Arg> parseSchemaDefault(std::string_view text)
{
    text = trim(text);
    if (text.empty())
        return std::nullopt;
    if (text == "None")
        return Arg(NoneArg{});
    if (text == "True" || text == "False")
        return Arg(text == "True");
    if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
        return Arg(std::string(text.substr(1, text.size() - 2)));
    if (text.front() == '[' && text.back() == ']') {
        std::vector<Arg> items;
        std::string_view inner = trim(text.substr(1, text.size() - 2));
        while (!inner.empty()) {
            auto comma = inner.find(',');
            auto item = parseSchemaDefault(inner.substr(0, comma));
            if (!item)
                return std::nullopt;
            items.push_back(*item);
            if (comma == std::string_view::npos)
                break;
            inner = trim(inner.substr(comma + 1));
        }
        return Arg::list(std::move(items));
    }
    return parseNumber(text);
}

Expected<CallArgs> normalizeCall(const OpSchema &schema, const CallArgs &call)
{
    const std::string op = schema.qualifiedName();
    size_t positionalParams = 0;
    while (positionalParams < schema.arguments.size() && !schema.arguments[positionalParams].kwargOnly)
        ++positionalParams;
    if (call.args.size() > positionalParams)
        return Error{op + ": " + std::to_string(call.args.size()) + " positional arguments, the schema takes "
                     + std::to_string(positionalParams)};

    std::vector<std::optional<Arg>> slots(schema.arguments.size());
    for (size_t i = 0; i < call.args.size(); ++i)
        slots[i] = call.args[i];
    for (const NamedArg &kw : call.kwargs) {
        int index = schema.argumentIndex(kw.name);
        if (index < 0)
            return Error{op + ": unknown keyword '" + kw.name + "'"};
        if (slots[index])
            return Error{op + ": argument '" + kw.name + "' given twice"};
        slots[index] = kw.value;
    }

    CallArgs normalized;
    // Positional parameters up to the last one given; gaps take defaults.
    size_t lastGiven = 0;
    for (size_t i = 0; i < positionalParams; ++i)
        if (slots[i])
            lastGiven = i + 1;
    for (size_t i = 0; i < lastGiven; ++i) {
        if (!slots[i]) {
            const SchemaArgument &param = schema.arguments[i];
            auto fallback = param.defaultValue ? parseSchemaDefault(*param.defaultValue) : std::nullopt;
            if (!fallback)
                return Error{op + ": missing argument '" + param.name + "'"};
            slots[i] = fallback;
        }
        normalized.args.push_back(*slots[i]);
    }
    for (size_t i = lastGiven; i < positionalParams; ++i)
        if (!schema.arguments[i].defaultValue)
            return Error{op + ": missing argument '" + schema.arguments[i].name + "'"};
    for (size_t i = positionalParams; i < schema.arguments.size(); ++i) {
        if (slots[i])
            normalized.kwargs.push_back({schema.arguments[i].name, *slots[i]});
        else if (!schema.arguments[i].defaultValue)
            return Error{op + ": missing keyword argument '" + schema.arguments[i].name + "'"};
    }
    return normalized;
}

} // namespace fusebox
