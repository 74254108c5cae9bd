#pragma once
// Tokens of the pattern language. Internal to core/io's pattern file reader.

#include "core/ir/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace fusebox::patternlang {

/// Newline ends a statement; the tokenizer drops newlines inside () and []
/// so long calls may wrap, and the parser skips blank ones.
enum class TokenKind { Name, Int, Float, String, Punct, Newline, End };

/// One token; line and column are 1-based.
struct Token {
    TokenKind kind = TokenKind::End;
    /// The text as written; for strings, the decoded value.
    std::string text;
    int line = 0;
    int column = 0;
    bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
    bool isPunct(std::string_view t) const { return is(TokenKind::Punct, t); }
};

/// Splits text into tokens (the last is End). Punctuation: `:: ... . ( ) [ ]
/// { } , = == != < <= > >= + - * / % |`. Errors are "source:line:column:
/// problem" (unterminated string, stray character, unbalanced bracket).
Expected<std::vector<Token>> tokenizePatternText(std::string_view text, const std::string &sourceName);

/// How a token is named in "found ..." messages: "'x'", "end of line", "end of file".
std::string describeToken(const Token &token);

/// "source:line:column: ".
std::string positionPrefix(const std::string &sourceName, int line, int column);

} // namespace fusebox::patternlang
