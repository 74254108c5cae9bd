#include "PatternTokenizer.h"

#include <array>
#include <cctype>

namespace fusebox::patternlang {
namespace {

bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Longest first, so "..." wins over "." and "==" over "=".
constexpr std::array kPunctuation = {"...", "::", "==", "!=", "<=", ">=", ".", "(", ")", "[", "]", "{", "}",
                                     ",", "=", "<", ">", "+", "-", "*", "/", "%", "|"};

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

Expected<std::vector<Token>> tokenizePatternText(std::string_view text, const std::string &sourceName)
{
    std::vector<Token> tokens;
    // Open ( and [ with their positions: newlines inside them are not statement ends.
    std::vector<Token> openBrackets;
    size_t i = 0;
    int line = 1;
    size_t lineStart = 0;
    auto fail = [&](int l, int c, const std::string &problem) {
        return Error{positionPrefix(sourceName, l, c) + problem};
    };
    while (i < text.size()) {
        const char c = text[i];
        const int column = int(i - lineStart) + 1;
        if (c == '\n') {
            if (openBrackets.empty())
                tokens.push_back({TokenKind::Newline, "\n", line, column});
            ++i;
            ++line;
            lineStart = i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
            continue;
        }
        if (c == '#') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            continue;
        }
        if (isNameStart(c)) {
            size_t end = i;
            while (end < text.size() && isNameChar(text[end]))
                ++end;
            tokens.push_back({TokenKind::Name, std::string(text.substr(i, end - i)), line, column});
            i = end;
            continue;
        }
        if (isDigit(c)) {
            size_t end = i;
            while (end < text.size() && isDigit(text[end]))
                ++end;
            bool isFloat = false;
            // A '.' is a decimal point only before a digit: "1...", "x.1" stay apart.
            if (end + 1 < text.size() && text[end] == '.' && isDigit(text[end + 1])) {
                isFloat = true;
                for (++end; end < text.size() && isDigit(text[end]); ++end) {
                }
            }
            if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
                size_t exp = end + 1;
                if (exp < text.size() && (text[exp] == '+' || text[exp] == '-'))
                    ++exp;
                if (exp < text.size() && isDigit(text[exp])) {
                    isFloat = true;
                    for (end = exp; end < text.size() && isDigit(text[end]); ++end) {
                    }
                }
            }
            if (end < text.size() && isNameStart(text[end]))
                return fail(line, column, "malformed number '" + std::string(text.substr(i, end - i + 1)) + "'");
            tokens.push_back({isFloat ? TokenKind::Float : TokenKind::Int, std::string(text.substr(i, end - i)),
                              line, column});
            i = end;
            continue;
        }
        if (c == '"' || c == '\'') {
            std::string value;
            size_t j = i + 1;
            while (j < text.size() && text[j] != c && text[j] != '\n') {
                if (text[j] == '\\' && j + 1 < text.size()) {
                    const char e = text[++j];
                    value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
                } else {
                    value += text[j];
                }
                ++j;
            }
            if (j >= text.size() || text[j] != c)
                return fail(line, column, "unterminated string");
            tokens.push_back({TokenKind::String, std::move(value), line, column});
            i = j + 1;
            continue;
        }
        std::string_view punct;
        for (std::string_view p : kPunctuation)
            if (text.substr(i, p.size()) == p) {
                punct = p;
                break;
            }
        if (punct.empty())
            return fail(line, column, "unexpected character '" + std::string(1, c) + "'");
        Token token{TokenKind::Punct, std::string(punct), line, column};
        if (punct == "(" || punct == "[") {
            openBrackets.push_back(token);
        } else if (punct == ")" || punct == "]") {
            const char *open = punct == ")" ? "(" : "[";
            if (openBrackets.empty())
                return fail(line, column, "unbalanced '" + token.text + "': no '" + open + "' to close");
            if (openBrackets.back().text != open)
                return fail(line, column, "expected '" + std::string(openBrackets.back().text == "(" ? ")" : "]")
                                              + "' to close '" + openBrackets.back().text + "' at "
                                              + std::to_string(openBrackets.back().line) + ":"
                                              + std::to_string(openBrackets.back().column) + ", found '"
                                              + token.text + "'");
            openBrackets.pop_back();
        } else if ((punct == "{" || punct == "}") && !openBrackets.empty()) {
            // Blocks never nest inside a call: report the bracket left open.
            const Token &open = openBrackets.back();
            return fail(open.line, open.column,
                        "unbalanced '" + open.text + "': not closed before '" + token.text + "' at "
                            + std::to_string(line) + ":" + std::to_string(column));
        }
        tokens.push_back(std::move(token));
        i += punct.size();
    }
    if (!openBrackets.empty()) {
        const Token &open = openBrackets.back();
        return fail(open.line, open.column, "unbalanced '" + open.text + "': not closed before end of file");
    }
    const int column = int(i - lineStart) + 1;
    tokens.push_back({TokenKind::Newline, "\n", line, column});
    tokens.push_back({TokenKind::End, "", line, column});
    return tokens;
}

} // namespace fusebox::patternlang
