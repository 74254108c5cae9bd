// The Inductor options a compile ran with, read from its fx_graph_runnable
// payload in a TORCH_TRACE log (TraceCompileOptions.h).
#include "patterns/TraceCompileOptions.h"

#include <cctype>

namespace fusebox {
namespace {

/// A Python literal (dict/list/str/number/True/False/None, as repr writes a
/// config dict) as JSON text; nullopt for anything else.
std::optional<std::string> pythonLiteralAsJson(std::string_view text)
{
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\'' || c == '"') {
            out += '"';
            for (++i; i < text.size() && text[i] != c; ++i) {
                if (text[i] == '\\' && i + 1 < text.size()) {
                    if (text[i + 1] == '\'') {
                        out += '\'';
                    } else {
                        out += text[i];
                        out += text[i + 1];
                    }
                    ++i;
                } else if (text[i] == '"') {
                    out += "\\\"";
                } else {
                    out += text[i];
                }
            }
            if (i >= text.size())
                return std::nullopt;
            out += '"';
        } else if (std::isalpha(static_cast<unsigned char>(c))) {
            size_t end = i;
            while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end])))
                ++end;
            const std::string_view word = text.substr(i, end - i);
            if (word == "True")
                out += "true";
            else if (word == "False")
                out += "false";
            else if (word == "None")
                out += "null";
            else
                return std::nullopt;
            i = end - 1;
        } else if (c == '(' || c == ')') {
            out += c == '(' ? '[' : ']'; // a tuple reads as a list
        } else {
            out += c;
        }
    }
    return out;
}

/// `torch._inductor.config.NAME = VALUE` in fx_graph_runnable's text.
std::optional<std::string> runnableSetting(std::string_view text, std::string_view name)
{
    const std::string key = "torch._inductor.config." + std::string(name) + " = ";
    size_t at = text.find(key);
    if (at == std::string_view::npos)
        return std::nullopt;
    at += key.size();
    const size_t end = text.find('\n', at);
    return std::string(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
}

} // namespace

const TracePayload *graphRunnableOf(const TraceCompile &compile)
{
    const TracePayload *runnable = nullptr;
    for (const TracePayload &payload : compile.payloads)
        if (payload.kind == "fx_graph_runnable")
            runnable = &payload; // the last one, as Inductor wrote it last
    return runnable;
}

Expected<std::optional<PassConfig>> compileOptions(const TraceLog &log, const TraceCompile &compile)
{
    const TracePayload *runnable = graphRunnableOf(compile);
    if (!runnable)
        return std::optional<PassConfig>();
    auto text = readTracePayload(log, *runnable);
    if (!text)
        return text.error();
    std::string json = "{";
    for (const char *name : {"pre_grad_fusion_options", "post_grad_fusion_options"}) {
        auto value = runnableSetting(*text, name);
        if (!value)
            continue;
        auto asJson = pythonLiteralAsJson(*value);
        if (!asJson)
            return Error{log.path + ":" + std::to_string(runnable->line) + ": fx_graph_runnable sets " + name
                         + " to something Fusebox cannot read: " + value->substr(0, 120)};
        json += std::string(json.size() > 1 ? ", " : "") + "\"" + name + "\": " + *asJson;
    }
    json += "}";
    auto config = readPassConfig(json, log.path + ":" + std::to_string(runnable->line) + " (fx_graph_runnable)");
    if (!config)
        return config.error();
    return std::optional<PassConfig>(std::move(*config));
}

} // namespace fusebox
