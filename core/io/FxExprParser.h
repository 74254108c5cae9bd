#pragma once
// Recursive-descent parser for the expressions of FX dumps: the token cursor
// and the expression grammar shared by the print_readable parser (FxParser.cpp)
// and the str(graph) parser (FxGraphStringParser.cpp). Internal to core/io.

#include "FxParser.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::fx {

/// s without leading and trailing spaces, tabs and carriage returns.
std::string_view trimmed(std::string_view s);

/// Token cursor, error reporting and the expression grammar; the statement
/// parsers derive from it. Every parse method reports the first error into
/// m_error and returns false (or null).
class ExprParser {
protected:
    /// Parses the tokens of `text` (stream's comments are left to the
    /// caller); sourceName names the text in errors.
    ExprParser(std::string_view text, TokenStream &stream, std::string sourceName)
        : m_text(text)
        , m_ownTokens(std::move(stream.tokens))
        , m_tokens(m_ownTokens)
        , m_stores{std::make_shared<ExprStore>()}
        , m_store(*m_stores.back())
        , m_sourceName(std::move(sourceName))
    {
        // Decoded token texts are viewed by the expressions made of them.
        m_store.texts = std::move(stream.decoded);
    }
    /// A parser over `other`'s text and tokens (not copied; `other` must
    /// outlive it), its cursor at token `pos`: a parse running beside `other`,
    /// into a store of its own (takeStores() hands it to `other`'s result).
    ExprParser(const ExprParser &other, size_t pos)
        : m_text(other.m_text)
        , m_tokens(other.m_tokens)
        , m_stores{std::make_shared<ExprStore>()}
        , m_store(*m_stores.back())
        , m_sourceName(other.m_sourceName)
        , m_pos(pos)
        , m_graphForm(other.m_graphForm)
    {}
    ExprParser(const ExprParser &) = delete;
    ExprParser &operator=(const ExprParser &) = delete;

    /// A new expression, in this parse's store.
    ExprPtr make(Expr e) { return m_store.make(std::move(e)); }
    /// The stores this parser's expressions live in (its own and those of
    /// parsers that ran beside it), for the FxFunction that holds them.
    std::vector<std::shared_ptr<ExprStore>> takeStores() { return std::move(m_stores); }

    // --- token helpers -------------------------------------------------------
    /// The token `ahead` tokens past the cursor (the End token past the end).
    const Token &peek(size_t ahead = 0) const { return m_tokens[std::min(m_pos + ahead, m_tokens.size() - 1)]; }
    /// The token at the cursor; advances past it (never past End).
    const Token &next();
    /// True when the token `ahead` tokens past the cursor is the operator op.
    bool isOp(std::string_view op, size_t ahead = 0) const
    {
        const Token &t = peek(ahead);
        return t.kind == TokenKind::Op && sameShort(t.text, op);
    }
    /// a == b without a call to memcmp: operators and keywords are a few
    /// characters, and the parser asks after nearly every token.
    static bool sameShort(std::string_view a, std::string_view b)
    {
        if (a.size() != b.size())
            return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (a[i] != b[i])
                return false;
        return true;
    }
    /// True when the token at the cursor is the name `name`.
    bool isName(std::string_view name) const { return peek().kind == TokenKind::Name && sameShort(peek().text, name); }
    /// True when the token at the cursor is of `kind`.
    bool is(TokenKind kind) const { return peek().kind == kind; }

    /// Records "expected <expected>, found <at>" unless an error is already
    /// recorded; returns false.
    bool fail(const Token &at, const std::string &expected);
    /// Consumes the operator op, or fails.
    bool expectOp(std::string_view op);
    /// Consumes a token of `kind`, or fails expecting `what`.
    bool expectKind(TokenKind kind, const std::string &what);
    /// Consumes a name into out, or fails expecting `what`.
    bool expectName(std::string &out, const std::string &what);
    /// Skips a balanced bracket group starting at the current opening token.
    bool skipGroup();

    // --- expressions ---------------------------------------------------------
    /// expr (',' expr)* [','] — a bare tuple when there is a comma.
    ExprPtr parseTestList();
    /// True when the token at the cursor can begin an expression.
    bool startsExpr() const;
    /// One expression; fails beyond kMaxNesting levels of nesting.
    ExprPtr parseExpr();
    /// Call arguments up to `close`: positional, then `name = value` keywords.
    bool parseArguments(Expr &call, const std::string &close, const Token &open);

    std::string_view m_text;
    /// The tokens this parser owns (none in a parser over another's).
    std::vector<Token> m_ownTokens;
    const std::vector<Token> &m_tokens;
    /// Where this parse's expressions live; the first also holds the
    /// decoded token texts (see TokenStream).
    std::vector<std::shared_ptr<ExprStore>> m_stores;
    ExprStore &m_store;
    std::string m_sourceName;
    size_t m_pos = 0;
    /// str(graph) text: '%' starts a node name there, it is no operator.
    bool m_graphForm = false;
    int m_nesting = 0;
    std::string m_error;

private:
    /// Bounds recursion so that pathological nesting is an error, not a stack overflow.
    struct DepthGuard {
        int &depth;
        explicit DepthGuard(int &d)
            : depth(++d)
        {}
        ~DepthGuard() { --depth; }
    };
    static constexpr int kMaxNesting = 200;

    /// Binding strength of a binary operator; -1 for other operators.
    static int precedence(std::string_view op);
    /// Binary operators binding at least minPrec, left-associative.
    ExprPtr parseBinary(int minPrec);
    /// Unary -, +, ~ and the right-associative '**'.
    ExprPtr parseUnary();
    /// An atom with its attribute, call and subscript suffixes.
    ExprPtr parsePostfix();
    /// e followed by any '.name', '(...)' and '[...]' suffixes.
    ExprPtr postfix(ExprPtr e);
    /// Consumes `close`, or fails naming the `open` bracket it should close.
    bool closeBracket(const std::string &close, const Token &open);
    /// An index: expr, a:b:c slice, or a tuple of those.
    ExprPtr parseSubscript();
    /// One entry of an index: an expression or an a:b:c slice.
    ExprPtr parseSliceItem();
    /// A name, literal, %name, parenthesised expression, tuple, list or dict.
    ExprPtr parseAtom();
    /// A parenthesised expression, a tuple or a list, from its opening bracket.
    ExprPtr parseSequence();
    /// A dict display, from its "{".
    ExprPtr parseDict();
};

} // namespace fusebox::fx
