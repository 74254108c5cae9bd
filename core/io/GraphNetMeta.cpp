#include "core/ir/GraphBuilder.h"
#include "GraphNetMeta.h"

#include "JsonSupport.h"
#include "core/ir/DType.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fusebox {
namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

/// "[1, 3, 224, 224]" (or "[]") as dimensions; nullopt when it is not a list of ints.
std::optional<std::vector<Dim>> shapeValue(std::string_view v)
{
    if (v.size() < 2 || v.front() != '[' || v.back() != ']')
        return std::nullopt;
    std::vector<Dim> dims;
    std::string_view rest = trimmed(v.substr(1, v.size() - 2));
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view item = trimmed(rest.substr(0, comma));
        if (item.empty() || !std::all_of(item.begin(), item.end(), [](char c) { return std::isdigit(uint8_t(c)); }))
            return std::nullopt;
        dims.push_back(Dim(int64_t(std::stoll(std::string(item)))));
        if (comma == std::string_view::npos)
            break;
        rest = trimmed(rest.substr(comma + 1));
    }
    return dims;
}

} // namespace

namespace {

/// One logical Python line: the physical lines a statement spans while a
/// bracket is open (GraphNet writes `data = [` over many lines and black wraps
/// long names as `name = (` ... `)`), with comments removed.
struct MetaStatement {
    int line = 0; ///< the first physical line, 1-based
    bool indented = false;
    std::string text; ///< joined with single spaces, trimmed
};

/// Splits text into statements; an unclosed bracket or string at the end is an
/// error naming the line it opened on.
Expected<std::vector<MetaStatement>> statements(std::string_view text, const std::string &sourceName)
{
    std::vector<MetaStatement> out;
    MetaStatement current;
    int depth = 0;
    int lineNo = 0;
    int openedOn = 0;
    for (size_t pos = 0; pos <= text.size();) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        std::string code;
        char quote = 0;
        for (size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (quote) {
                code += c;
                if (c == '\\' && i + 1 < line.size())
                    code += line[++i];
                else if (c == quote)
                    quote = 0;
                continue;
            }
            if (c == '#')
                break;
            if (c == '"' || c == '\'')
                quote = c;
            else if (c == '(' || c == '[' || c == '{')
                ++depth;
            else if ((c == ')' || c == ']' || c == '}') && depth > 0)
                --depth;
            code += c;
        }
        if (quote)
            return Error{sourceName + ":" + std::to_string(lineNo)
                         + ": expected the string to close on its line, found '" + std::string(trimmed(line)) + "'"};
        const std::string_view t = trimmed(code);
        if (current.text.empty()) {
            if (t.empty())
                continue;
            current.line = lineNo;
            current.indented = !line.empty() && (line.front() == ' ' || line.front() == '\t');
            openedOn = lineNo;
            current.text = std::string(t);
        } else if (!t.empty()) {
            current.text += ' ';
            current.text += t;
        }
        if (depth == 0) {
            out.push_back(std::move(current));
            current = {};
        }
    }
    if (!current.text.empty())
        return Error{sourceName + ":" + std::to_string(openedOn) + ": expected a closing bracket for '"
                     + current.text.substr(0, 60) + "', found the end of the file"};
    return out;
}

/// A Python string: one literal, or adjacent literals in parentheses
/// ("(\"L_self_\" \"modules_\")" as black wraps a long name); nullopt otherwise.
std::optional<std::string> stringValue(std::string_view v)
{
    v = trimmed(v);
    if (v.size() >= 2 && v.front() == '(' && v.back() == ')')
        v = trimmed(v.substr(1, v.size() - 2));
    std::string out;
    bool any = false;
    while (!v.empty()) {
        const char q = v.front();
        if (q != '"' && q != '\'')
            return std::nullopt;
        const size_t close = v.find(q, 1);
        if (close == std::string_view::npos)
            return std::nullopt;
        out += v.substr(1, close - 1);
        any = true;
        v = trimmed(v.substr(close + 1));
    }
    if (!any)
        return std::nullopt;
    return out;
}

} // namespace

Expected<GraphNetTensorMeta> parseGraphNetMeta(std::string_view text, const std::string &sourceName)
{
    auto parsed = statements(text, sourceName);
    if (!parsed)
        return parsed.error();
    GraphNetTensorMeta out;
    std::string name;
    TensorMeta meta;
    bool inClass = false;
    auto flush = [&] {
        if (inClass && !name.empty())
            out[name] = meta;
        name.clear();
        meta = {};
    };
    for (const MetaStatement &st : *parsed) {
        const std::string_view t = st.text;
        auto fail = [&](const std::string &what) {
            return Error{sourceName + ":" + std::to_string(st.line) + ": expected " + what + ", found '"
                         + std::string(t.substr(0, 120)) + "'"};
        };
        if (!st.indented) {
            flush();
            inClass = t.starts_with("class ") && t.ends_with(":");
            if (!inClass && !t.starts_with("import ") && !t.starts_with("from "))
                return fail("'class Program_weight_tensor_meta_<name>:'");
            continue;
        }
        if (!inClass)
            return fail("an attribute inside a class");
        const size_t eq = t.find('=');
        if (eq == std::string_view::npos)
            return fail("'<attribute> = <value>'");
        const std::string_view key = trimmed(t.substr(0, eq));
        const std::string_view value = trimmed(t.substr(eq + 1));
        if (key == "name") {
            auto s = stringValue(value);
            if (!s)
                return fail("a quoted name");
            name = *s;
        } else if (key == "shape") {
            auto dims = shapeValue(value);
            if (!dims)
                return fail("a shape such as [1, 3, 224, 224]");
            meta.shape = std::move(*dims);
        } else if (key == "dtype") {
            auto s = stringValue(value);
            auto dtype = s ? parseDType(*s) : std::nullopt;
            if (!dtype)
                return fail("a dtype such as \"torch.float32\"");
            meta.dtype = *dtype;
        } else if (key == "device") {
            if (auto s = stringValue(value))
                meta.device = *s;
        }
        // original_name, mean, std, data, min_val, max_val: not graph metadata.
    }
    flush();
    return out;
}

void applyGraphNetMeta(LoadedModel &model, const std::string &modelPath)
{
    const std::filesystem::path dir = std::filesystem::path(modelPath).parent_path();
    for (const char *file : {"weight_meta.py", "input_meta.py"}) {
        const std::string path = (dir / file).string();
        std::error_code ec;
        if (!std::filesystem::exists(path, ec))
            continue;
        auto text = json_support::readTextFile(path);
        if (!text)
            continue;
        auto metas = parseGraphNetMeta(*text, path);
        if (!metas) {
            model.warnings.push_back(metas.error().message + "; its shapes are not used");
            continue;
        }
        // Shapes the loader adds to the graph it has just read.
        GraphBuilder build = GraphBuilder::reopen(model.graph);
        for (NodeId id : model.graph.inputs()) {
            Node &input = build.node(id);
            auto it = metas->find(input.name);
            if (it == metas->end() || input.type != "Tensor" || !it->second.shape)
                continue;
            if (input.meta.shape && *input.meta.shape != *it->second.shape)
                model.warnings.push_back(path + ": " + input.name + " has shape " + it->second.toString()
                                         + " there, but the graph records " + input.meta.toString()
                                         + "; the graph's is kept");
            else if (!input.meta.shape)
                input.meta = it->second;
        }
    }
}

} // namespace fusebox
