#include "FxAnnotation.h"

#include "core/ir/DType.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace fusebox::fx {
namespace {

/// PyTorch's dtype abbreviations (torch/_subclasses/fake_tensor / fx graph
/// printing) that DType has no value for: read as Unknown with a warning.
constexpr std::array<std::string_view, 11> kUnrepresented = {
    "u16", "u32", "u64", "f8e4m3fnuz", "f8e5m2fnuz", "f8e8m0fnu", "f4e2m1fnx2", "b16", "b1x8", "b2x4", "b4x2",
};

bool isLower(char c)
{
    return c >= 'a' && c <= 'z';
}
bool isIdentChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

class AnnotationParser {
public:
    AnnotationParser(std::string_view text, AnnotationError &error)
        : m_text(text)
        , m_error(error)
    {}

    std::optional<ParsedAnnotation> run()
    {
        ParsedAnnotation out;
        skipSpaces();
        if (m_pos >= m_text.size())
            return fail("an annotation", "nothing");
        if (m_text.substr(m_pos).starts_with("Sym(")) {
            size_t close = m_text.rfind(')');
            if (close == std::string_view::npos || close < m_pos + 4)
                return fail("')' to close 'Sym('", "end of annotation", m_text.size());
            out.type = "SymInt";
            out.symbol = std::string(m_text.substr(m_pos + 4, close - m_pos - 4));
            m_pos = close + 1;
            return finish(out);
        }
        if (auto wrapped = wrappedAnnotation())
            return wrapped;
        if (m_failed)
            return std::nullopt;
        if (auto python = pythonType(trimmedRest())) {
            // Dynamo and GraphNet annotate with Python types: no dtype or shape.
            out.type = *python;
            return out;
        }
        if (std::isupper(static_cast<unsigned char>(m_text[m_pos])) || isPlainType()) {
            out.type = std::string(trimmedRest());
            return out;
        }
        size_t start = m_pos;
        if (m_text[m_pos] == '?') {
            ++m_pos;
        } else {
            while (m_pos < m_text.size() && isIdentChar(m_text[m_pos]))
                ++m_pos;
            std::string_view name = m_text.substr(start, m_pos - start);
            if (name.empty())
                return fail("a dtype abbreviation (f32, bf16, i64, ...)", quoted(m_text.substr(start, 1)), start);
            auto dtype = name.size() <= 10 && isLower(name[0]) ? parseDType(name) : std::nullopt;
            if (dtype && shortName(*dtype) == name) {
                out.meta.dtype = *dtype;
            } else if (std::find(kUnrepresented.begin(), kUnrepresented.end(), name) != kUnrepresented.end()) {
                out.unsupportedDType = std::string(name);
            } else {
                return fail("a dtype abbreviation (f32, bf16, i64, ...)", quoted(name), start);
            }
        }
        if (m_pos >= m_text.size())
            return out;
        if (m_text[m_pos] != '[')
            return fail("'[' after the dtype", quoted(m_text.substr(m_pos, 1)));
        std::vector<Dim> shape;
        if (!dims(shape, true))
            return std::nullopt;
        out.meta.shape = std::move(shape);
        if (m_pos < m_text.size() && m_text[m_pos] == '[') {
            std::vector<Dim> strides;
            if (!dims(strides, false))
                return std::nullopt;
            std::vector<int64_t> ints;
            for (const Dim &d : strides)
                if (const auto *i = std::get_if<int64_t>(&d))
                    ints.push_back(*i);
            // Symbolic strides have no place in TensorMeta: keep none rather than a wrong list.
            if (ints.size() == strides.size())
                out.meta.strides = std::move(ints);
        }
        if (m_pos < m_text.size()) {
            size_t devStart = m_pos;
            while (m_pos < m_text.size() && (isIdentChar(m_text[m_pos]) || m_text[m_pos] == ':'))
                ++m_pos;
            std::string_view device = m_text.substr(devStart, m_pos - devStart);
            if (device.empty() || !isLower(device[0]))
                return fail("a device (cpu, cuda:0) or the end of the annotation", quoted(m_text.substr(devStart, 1)),
                            devStart);
            out.meta.device = std::string(device);
        }
        return finish(out);
    }

private:
    /// "Parameter(f32[32, 16][16, 1]cpu)" or "Buffer(...)": the inner
    /// annotation, with the wrapper's name kept. torch 2.14 prints lifted
    /// parameters so; reading the whole as a type name lost every weight's
    /// shape. An inner text that does not parse is an error at its offset.
    std::optional<ParsedAnnotation> wrappedAnnotation()
    {
        const std::string_view rest = trimmedRest();
        for (std::string_view wrapper : {"Parameter", "Buffer"}) {
            if (!rest.starts_with(wrapper) || rest.size() < wrapper.size() + 2 || rest[wrapper.size()] != '('
                || rest.back() != ')')
                continue;
            const size_t innerStart = m_pos + wrapper.size() + 1;
            const std::string_view inner = rest.substr(wrapper.size() + 1, rest.size() - wrapper.size() - 2);
            AnnotationError innerError;
            auto parsed = AnnotationParser(inner, innerError).run();
            if (!parsed) {
                m_failed = true;
                fail(innerError.expected, innerError.found, innerStart + innerError.offset);
                return std::nullopt;
            }
            if (parsed->type != "Tensor") {
                m_failed = true;
                fail("a tensor annotation inside '" + std::string(wrapper) + "('", quoted(inner), innerStart);
                return std::nullopt;
            }
            parsed->wrapper = std::string(wrapper);
            return parsed;
        }
        return std::nullopt;
    }

    static std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

    std::optional<ParsedAnnotation> fail(const std::string &expected, const std::string &found)
    {
        return fail(expected, found, m_pos);
    }
    std::optional<ParsedAnnotation> fail(const std::string &expected, const std::string &found, size_t at)
    {
        m_error = AnnotationError{at, expected, found};
        return std::nullopt;
    }

    std::optional<ParsedAnnotation> finish(ParsedAnnotation &out)
    {
        skipSpaces();
        if (m_pos < m_text.size())
            return fail("the end of the annotation", quoted(m_text.substr(m_pos)));
        return std::move(out);
    }

    void skipSpaces()
    {
        while (m_pos < m_text.size() && m_text[m_pos] == ' ')
            ++m_pos;
    }

    std::string_view trimmedRest() const
    {
        std::string_view r = m_text.substr(m_pos);
        while (!r.empty() && r.back() == ' ')
            r.remove_suffix(1);
        return r;
    }

    /// The value type a Python type annotation names: torch.Tensor and
    /// torch.nn.parameter.Parameter (also torch.nn.Parameter) are tensors,
    /// torch.SymInt/SymFloat/SymBool symbolic scalars; nullopt for other text.
    static std::optional<std::string> pythonType(std::string_view t)
    {
        for (std::string_view tensor : {"torch.Tensor", "torch.nn.parameter.Parameter", "torch.nn.Parameter",
                                        "torch.nn.parameter.Buffer", "torch.FloatTensor", "torch.LongTensor"})
            if (t == tensor)
                return std::string("Tensor");
        if (t == "torch.SymInt")
            return std::string("SymInt");
        if (t == "torch.SymFloat")
            return std::string("SymFloat");
        if (t == "torch.SymBool")
            return std::string("SymBool");
        return std::nullopt;
    }

    bool isPlainType() const
    {
        std::string_view r = trimmedRest();
        for (std::string_view t : {"int", "float", "bool", "str", "complex", "number"})
            if (r == t)
                return true;
        return false;
    }

    /// "[a, b, ...]": ints, or symbolic expressions when allowed ("s0", "2*s1 + 1").
    bool dims(std::vector<Dim> &out, bool isShape)
    {
        ++m_pos; // '['
        skipSpaces();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return true;
        }
        while (true) {
            skipSpaces();
            size_t begin = m_pos;
            int depth = 0;
            while (m_pos < m_text.size() && !((m_text[m_pos] == ',' || m_text[m_pos] == ']') && depth == 0)) {
                if (m_text[m_pos] == '(')
                    ++depth;
                else if (m_text[m_pos] == ')')
                    --depth;
                else if (m_text[m_pos] == '[')
                    break;
                ++m_pos;
            }
            std::string_view dim = m_text.substr(begin, m_pos - begin);
            while (!dim.empty() && dim.back() == ' ')
                dim.remove_suffix(1);
            if (dim.empty()) {
                fail(isShape ? "a dimension" : "a stride",
                     m_pos >= m_text.size() ? "end of annotation" : quoted(m_text.substr(m_pos, 1)));
                return false;
            }
            int64_t value = 0;
            auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), value);
            if (ec == std::errc() && end == dim.data() + dim.size())
                out.emplace_back(value);
            else if (std::isalpha(static_cast<unsigned char>(dim[0])) || dim[0] == '(' || dim[0] == '-'
                     || std::isdigit(static_cast<unsigned char>(dim[0])))
                out.emplace_back(std::string(dim));
            else {
                fail(isShape ? "a dimension" : "a stride", quoted(dim), begin);
                return false;
            }
            if (m_pos >= m_text.size()) {
                fail("']'", "end of annotation");
                return false;
            }
            if (m_text[m_pos] == ']') {
                ++m_pos;
                return true;
            }
            if (m_text[m_pos] != ',') {
                fail("',' or ']'", quoted(m_text.substr(m_pos, 1)));
                return false;
            }
            ++m_pos;
        }
    }

    std::string_view m_text;
    AnnotationError &m_error;
    size_t m_pos = 0;
    bool m_failed = false;
};

} // namespace

std::optional<ParsedAnnotation> parseAnnotation(std::string_view text, AnnotationError &error)
{
    return AnnotationParser(text, error).run();
}

std::string formatAnnotation(const TensorMeta &meta)
{
    if (!meta.isKnown())
        return {};
    std::string s(shortName(meta.dtype));
    if (!meta.shape)
        return s;
    s += meta.shapeString();
    if (meta.strides) {
        s += "[";
        for (size_t i = 0; i < meta.strides->size(); ++i)
            s += (i ? ", " : "") + std::to_string((*meta.strides)[i]);
        s += "]";
    }
    return s + meta.device;
}

} // namespace fusebox::fx
