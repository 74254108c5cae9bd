#pragma once
// Tokenizer for the Python subset that FX dumps are written in (print_readable
// code and str(graph) lines). Internal to core/io's FX text reader.

#include "core/ir/Expected.h"

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::fx {

/// Kinds of tokens. Newline/Indent/Dedent follow Python's rules: no Newline
/// inside brackets, blank and comment-only lines produce nothing.
enum class TokenKind : uint8_t { Name, Int, Float, String, Op, Newline, Indent, Dedent, End };

/// One token. Positions are 1-based and count from the start of the whole text.
/// A token is a view, not a copy: a 100k-node dump holds 1.6 million tokens,
/// so it is kept to 32 bytes (48 before: ~26 MB more for the reader to fault
/// in and free at that size). tokenize() refuses texts of 4 GiB or more and
/// of 2^27 lines or more, the most these fields hold.
struct Token {
    TokenKind kind : 4 = TokenKind::End;
    int line : 28 = 0;
    int column = 0;
    /// The token's text; for strings, the decoded value. It points into the
    /// tokenized text, or into the TokenStream's `decoded` where the text
    /// differs from what is written (escapes, digit separators, hex).
    std::string_view text;
    /// Byte offsets of the token in the text (begin inclusive, end exclusive).
    uint32_t begin = 0;
    uint32_t end = 0;
};
static_assert(sizeof(Token) == 32 || sizeof(void *) != 8, "a dump holds millions of tokens");

/// A '#' comment: FX dumps carry provenance in them ("# File: ...").
struct Comment {
    /// The text after '#', trimmed.
    std::string text;
    int line = 0;
    int column = 0;
    /// True when nothing but indentation precedes it on its line.
    bool ownLine = false;
};

/// What tokenize() returns. Token texts point into the tokenized text and
/// into `decoded`: keep both alive while the tokens are read (moving the
/// stream keeps `decoded`'s strings where they are).
struct TokenStream {
    std::vector<Token> tokens;     // always ends with an End token
    std::vector<Comment> comments; // in text order
    /// Token texts that are not spelled as written, e.g. strings with escapes.
    std::deque<std::string> decoded;
};

/// Options of tokenize().
struct TokenizeOptions {
    /// Where to start (the reader skips log prefixes before the header); the
    /// line holding `start` is treated as unindented.
    size_t start = 0;
    /// str(graph) text: "[#users=1]" is not a comment there.
    bool graphForm = false;
    /// Names the text in errors.
    std::string sourceName;
};

/// Splits text into tokens. Errors read "file:line:column: expected <what>,
/// found <what>" (unterminated strings, stray characters, bad dedents).
Expected<TokenStream> tokenize(std::string_view text, const TokenizeOptions &options);

/// "'x'", "end of line", "end of file", "indentation": how a token is named in
/// "found ..." messages.
std::string describeToken(const Token &token);

/// The text with newlines, tabs and other control characters written as
/// escapes (\n, \t, \x01), so that an error quoting it stays one line.
std::string escapeControlCharacters(std::string_view text);

/// "file:line:column: " for a position.
std::string positionPrefix(const std::string &sourceName, int line, int column);

} // namespace fusebox::fx
