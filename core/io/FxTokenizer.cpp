#include "FxTokenizer.h"

#include "FxTargets.h"

#include <algorithm>
#include <cctype>

namespace fusebox::fx {

std::string positionPrefix(const std::string &sourceName, int line, int column)
{
    return (sourceName.empty() ? std::string("<fx>") : sourceName) + ":" + std::to_string(line) + ":"
           + std::to_string(column) + ": ";
}

std::string escapeControlCharacters(std::string_view text)
{
    std::string out;
    for (unsigned char c : text) {
        if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            static const char *hex = "0123456789abcdef";
            out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
        } else
            out += static_cast<char>(c);
    }
    return out;
}

std::string describeToken(const Token &token)
{
    switch (token.kind) {
    case TokenKind::Newline: return "end of line";
    case TokenKind::Indent: return "indentation";
    case TokenKind::Dedent: return "end of block";
    case TokenKind::End: return "end of file";
    case TokenKind::String: return "string '" + escapeControlCharacters(token.text.substr(0, 40)) + "'";
    default: return "'" + escapeControlCharacters(token.text.substr(0, 40)) + "'";
    }
}

namespace {

// ASCII only, without the C locale's table lookups (called once per byte of a dump).
bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}
bool isNameStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isNameChar(char c)
{
    return isNameStart(c) || isDigit(c);
}

/// How many characters of `text` (at most 3) the operator at its start
/// takes when it is one of Python's two- or three-character operators, else 1.
size_t operatorLength(std::string_view text)
{
    if (text.size() < 2)
        return 1;
    const char a = text[0], b = text[1];
    const bool third = text.size() > 2 && text[2] == '=';
    switch (a) {
    case '*': return b == '*' ? (third ? 3 : 2) : b == '=' ? 2 : 1; // ** **= *=
    case '/': return b == '/' ? (third ? 3 : 2) : b == '=' ? 2 : 1; // // //= /=
    case '-': return b == '>' || b == '=' ? 2 : 1;                  // -> -=
    case '<': return b == '=' || b == '<' ? 2 : 1;                  // <= <<
    case '>': return b == '=' || b == '>' ? 2 : 1;                  // >= >>
    case '=':
    case '!':
    case '+':
    case '@':
    case '%': return b == '=' ? 2 : 1; // == != += @= %=
    default: return 1;
    }
}

class Tokenizer {
public:
    Tokenizer(std::string_view text, const TokenizeOptions &options)
        : m_text(text)
        , m_options(options)
    {}

    Expected<TokenStream> run()
    {
        // Token's positions are 32-bit (and its line 28-bit): refuse what they cannot hold.
        if (m_text.size() >= UINT32_MAX)
            return Error{positionPrefix(m_options.sourceName, 1, 1) + "expected a text under 4 GiB, found "
                         + std::to_string(m_text.size()) + " bytes"};
        m_pos = std::min(m_options.start, m_text.size());
        // About one token per 9 bytes in Dynamo dumps, more in dense code: the
        // reservation is only touched as far as it is used.
        m_out.tokens.reserve((m_text.size() - m_pos) / 5 + 16);
        m_line = 1 + static_cast<int>(std::count(m_text.begin(), m_text.begin() + m_pos, '\n'));
        m_lineStart = m_text.rfind('\n', m_pos == 0 ? 0 : m_pos - 1);
        m_lineStart = (m_pos == 0 || m_lineStart == std::string_view::npos) ? 0 : m_lineStart + 1;
        bool firstLine = true;
        while (m_pos < m_text.size()) {
            if (m_line >= kMaxLines) // (a token spanning lines is re-checked here, before any use)
                return Error{positionPrefix(m_options.sourceName, 1, 1) + "expected a text of fewer than "
                             + std::to_string(kMaxLines) + " lines"};
            if (!lineStart(firstLine))
                return Error{m_error};
            firstLine = false;
            if (!restOfLine())
                return Error{m_error};
        }
        if (!m_out.tokens.empty() && m_out.tokens.back().kind != TokenKind::Newline
            && m_out.tokens.back().kind != TokenKind::Dedent)
            push(TokenKind::Newline, "", m_pos, m_pos);
        while (m_indents.size() > 1) {
            m_indents.pop_back();
            push(TokenKind::Dedent, "", m_pos, m_pos);
        }
        push(TokenKind::End, "", m_pos, m_pos);
        return std::move(m_out);
    }

private:
    static constexpr int kMaxLines = (1 << 27) - 1; // Token::line's 28 bits

    int column(size_t offset) const { return static_cast<int>(offset - m_lineStart) + 1; }

    /// Appends a token whose text is `text` (a view into m_text or decoded).
    void push(TokenKind kind, std::string_view text, size_t begin, size_t end)
    {
        m_out.tokens.push_back(
            Token{kind, m_line, column(begin), text, static_cast<uint32_t>(begin), static_cast<uint32_t>(end)});
    }
    /// Appends a token spelled differently from the text it covers.
    void pushDecoded(TokenKind kind, std::string text, size_t begin, size_t end)
    {
        push(kind, m_out.decoded.emplace_back(std::move(text)), begin, end);
    }

    bool fail(size_t offset, const std::string &expected, const std::string &found)
    {
        m_error = positionPrefix(m_options.sourceName, m_line, column(offset)) + "expected " + expected + ", found "
                  + found;
        return false;
    }

    /// Measures indentation; emits Indent/Dedent for lines holding code.
    bool lineStart(bool firstLine)
    {
        if (m_depth > 0)
            return true; // inside brackets indentation means nothing
        size_t p = m_pos;
        int width = 0;
        while (p < m_text.size() && (m_text[p] == ' ' || m_text[p] == '\t' || m_text[p] == '\r')) {
            width = m_text[p] == '\t' ? (width / 8 + 1) * 8 : width + (m_text[p] == ' ' ? 1 : 0);
            ++p;
        }
        if (p >= m_text.size() || m_text[p] == '\n' || m_text[p] == '#')
            return true; // blank or comment-only lines do not change indentation
        if (firstLine)
            width = 0;
        if (width > m_indents.back()) {
            m_indents.push_back(width);
            push(TokenKind::Indent, "", p, p);
        } else {
            while (width < m_indents.back()) {
                m_indents.pop_back();
                push(TokenKind::Dedent, "", p, p);
            }
            if (width != m_indents.back())
                return fail(p, "indentation of " + std::to_string(m_indents.back()) + " spaces", std::to_string(width));
        }
        return true;
    }

    bool restOfLine()
    {
        bool sawCode = false;
        while (m_pos < m_text.size()) {
            char c = m_text[m_pos];
            if (c == '\n') {
                if (m_depth == 0 && sawCode)
                    push(TokenKind::Newline, "", m_pos, m_pos + 1);
                ++m_pos;
                ++m_line;
                m_lineStart = m_pos;
                return true;
            }
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
                ++m_pos;
                continue;
            }
            if (c == '\\' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n') {
                m_pos += 2; // explicit line continuation
                ++m_line;
                m_lineStart = m_pos;
                continue;
            }
            if (c == '#' && !(m_options.graphForm && m_pos > 0 && m_text[m_pos - 1] == '[')) {
                comment(sawCode);
                continue;
            }
            sawCode = true;
            if (!token())
                return false;
        }
        if (m_depth == 0 && sawCode)
            push(TokenKind::Newline, "", m_pos, m_pos);
        return true;
    }

    void comment(bool afterCode)
    {
        size_t begin = m_pos;
        size_t end = m_text.find('\n', m_pos);
        if (end == std::string_view::npos)
            end = m_text.size();
        std::string_view body = m_text.substr(begin + 1, end - begin - 1);
        while (!body.empty() && (body.front() == ' ' || body.front() == '\t'))
            body.remove_prefix(1);
        while (!body.empty() && (body.back() == ' ' || body.back() == '\r' || body.back() == '\t'))
            body.remove_suffix(1);
        m_out.comments.push_back(Comment{std::string(body), m_line, column(begin), !afterCode});
        m_pos = end;
    }

    bool token()
    {
        const size_t begin = m_pos;
        const char c = m_text[m_pos];
        if (isNameStart(c)) {
            while (m_pos < m_text.size() && isNameChar(m_text[m_pos]))
                ++m_pos;
            push(TokenKind::Name, m_text.substr(begin, m_pos - begin), begin, m_pos);
            return true;
        }
        if (isDigit(c) || (c == '.' && m_pos + 1 < m_text.size() && isDigit(m_text[m_pos + 1])))
            return number();
        if (c == '\'' || c == '"')
            return string();
        // Two- and three-character operators, among them the augmented
        // assignments (`out += identity`, torchvision's residuals in Dynamo graphs).
        if (size_t length = operatorLength(m_text.substr(m_pos, 3)); length > 1) {
            m_pos += length;
            push(TokenKind::Op, m_text.substr(begin, length), begin, m_pos);
            return true;
        }
        static constexpr std::string_view kOne = "()[]{},:;.=+-*/@%<>~&|^!#";
        if (kOne.find(c) == std::string_view::npos) {
            std::string shown = std::isprint(static_cast<unsigned char>(c)) ? std::string("'") + c + "'"
                                                                            : "byte " + std::to_string(int(uint8_t(c)));
            return fail(begin, "a token", shown);
        }
        if (c == '(' || c == '[' || c == '{')
            ++m_depth;
        else if ((c == ')' || c == ']' || c == '}') && m_depth > 0)
            --m_depth;
        ++m_pos;
        push(TokenKind::Op, m_text.substr(begin, 1), begin, m_pos);
        if (c == ';' && m_depth == 0 && !m_options.graphForm)
            skipValueRelease();
        return true;
    }

    /// After a ';': skips statements `a = b = ... = None` up to the end of
    /// line or comment after them, each with the ';' that ends it, as the
    /// parser would skip them (Parser::skipValueRelease: it builds nothing for
    /// them). Dynamo code ends nearly every line with one; not making their
    /// tokens saves a sixth of a dump's. Only the plain form is skipped (ASCII
    /// names, spaces between tokens): anything else is tokenized and left to
    /// the parser.
    void skipValueRelease()
    {
        while (true) {
            size_t p = m_pos;
            auto spaces = [&] {
                while (p < m_text.size() && (m_text[p] == ' ' || m_text[p] == '\t'))
                    ++p;
            };
            auto name = [&]() -> std::string_view {
                const size_t begin = p;
                if (p < m_text.size() && isNameStart(m_text[p]))
                    while (p < m_text.size() && isNameChar(m_text[p]))
                        ++p;
                return m_text.substr(begin, p - begin);
            };
            spaces();
            int targets = 0;
            while (true) {
                const std::string_view n = name();
                if (n.empty())
                    return;
                spaces();
                if (n == "None" && targets > 0)
                    break;
                // A plain name then '=' (not '=='): one more target.
                if (isPythonKeyword(n) || p + 1 >= m_text.size() || m_text[p] != '=' || m_text[p + 1] == '=')
                    return;
                ++p;
                ++targets;
                spaces();
            }
            if (p < m_text.size() && m_text[p] == ';') {
                m_pos = p + 1; // its ';' goes with it: the next statement follows the ';' before it
                continue;
            }
            const bool endsLine = p == m_text.size() || m_text[p] == '\n' || m_text[p] == '#'
                                  || (m_text[p] == '\r' && p + 1 < m_text.size() && m_text[p + 1] == '\n');
            if (endsLine)
                m_pos = p;
            return;
        }
    }

    bool number()
    {
        const size_t begin = m_pos;
        if (m_text.substr(m_pos, 2) == "0x" || m_text.substr(m_pos, 2) == "0X") {
            // Hex appears in object reprs of old str(graph) targets ("at 0x7f...").
            m_pos += 2;
            uint64_t value = 0;
            while (m_pos < m_text.size() && std::isxdigit(static_cast<unsigned char>(m_text[m_pos])))
                value = value * 16 + uint64_t(std::stoi(std::string(1, m_text[m_pos++]), nullptr, 16));
            pushDecoded(TokenKind::Int, std::to_string(value), begin, m_pos);
            return true;
        }
        bool isFloat = false;
        while (m_pos < m_text.size() && (isDigit(m_text[m_pos]) || m_text[m_pos] == '_'))
            ++m_pos;
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            isFloat = true;
            ++m_pos;
            while (m_pos < m_text.size() && isDigit(m_text[m_pos]))
                ++m_pos;
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            size_t p = m_pos + 1;
            if (p < m_text.size() && (m_text[p] == '+' || m_text[p] == '-'))
                ++p;
            if (p < m_text.size() && isDigit(m_text[p])) {
                isFloat = true;
                m_pos = p;
                while (m_pos < m_text.size() && isDigit(m_text[m_pos]))
                    ++m_pos;
            }
        }
        if (m_pos < m_text.size() && isNameChar(m_text[m_pos]))
            return fail(begin, "a number", "'" + std::string(m_text.substr(begin, m_pos - begin + 1)) + "'");
        const TokenKind kind = isFloat ? TokenKind::Float : TokenKind::Int;
        std::string_view written = m_text.substr(begin, m_pos - begin);
        if (written.find('_') == std::string_view::npos) {
            push(kind, written, begin, m_pos);
        } else {
            std::string text(written);
            std::erase(text, '_');
            pushDecoded(kind, std::move(text), begin, m_pos);
        }
        return true;
    }

    bool string()
    {
        const size_t begin = m_pos;
        const int startLine = m_line, startColumn = column(begin);
        const char quote = m_text[m_pos++];
        // Most strings (annotations, names) have no escape: their token views the text.
        for (size_t p = m_pos; p < m_text.size() && m_text[p] != '\n'; ++p) {
            if (m_text[p] == '\\')
                break;
            if (m_text[p] == quote) {
                m_pos = p + 1;
                push(TokenKind::String, m_text.substr(begin + 1, p - begin - 1), begin, m_pos);
                return true;
            }
        }
        std::string value;
        while (true) {
            if (m_pos >= m_text.size() || m_text[m_pos] == '\n')
                return fail(m_pos, std::string("a closing ") + quote,
                            m_pos >= m_text.size() ? "end of file" : "end of line");
            char c = m_text[m_pos++];
            if (c == quote)
                break;
            if (c != '\\') {
                value += c;
                continue;
            }
            if (m_pos >= m_text.size())
                continue;
            char e = m_text[m_pos++];
            switch (e) {
            case 'n': value += '\n'; break;
            case 't': value += '\t'; break;
            case 'r': value += '\r'; break;
            case '0': value += '\0'; break;
            case 'x':
                if (m_pos + 2 <= m_text.size() && std::isxdigit(static_cast<unsigned char>(m_text[m_pos]))
                    && std::isxdigit(static_cast<unsigned char>(m_text[m_pos + 1]))) {
                    value += static_cast<char>(std::stoi(std::string(m_text.substr(m_pos, 2)), nullptr, 16));
                    m_pos += 2;
                } else {
                    value += "\\x";
                }
                break;
            case '\n':
                ++m_line;
                m_lineStart = m_pos;
                break;
            default: value += e; break; // \\ \' \" and unknown escapes keep the character
            }
        }
        pushDecoded(TokenKind::String, std::move(value), begin, m_pos);
        // A string continued over lines (a backslash before the newline) is
        // where it starts, not where it ends.
        m_out.tokens.back().line = startLine;
        m_out.tokens.back().column = startColumn;
        return true;
    }

    std::string_view m_text;
    const TokenizeOptions &m_options;
    size_t m_pos = 0;
    size_t m_lineStart = 0;
    int m_line = 1;
    int m_depth = 0;
    std::vector<int> m_indents{0};
    TokenStream m_out;
    std::string m_error;
};

} // namespace

Expected<TokenStream> tokenize(std::string_view text, const TokenizeOptions &options)
{
    return Tokenizer(text, options).run();
}

} // namespace fusebox::fx
