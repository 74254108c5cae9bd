#include "PatternTokenizer.h"

#include <array>
#include <cctype>

namespace fusebox::patternlang {
namespace {

bool isNameStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool isDigit(char c)
{
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Longest first, so "..." wins over "." and "==" over "=".
constexpr std::array kPunctuation = {"...", "::", "==", "!=", "<=", ">=", ".", "(", ")", "[", "]", "{",
                                     "}",   ",",  "=",  "<",  ">",  "+",  "-", "*", "/", "%", "|"};

} // namespace

std::string positionPrefix(const std::string &sourceName, int line, int column)
{
    return (sourceName.empty() ? std::string("<patterns>") : sourceName) + ":" + std::to_string(line) + ":"
           + std::to_string(column) + ": ";
}

std::string describeToken(const Token &token)
{
    switch (token.kind) {
    case TokenKind::Newline: return "end of line";
    case TokenKind::End: return "end of file";
    case TokenKind::String: {
        // Escaped as written, so that an error quoting a string with "\n" in
        // it stays one line (found by pattern_file_fuzz).
        std::string out = "string \"";
        for (char c : token.text) {
            if (c == '"' || c == '\\')
                out += std::string("\\") + c;
            else if (c == '\n')
                out += "\\n";
            else if (c == '\t')
                out += "\\t";
            else if (static_cast<unsigned char>(c) < 0x20)
                out += std::string("\\x") + "0123456789abcdef"[(c >> 4) & 15] + "0123456789abcdef"[c & 15];
            else
                out += c;
        }
        return out + "\"";
    }
    default: return "'" + token.text + "'";
    }
}

namespace {

/// One pass over a pattern file's text. Each kind of token is read by a
/// method that starts at m_pos and leaves m_pos after the token; a method
/// that finds the text malformed returns the Error.
class PatternLexer {
public:
    PatternLexer(std::string_view text, const std::string &sourceName)
        : m_text(text)
        , m_sourceName(sourceName)
    {}

    Expected<std::vector<Token>> run()
    {
        while (m_pos < m_text.size()) {
            if (auto failed = next(); !failed)
                return failed.error();
        }
        if (!m_openBrackets.empty()) {
            const Token &open = m_openBrackets.back();
            return fail(open.line, open.column, "unbalanced '" + open.text + "': not closed before end of file");
        }
        const int column = int(m_pos - m_lineStart) + 1;
        m_tokens.push_back({TokenKind::Newline, "\n", m_line, column});
        m_tokens.push_back({TokenKind::End, "", m_line, column});
        return std::move(m_tokens);
    }

private:
    Error fail(int line, int column, const std::string &problem) const
    {
        return Error{positionPrefix(m_sourceName, line, column) + problem};
    }

    /// Reads what starts at m_pos: a token, or white space, a comment, a newline.
    Status next()
    {
        const char c = m_text[m_pos];
        const int column = int(m_pos - m_lineStart) + 1;
        if (c == '\n') {
            // Newlines inside ( or [ are not statement ends.
            if (m_openBrackets.empty())
                m_tokens.push_back({TokenKind::Newline, "\n", m_line, column});
            ++m_pos;
            ++m_line;
            m_lineStart = m_pos;
            return {};
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            ++m_pos;
            return {};
        }
        if (c == '#') {
            while (m_pos < m_text.size() && m_text[m_pos] != '\n')
                ++m_pos;
            return {};
        }
        if (isNameStart(c)) {
            size_t end = m_pos;
            while (end < m_text.size() && isNameChar(m_text[end]))
                ++end;
            m_tokens.push_back({TokenKind::Name, std::string(m_text.substr(m_pos, end - m_pos)), m_line, column});
            m_pos = end;
            return {};
        }
        if (isDigit(c))
            return number(column);
        if (c == '"' || c == '\'')
            return string(c, column);
        return punctuation(c, column);
    }

    /// Digits, a fraction only before a digit ("1...", "x.1" stay apart), an exponent.
    Status number(int column)
    {
        size_t end = m_pos;
        auto digits = [&](size_t from) {
            while (from < m_text.size() && isDigit(m_text[from]))
                ++from;
            return from;
        };
        end = digits(end);
        bool isFloat = false;
        if (end + 1 < m_text.size() && m_text[end] == '.' && isDigit(m_text[end + 1])) {
            isFloat = true;
            end = digits(end + 1);
        }
        if (end < m_text.size() && (m_text[end] == 'e' || m_text[end] == 'E')) {
            size_t exp = end + 1;
            if (exp < m_text.size() && (m_text[exp] == '+' || m_text[exp] == '-'))
                ++exp;
            if (exp < m_text.size() && isDigit(m_text[exp])) {
                isFloat = true;
                end = digits(exp);
            }
        }
        if (end < m_text.size() && isNameStart(m_text[end]))
            return fail(m_line, column, "malformed number '" + std::string(m_text.substr(m_pos, end - m_pos + 1)) + "'");
        m_tokens.push_back({isFloat ? TokenKind::Float : TokenKind::Int, std::string(m_text.substr(m_pos, end - m_pos)),
                            m_line, column});
        m_pos = end;
        return {};
    }

    /// A quoted string on one line, with \n, \t and \<char> escapes.
    Status string(char quote, int column)
    {
        std::string value;
        size_t j = m_pos + 1;
        while (j < m_text.size() && m_text[j] != quote && m_text[j] != '\n') {
            if (m_text[j] == '\\' && j + 1 < m_text.size()) {
                const char e = m_text[++j];
                value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            } else {
                value += m_text[j];
            }
            ++j;
        }
        if (j >= m_text.size() || m_text[j] != quote)
            return fail(m_line, column, "unterminated string");
        m_tokens.push_back({TokenKind::String, std::move(value), m_line, column});
        m_pos = j + 1;
        return {};
    }

    /// Punctuation, with ( and [ kept balanced and never open across a block.
    Status punctuation(char c, int column)
    {
        std::string_view punct;
        for (std::string_view p : kPunctuation)
            if (m_text.substr(m_pos, p.size()) == p) {
                punct = p;
                break;
            }
        if (punct.empty())
            return fail(m_line, column, "unexpected character '" + std::string(1, c) + "'");
        Token token{TokenKind::Punct, std::string(punct), m_line, column};
        if (punct == "(" || punct == "[") {
            m_openBrackets.push_back(token);
        } else if (punct == ")" || punct == "]") {
            const char *open = punct == ")" ? "(" : "[";
            if (m_openBrackets.empty())
                return fail(m_line, column, "unbalanced '" + token.text + "': no '" + open + "' to close");
            const Token &last = m_openBrackets.back();
            if (last.text != open)
                return fail(m_line, column,
                            "expected '" + std::string(last.text == "(" ? ")" : "]") + "' to close '" + last.text
                                + "' at " + std::to_string(last.line) + ":" + std::to_string(last.column) + ", found '"
                                + token.text + "'");
            m_openBrackets.pop_back();
        } else if ((punct == "{" || punct == "}") && !m_openBrackets.empty()) {
            // Blocks never nest inside a call: report the bracket left open.
            const Token &open = m_openBrackets.back();
            return fail(open.line, open.column,
                        "unbalanced '" + open.text + "': not closed before '" + token.text + "' at "
                            + std::to_string(m_line) + ":" + std::to_string(column));
        }
        m_tokens.push_back(std::move(token));
        m_pos += punct.size();
        return {};
    }

    std::string_view m_text;
    const std::string &m_sourceName;
    std::vector<Token> m_tokens;
    /// Open ( and [ with their positions.
    std::vector<Token> m_openBrackets;
    size_t m_pos = 0;
    int m_line = 1;
    size_t m_lineStart = 0;
};

} // namespace

Expected<std::vector<Token>> tokenizePatternText(std::string_view text, const std::string &sourceName)
{
    return PatternLexer(text, sourceName).run();
}

} // namespace fusebox::patternlang
