// Recursive-descent parser of the pattern language (grammar in
// docs/pattern-language.md). Syntax only: names and ops are checked after.

#include "PatternReaderImpl.h"
#include "PatternTokenizer.h"

#include "core/ir/DType.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <cstdlib>

namespace fusebox::patternlang {
namespace {

// Thrown inside the parser only, caught by parsePatternSyntax: a syntax
// error abandons the whole parse, and unwinding is simpler than threading
// Expected through every grammar rule.
struct SyntaxError {
    std::string message;
};

class PatternFileParser {
public:
    PatternFileParser(std::vector<Token> tokens, std::string sourceName)
        : m_tokens(std::move(tokens))
        , m_source(std::move(sourceName))
    {}

    PatternFile parseFile()
    {
        PatternFile file;
        file.sourceName = m_source;
        skipNewlines();
        while (peek().kind != TokenKind::End) {
            if (peek().isPunct("}"))
                fail(peek(), "unbalanced '}': no '{' to close");
            if (!peek().is(TokenKind::Name, "pattern"))
                fail(peek(), "expected 'pattern', found " + describeToken(peek()));
            file.patterns.push_back(parsePattern());
            skipNewlines();
        }
        return file;
    }

private:
    const Token &peek(size_t ahead = 0) const { return m_tokens[std::min(m_pos + ahead, m_tokens.size() - 1)]; }
    const Token &next() { return m_tokens[m_pos < m_tokens.size() - 1 ? m_pos++ : m_pos]; }
    static SourcePos posOf(const Token &t) { return {t.line, t.column}; }

    [[noreturn]] void fail(const Token &at, const std::string &problem) const
    {
        throw SyntaxError{positionPrefix(m_source, at.line, at.column) + problem};
    }

    const Token &expectPunct(std::string_view punct)
    {
        if (!peek().isPunct(punct))
            fail(peek(), "expected '" + std::string(punct) + "', found " + describeToken(peek()));
        return next();
    }

    const Token &expectName(const std::string &what)
    {
        if (peek().kind != TokenKind::Name || isReservedLiteralName(peek().text))
            fail(peek(), "expected " + what + ", found " + describeToken(peek()));
        return next();
    }

    void skipNewlines()
    {
        while (peek().kind == TokenKind::Newline)
            next();
    }

    // Runs item() for each item of a `{ ... }` block; items end at a newline
    // or at the closing brace, so one-line blocks work too.
    template<typename ParseItem>
    void parseBlock(ParseItem item)
    {
        const Token open = expectPunct("{");
        for (;;) {
            skipNewlines();
            if (peek().isPunct("}")) {
                next();
                return;
            }
            if (peek().kind == TokenKind::End)
                fail(open, "unbalanced '{': not closed before end of file");
            // A 'pattern' header inside a block means a '}' is missing above it.
            if (peek().is(TokenKind::Name, "pattern") && peek(1).kind == TokenKind::Name && peek(2).isPunct("{"))
                fail(open, "unbalanced '{': not closed before 'pattern' at " + std::to_string(peek().line) + ":"
                               + std::to_string(peek().column));
            item();
            if (peek().kind != TokenKind::Newline && !peek().isPunct("}"))
                fail(peek(), "expected end of line, found " + describeToken(peek()));
        }
    }

    PatternDecl parsePattern()
    {
        next(); // 'pattern'
        PatternDecl decl;
        const Token &name = expectName("a pattern name");
        decl.name = name.text;
        decl.pos = posOf(name);
        std::vector<std::string> seen;
        parseBlock([&] {
            const Token &field = expectName("a pattern field (benefit, description, stage, options, match, "
                                            "where, replace)");
            for (const std::string &s : seen)
                if (s == field.text)
                    fail(field, "duplicate '" + field.text + "' in pattern '" + decl.name + "'");
            seen.push_back(field.text);
            parseField(field, decl);
        });
        return decl;
    }

    void parseField(const Token &field, PatternDecl &decl)
    {
        const std::string &f = field.text;
        if (f == "match") {
            parseBlock([&] { decl.match.push_back(parseStatement()); });
        } else if (f == "replace") {
            parseBlock([&] { decl.replace.push_back(parseStatement()); });
        } else if (f == "where") {
            parseBlock([&] { decl.where.push_back(parseExpr()); });
        } else if (f == "options") {
            parseBlock([&] {
                const Token &key = expectName("an option name");
                expectPunct("=");
                decl.options.push_back({key.text, parseExpr(), posOf(key)});
            });
        } else if (f == "benefit") {
            expectPunct("=");
            Expr value = parseExpr();
            if (value.kind != ExprKind::Int)
                fail(Token{TokenKind::Int, "", value.pos.line, value.pos.column}, "benefit must be an integer literal");
            decl.benefit = value.intValue;
        } else if (f == "description") {
            expectPunct("=");
            if (peek().kind != TokenKind::String)
                fail(peek(), "expected a string, found " + describeToken(peek()));
            decl.description = next().text;
        } else if (f == "stage") {
            expectPunct("=");
            const Token &stage = peek();
            if (stage.is(TokenKind::Name, "pre_grad"))
                decl.stage = Stage::PreGrad;
            else if (stage.is(TokenKind::Name, "post_grad"))
                decl.stage = Stage::PostGrad;
            else
                fail(stage, "expected 'pre_grad' or 'post_grad', found " + describeToken(stage));
            next();
        } else {
            fail(field, "unknown pattern field '" + f
                            + "' (expected benefit, description, stage, options, match, where or replace)");
        }
    }

    Statement parseStatement()
    {
        const Token &target = expectName("a value name");
        if (target.text == "_")
            fail(target, "'_' cannot be assigned: name the value");
        expectPunct("=");
        return {target.text, parseExpr(), posOf(target)};
    }

    // Precedence, loosest first: or, and, not, comparison/in, + -, * / %, unary -, postfix [].
    Expr parseExpr()
    {
        NestingGuard guard(*this, peek());
        return parseOr();
    }

    /// Bounds recursion, so that absurd nesting is an error and not a stack
    /// overflow (the editor parses every keystroke).
    static constexpr int kMaxNesting = 200;
    struct NestingGuard {
        PatternFileParser &parser;
        NestingGuard(PatternFileParser &p, const Token &at)
            : parser(p)
        {
            if (++parser.m_nesting > kMaxNesting)
                parser.fail(at, "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
        }
        ~NestingGuard() { --parser.m_nesting; }
    };
    int m_nesting = 0;

    Expr binary(const Token &op, Expr lhs, Expr rhs)
    {
        Expr e;
        e.kind = ExprKind::Binary;
        e.text = op.text;
        e.pos = lhs.pos;
        e.operands = {std::move(lhs), std::move(rhs)};
        return e;
    }

    static bool isComparison(const Token &t)
    {
        return t.kind == TokenKind::Punct
               && (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == "<=" || t.text == ">"
                   || t.text == ">=");
    }

    // One left-associative level: operand { op operand }.
    template<typename Operand>
    Expr parseLeftAssociative(Operand operand, std::initializer_list<std::string_view> operators)
    {
        Expr lhs = (this->*operand)();
        for (;;) {
            const Token &t = peek();
            const bool isOperator = (t.kind == TokenKind::Punct || t.kind == TokenKind::Name)
                                    && std::find(operators.begin(), operators.end(), t.text) != operators.end();
            if (!isOperator)
                return lhs;
            const Token op = next();
            lhs = binary(op, std::move(lhs), (this->*operand)());
        }
    }

    Expr parseOr() { return parseLeftAssociative(&PatternFileParser::parseAnd, {"or"}); }
    Expr parseAnd() { return parseLeftAssociative(&PatternFileParser::parseNot, {"and"}); }
    Expr parseAdditive() { return parseLeftAssociative(&PatternFileParser::parseTerm, {"+", "-"}); }
    Expr parseTerm() { return parseLeftAssociative(&PatternFileParser::parseUnary, {"*", "/", "%"}); }

    Expr parseNot()
    {
        if (!peek().is(TokenKind::Name, "not"))
            return parseComparison();
        const Token op = next();
        NestingGuard guard(*this, op);
        return unary(op, parseNot());
    }

    Expr unary(const Token &op, Expr operand)
    {
        Expr e;
        e.kind = ExprKind::Unary;
        e.text = op.text;
        e.pos = posOf(op);
        e.operands.push_back(std::move(operand));
        return e;
    }

    Expr parseComparison()
    {
        Expr lhs = parseAdditive();
        if (!isComparison(peek()) && !peek().is(TokenKind::Name, "in"))
            return lhs;
        const Token op = next();
        Expr e = binary(op, std::move(lhs), parseAdditive());
        // `a < b < c` reads as a chain in Python but not here: reject it.
        if (isComparison(peek()))
            fail(peek(), "comparisons do not chain: use 'and'");
        return e;
    }

    Expr parseUnary()
    {
        if (!peek().isPunct("-"))
            return parsePostfix();
        const Token op = next();
        NestingGuard guard(*this, op);
        Expr operand = parseUnary();
        // Fold `-literal` so match literals compare as plain numbers.
        if (operand.kind == ExprKind::Int || operand.kind == ExprKind::Float) {
            operand.intValue = -operand.intValue;
            operand.floatValue = -operand.floatValue;
            operand.pos = posOf(op);
            return operand;
        }
        return unary(op, std::move(operand));
    }

    Expr parsePostfix()
    {
        Expr e = parsePrimary();
        while (peek().isPunct("[")) {
            next();
            Expr index;
            index.kind = ExprKind::Index;
            index.pos = e.pos;
            index.operands.push_back(std::move(e));
            index.operands.push_back(parseExpr());
            expectPunct("]");
            e = std::move(index);
        }
        return e;
    }

    bool atOpName() const { return peek().kind == TokenKind::Name && peek(1).isPunct("::"); }

    OpName parseOpName()
    {
        const Token &ns = expectName("an op namespace");
        expectPunct("::");
        const Token &name = expectName("an op name after '" + ns.text + "::'");
        OpName op{ns.text + "::" + name.text, {}, posOf(ns)};
        if (peek().isPunct(".")) {
            next();
            op.overload = expectName("an overload name after '.'").text;
        }
        return op;
    }

    std::vector<Argument> parseArguments()
    {
        expectPunct("(");
        std::vector<Argument> args;
        bool sawKeyword = false;
        while (!peek().isPunct(")")) {
            Argument arg;
            arg.pos = posOf(peek());
            if (peek().kind == TokenKind::Name && peek(1).isPunct("=")) {
                arg.keyword = next().text;
                next();
                sawKeyword = true;
            } else if (sawKeyword) {
                fail(peek(), "positional argument after a keyword argument");
            }
            arg.value = parseExpr();
            args.push_back(std::move(arg));
            if (!peek().isPunct(","))
                break;
            next();
        }
        expectPunct(")");
        return args;
    }

    Expr parsePrimary()
    {
        const Token &t = peek();
        Expr e;
        e.pos = posOf(t);
        switch (t.kind) {
        case TokenKind::Int: {
            auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), e.intValue);
            if (ec != std::errc())
                fail(t, "integer " + t.text + " is out of range");
            e.kind = ExprKind::Int;
            next();
            return e;
        }
        case TokenKind::Float:
            e.kind = ExprKind::Float;
            e.floatValue = std::strtod(t.text.c_str(), nullptr);
            next();
            return e;
        case TokenKind::String:
            e.kind = ExprKind::String;
            e.text = next().text;
            return e;
        case TokenKind::Name: return parseNamePrimary();
        default: break;
        }
        if (t.isPunct("("))
            return parseParenthesised();
        if (t.isPunct("["))
            return parseList();
        fail(t, "expected an expression, found " + describeToken(t));
    }

    Expr parseNamePrimary()
    {
        const Token &t = peek();
        Expr e;
        e.pos = posOf(t);
        if (atOpName() || (t.text == "getitem" && peek(1).isPunct("("))) {
            e.kind = ExprKind::OpCall;
            if (t.text == "getitem")
                e.ops.push_back({next().text, {}, e.pos});
            else
                e.ops.push_back(parseOpName());
            e.args = parseArguments();
            return e;
        }
        if (t.text == "True" || t.text == "False") {
            e.kind = ExprKind::Bool;
            e.boolValue = next().text == "True";
        } else if (t.text == "None") {
            e.kind = ExprKind::None;
            next();
        } else if (isReservedLiteralName(t.text)) {
            e.kind = ExprKind::DType;
            e.text = next().text;
        } else if (t.text == "_") {
            e.kind = ExprKind::Wildcard;
            next();
        } else if (t.text == "and" || t.text == "or" || t.text == "not" || t.text == "in") {
            fail(t, "expected an expression, found " + describeToken(t));
        } else if (peek(1).isPunct("(")) {
            e.kind = ExprKind::FunctionCall;
            e.text = next().text;
            e.args = parseArguments();
        } else {
            e.kind = ExprKind::Name;
            e.text = next().text;
        }
        return e;
    }

    // `(a | b)(args)`: op alternatives; otherwise a parenthesised expression.
    Expr parseParenthesised()
    {
        const Token open = next();
        if (!atOpName()) {
            Expr inner = parseExpr();
            expectPunct(")");
            return inner;
        }
        Expr e;
        e.kind = ExprKind::OpCall;
        e.pos = posOf(open);
        e.ops.push_back(parseOpName());
        while (peek().isPunct("|")) {
            next();
            if (!atOpName())
                fail(peek(), "expected an op (namespace::name), found " + describeToken(peek()));
            e.ops.push_back(parseOpName());
        }
        expectPunct(")");
        if (!peek().isPunct("("))
            fail(peek(), "expected '(' with the arguments of the op alternatives, found " + describeToken(peek()));
        e.args = parseArguments();
        return e;
    }

    // `[a, b]` or the variadic `[template...]`.
    Expr parseList()
    {
        Expr e;
        e.pos = posOf(next());
        e.kind = ExprKind::List;
        while (!peek().isPunct("]")) {
            e.operands.push_back(parseExpr());
            if (peek().isPunct("...")) {
                if (e.operands.size() > 1)
                    fail(peek(), "a variadic list holds only its template: write [template...]");
                next();
                e.kind = ExprKind::Variadic;
                if (!peek().isPunct("]"))
                    fail(peek(), "expected ']' after '...', found " + describeToken(peek()));
                break;
            }
            if (!peek().isPunct(","))
                break;
            next();
        }
        expectPunct("]");
        return e;
    }

    std::vector<Token> m_tokens;
    size_t m_pos = 0;
    std::string m_source;
};

} // namespace

bool isReservedLiteralName(std::string_view name)
{
    if (name == "True" || name == "False" || name == "None")
        return true;
    auto dtype = parseDType(name);
    return dtype && shortName(*dtype) == name;
}

Expected<PatternFile> parsePatternSyntax(std::string_view text, const std::string &sourceName)
{
    auto tokens = tokenizePatternText(text, sourceName);
    if (!tokens)
        return tokens.error();
    try {
        return PatternFileParser(std::move(*tokens), sourceName).parseFile();
    } catch (const SyntaxError &error) {
        return Error{error.message};
    }
}

} // namespace fusebox::patternlang
