#include "FxExprParser.h"

namespace fusebox::fx {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// --- token helpers -------------------------------------------------------
const Token &ExprParser::next()
{
    const Token &t = peek();
    if (m_pos + 1 < m_tokens.size())
        ++m_pos;
    return t;
}

bool ExprParser::fail(const Token &at, const std::string &expected)
{
    if (m_error.empty())
        m_error = positionPrefix(m_sourceName, at.line, at.column) + "expected " + expected + ", found "
                  + describeToken(at);
    return false;
}

bool ExprParser::expectOp(std::string_view op)
{
    if (!isOp(op))
        return fail(peek(), "'" + std::string(op) + "'");
    next();
    return true;
}

bool ExprParser::expectKind(TokenKind kind, const std::string &what)
{
    if (!is(kind))
        return fail(peek(), what);
    next();
    return true;
}

bool ExprParser::expectName(std::string &out, const std::string &what)
{
    if (!is(TokenKind::Name))
        return fail(peek(), what);
    out = next().text;
    return true;
}

/// Skips a balanced bracket group starting at the current opening token.
bool ExprParser::skipGroup()
{
    const Token &open = next();
    const std::string close = open.text == "(" ? ")" : open.text == "[" ? "]" : "}";
    int depth = 1;
    while (depth > 0) {
        if (is(TokenKind::End))
            return fail(peek(), "'" + close + "' to close the '" + std::string(open.text) + "' at line "
                                    + std::to_string(open.line));
        const Token &t = next();
        if (t.kind == TokenKind::Op && (t.text == "(" || t.text == "[" || t.text == "{"))
            ++depth;
        else if (t.kind == TokenKind::Op && (t.text == ")" || t.text == "]" || t.text == "}"))
            --depth;
    }
    return true;
}

// --- expressions ---------------------------------------------------------
/// expr (',' expr)* [','] — a bare tuple when there is a comma.
ExprPtr ExprParser::parseTestList()
{
    const Token &start = peek();
    ExprPtr first = parseExpr();
    if (!first || !isOp(","))
        return first;
    Expr tuple;
    tuple.kind = Expr::Kind::Tuple;
    tuple.line = start.line;
    tuple.column = start.column;
    tuple.items.push_back(first);
    while (isOp(",")) {
        next();
        if (!startsExpr())
            break;
        ExprPtr item = parseExpr();
        if (!item)
            return nullptr;
        tuple.items.push_back(item);
    }
    return make(std::move(tuple));
}

bool ExprParser::startsExpr() const
{
    const Token &t = peek();
    if (t.kind == TokenKind::Name || t.kind == TokenKind::Int || t.kind == TokenKind::Float
        || t.kind == TokenKind::String)
        return true;
    return t.kind == TokenKind::Op
           && (t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" || t.text == "~"
               || t.text == "%");
}

ExprPtr ExprParser::parseExpr()
{
    DepthGuard guard(m_nesting);
    if (m_nesting > kMaxNesting) {
        fail(peek(), "at most " + std::to_string(kMaxNesting) + " levels of nesting");
        return nullptr;
    }
    return parseBinary(0);
}

int ExprParser::precedence(std::string_view op)
{
    // Python's binding strengths, loosest first (comparisons do not chain in
    // FX code). Asked after every operand, so it looks at characters, not
    // at string compares.
    if (op.empty() || op.size() > 2)
        return -1;
    const char a = op[0];
    const char b = op.size() == 2 ? op[1] : '\0';
    switch (a) {
    case '<':
    case '>': return b == '\0' || b == '=' ? 1 : b == a ? 5 : -1;
    case '=':
    case '!': return b == '=' ? 1 : -1;
    case '|': return b == '\0' ? 2 : -1;
    case '^': return b == '\0' ? 3 : -1;
    case '&': return b == '\0' ? 4 : -1;
    case '+':
    case '-': return b == '\0' ? 6 : -1;
    case '*':
    case '@':
    case '%': return b == '\0' ? 7 : -1;
    case '/': return b == '\0' || b == '/' ? 7 : -1;
    default: return -1;
    }
}

ExprPtr ExprParser::parseBinary(int minPrec)
{
    ExprPtr left = parseUnary();
    while (left && peek().kind == TokenKind::Op) {
        int prec = precedence(peek().text);
        if (prec < minPrec || prec < 0 || (m_graphForm && peek().text == "%"))
            break;
        const Token &op = next();
        ExprPtr right = parseBinary(prec + 1);
        if (!right)
            return nullptr;
        Expr b;
        b.kind = Expr::Kind::Binary;
        b.text = op.text;
        b.line = left->line;
        b.column = left->column;
        b.items = {left, right};
        left = make(std::move(b));
    }
    return left;
}

ExprPtr ExprParser::parseUnary()
{
    DepthGuard guard(m_nesting);
    if (m_nesting > kMaxNesting) {
        fail(peek(), "at most " + std::to_string(kMaxNesting) + " levels of nesting");
        return nullptr;
    }
    if (isOp("-") || isOp("+") || isOp("~")) {
        const Token &op = next();
        // "-1" stays a literal so that INT64_MIN reads back.
        if (op.text == "-" && is(TokenKind::Int)) {
            const Token &n = next();
            return postfix(make(
                Expr{Expr::Kind::Int, m_store.keep("-" + std::string(n.text)), nullptr, {}, {}, op.line, op.column}));
        }
        ExprPtr operand = parseUnary();
        if (!operand)
            return nullptr;
        Expr u;
        u.kind = Expr::Kind::Unary;
        u.text = op.text;
        u.line = op.line;
        u.column = op.column;
        u.items = {operand};
        return make(std::move(u));
    }
    ExprPtr base = parsePostfix();
    if (base && isOp("**")) {
        next();
        ExprPtr exponent = parseUnary();
        if (!exponent)
            return nullptr;
        Expr b;
        b.kind = Expr::Kind::Binary;
        b.text = "**";
        b.line = base->line;
        b.column = base->column;
        b.items = {base, exponent};
        return make(std::move(b));
    }
    return base;
}

ExprPtr ExprParser::parsePostfix()
{
    ExprPtr atom = parseAtom();
    return atom ? postfix(atom) : nullptr;
}

ExprPtr ExprParser::postfix(ExprPtr e)
{
    while (e) {
        if (isOp(".")) {
            next();
            // A name, as in Python: `x. 2` is not an attribute (the writer
            // could not write one back: `x.2` reads as x, then the float .2).
            const Token &attr = peek();
            if (attr.kind != TokenKind::Name) {
                fail(attr, "an attribute name after '.'");
                return nullptr;
            }
            next();
            e = make(Expr{Expr::Kind::Attribute, attr.text, e, {}, {}, e->line, e->column});
        } else if (isOp("(")) {
            const Token &open = next();
            Expr call;
            call.kind = Expr::Kind::Call;
            call.object = e;
            call.line = e->line;
            call.column = e->column;
            if (!parseArguments(call, ")", open))
                return nullptr;
            e = make(std::move(call));
        } else if (isOp("[")) {
            const Token &open = next();
            ExprPtr index = parseSubscript();
            if (!index)
                return nullptr;
            if (!closeBracket("]", open))
                return nullptr;
            e = make(Expr{Expr::Kind::Subscript, "", e, {index}, {}, e->line, e->column});
        } else {
            break;
        }
    }
    return e;
}

bool ExprParser::closeBracket(const std::string &close, const Token &open)
{
    if (isOp(close)) {
        next();
        return true;
    }
    return fail(peek(), "'" + close + "' to close the '" + std::string(open.text) + "' at " + std::to_string(open.line)
                            + ":" + std::to_string(open.column));
}

/// Call arguments up to `close`: positional, then `name = value` keywords.
bool ExprParser::parseArguments(Expr &call, const std::string &close, const Token &open)
{
    while (!isOp(close)) {
        if (is(TokenKind::Name) && isOp("=", 1)) {
            std::string_view key = next().text;
            next();
            ExprPtr value = parseExpr();
            if (!value)
                return false;
            call.keywords.emplace_back(key, value);
        } else {
            if (!call.keywords.empty())
                return fail(peek(), "a keyword argument (positional ones come first)");
            if (!startsExpr())
                return fail(peek(), "an argument or '" + close + "'");
            ExprPtr value = parseExpr();
            if (!value)
                return false;
            call.items.push_back(value);
        }
        if (!isOp(","))
            break;
        next();
    }
    return closeBracket(close, open);
}

/// An index: expr, a:b:c slice, or a tuple of those.
ExprPtr ExprParser::parseSubscript()
{
    const Token &start = peek();
    std::vector<ExprPtr> parts;
    bool tuple = false;
    while (true) {
        ExprPtr part = parseSliceItem();
        if (!part)
            return nullptr;
        parts.push_back(part);
        if (!isOp(","))
            break;
        tuple = true;
        next();
        if (isOp("]"))
            break;
    }
    if (!tuple)
        return parts.front();
    return make(Expr{Expr::Kind::Tuple, "", nullptr, parts, {}, start.line, start.column});
}

ExprPtr ExprParser::parseSliceItem()
{
    const Token &start = peek();
    ExprPtr lower = nullptr;
    if (!isOp(":")) {
        lower = parseExpr();
        if (!lower || !isOp(":"))
            return lower;
    }
    std::vector<ExprPtr> bounds{lower, nullptr, nullptr};
    for (int i = 1; i < 3 && isOp(":"); ++i) {
        next();
        if (!isOp(":") && !isOp("]") && !isOp(",")) {
            bounds[size_t(i)] = parseExpr();
            if (!bounds[size_t(i)])
                return nullptr;
        }
    }
    return make(Expr{Expr::Kind::Slice, "", nullptr, bounds, {}, start.line, start.column});
}

ExprPtr ExprParser::parseAtom()
{
    const Token &t = peek();
    switch (t.kind) {
    case TokenKind::Name: next(); return make(Expr{Expr::Kind::Name, t.text, nullptr, {}, {}, t.line, t.column});
    case TokenKind::Int: next(); return make(Expr{Expr::Kind::Int, t.text, nullptr, {}, {}, t.line, t.column});
    case TokenKind::Float: next(); return make(Expr{Expr::Kind::Float, t.text, nullptr, {}, {}, t.line, t.column});
    case TokenKind::String: {
        next();
        std::string_view value = t.text;
        if (is(TokenKind::String)) { // adjacent literals concatenate
            std::string joined(value);
            while (is(TokenKind::String))
                joined += next().text;
            value = m_store.keep(std::move(joined));
        }
        return make(Expr{Expr::Kind::String, value, nullptr, {}, {}, t.line, t.column});
    }
    default: break;
    }
    if (isOp("%") && peek(1).kind == TokenKind::Name) {
        next();
        const Token &n = next();
        return make(Expr{Expr::Kind::Percent, n.text, nullptr, {}, {}, t.line, t.column});
    }
    if (isOp("(") || isOp("["))
        return parseSequence();
    if (isOp("{"))
        return parseDict();
    fail(t, "a value");
    return nullptr;
}

ExprPtr ExprParser::parseSequence()
{
    const Token &open = next();
    const std::string close = open.text == "(" ? ")" : "]";
    Expr seq;
    seq.kind = open.text == "(" ? Expr::Kind::Tuple : Expr::Kind::List;
    seq.line = open.line;
    seq.column = open.column;
    bool sawComma = false;
    while (!isOp(close)) {
        if (!startsExpr()) {
            fail(peek(), "a value or '" + close + "'");
            return nullptr;
        }
        ExprPtr item = parseExpr();
        if (!item)
            return nullptr;
        seq.items.push_back(item);
        if (!isOp(","))
            break;
        sawComma = true;
        next();
    }
    if (!closeBracket(close, open))
        return nullptr;
    if (seq.kind == Expr::Kind::Tuple && seq.items.size() == 1 && !sawComma)
        return seq.items.front(); // parenthesised expression
    return make(std::move(seq));
}

ExprPtr ExprParser::parseDict()
{
    const Token &open = next();
    Expr dict;
    dict.kind = Expr::Kind::Dict;
    dict.line = open.line;
    dict.column = open.column;
    while (!isOp("}")) {
        const Token &key = peek();
        if (key.kind != TokenKind::Name && key.kind != TokenKind::String) {
            fail(key, "a dictionary key or '}'");
            return nullptr;
        }
        next();
        if (!expectOp(":"))
            return nullptr;
        ExprPtr value = parseExpr();
        if (!value)
            return nullptr;
        dict.keywords.emplace_back(key.text, value);
        if (!isOp(","))
            break;
        next();
    }
    if (!closeBracket("}", open))
        return nullptr;
    return make(std::move(dict));
}

} // namespace fusebox::fx
