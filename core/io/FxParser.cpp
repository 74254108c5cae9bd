#include "FxParser.h"

#include <algorithm>

namespace fusebox::fx {
namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

ExprPtr make(Expr e) { return std::make_shared<const Expr>(std::move(e)); }

/// "torch.ops.aten.add.Tensor" -> Name(torch).ops.aten.add.Tensor; the
/// "<built-in function getitem>" spellings of older str(graph) dumps too.
ExprPtr dottedExpr(std::string target, int line, int column)
{
    auto between = [&](std::string_view prefix, std::string_view stop) -> std::string {
        std::string rest = target.substr(prefix.size());
        return rest.substr(0, rest.find(stop));
    };
    if (target.starts_with("<built-in function "))
        target = "operator." + between("<built-in function ", ">");
    else if (target.starts_with("<built-in method "))
        target = "torch." + between("<built-in method ", " ");
    else if (target.starts_with("<function "))
        target = "torch.nn.functional." + between("<function ", " ");
    ExprPtr e;
    size_t begin = 0;
    while (begin <= target.size()) {
        size_t dot = target.find('.', begin);
        std::string part = target.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
        Expr x;
        x.line = line;
        x.column = column;
        x.text = part;
        if (e) {
            x.kind = Expr::Kind::Attribute;
            x.object = e;
        }
        e = make(std::move(x));
        if (dot == std::string::npos)
            break;
        begin = dot + 1;
    }
    return e;
}

class Parser {
public:
    Parser(std::string_view text, TokenStream stream, std::string sourceName)
        : m_text(text), m_tokens(std::move(stream.tokens)), m_sourceName(std::move(sourceName))
    {
        m_result.comments = std::move(stream.comments);
    }

    Expected<FxFunction> run(bool graphForm)
    {
        bool ok = graphForm ? parseGraphForm()
                 : isName("class") ? parseClass()
                                   : parseDef(true);
        if (!ok)
            return Error{m_error};
        return std::move(m_result);
    }

private:
    // --- token helpers -------------------------------------------------------
    const Token &peek(size_t ahead = 0) const { return m_tokens[std::min(m_pos + ahead, m_tokens.size() - 1)]; }
    const Token &next()
    {
        const Token &t = peek();
        if (m_pos + 1 < m_tokens.size())
            ++m_pos;
        return t;
    }
    bool isOp(std::string_view op, size_t ahead = 0) const
    {
        return peek(ahead).kind == TokenKind::Op && peek(ahead).text == op;
    }
    bool isName(std::string_view name) const { return peek().kind == TokenKind::Name && peek().text == name; }
    bool is(TokenKind kind) const { return peek().kind == kind; }

    bool fail(const Token &at, const std::string &expected)
    {
        if (m_error.empty())
            m_error = positionPrefix(m_sourceName, at.line, at.column) + "expected " + expected + ", found "
                      + describeToken(at);
        return false;
    }
    bool expectOp(std::string_view op)
    {
        if (!isOp(op))
            return fail(peek(), "'" + std::string(op) + "'");
        next();
        return true;
    }
    bool expectKind(TokenKind kind, const std::string &what)
    {
        if (!is(kind))
            return fail(peek(), what);
        next();
        return true;
    }
    bool expectName(std::string &out, const std::string &what)
    {
        if (!is(TokenKind::Name))
            return fail(peek(), what);
        out = next().text;
        return true;
    }
    /// Skips a balanced bracket group starting at the current opening token.
    bool skipGroup()
    {
        const Token &open = next();
        const std::string close = open.text == "(" ? ")" : open.text == "[" ? "]" : "}";
        int depth = 1;
        while (depth > 0) {
            if (is(TokenKind::End))
                return fail(peek(), "'" + close + "' to close the '" + open.text + "' at line "
                                        + std::to_string(open.line));
            const Token &t = next();
            if (t.kind == TokenKind::Op && (t.text == "(" || t.text == "[" || t.text == "{"))
                ++depth;
            else if (t.kind == TokenKind::Op && (t.text == ")" || t.text == "]" || t.text == "}"))
                --depth;
        }
        return true;
    }

    // --- print_readable ------------------------------------------------------
    bool parseClass()
    {
        next(); // "class"
        std::string name;
        while (!isOp("(") && !isOp(":")) {
            if (is(TokenKind::Newline) || is(TokenKind::End))
                return fail(peek(), "'(' after the class name");
            name += next().text;
        }
        m_result.className = name;
        if (isOp("(") && !skipGroup())
            return false;
        if (!expectOp(":") || !expectKind(TokenKind::Newline, "end of line after the class header")
            || !expectKind(TokenKind::Indent, "an indented class body"))
            return false;
        bool haveForward = false;
        while (!is(TokenKind::Dedent) && !is(TokenKind::End)) {
            if (isName("def")) {
                bool isForward = peek(1).text == "forward" && !haveForward;
                if (!parseDef(isForward))
                    return false;
                haveForward = haveForward || isForward;
            } else if (isName("class")) {
                if (!parseNested())
                    return false;
            } else {
                if (!parseSimpleStatements(nullptr))
                    return false;
            }
        }
        if (!haveForward)
            return fail(peek(), "'def forward(self, ...):' in class " + name);
        return true;
    }

    bool parseNested()
    {
        const Token &start = next();
        NestedClass nested;
        nested.line = start.line;
        while (!isOp("(") && !isOp(":") && !is(TokenKind::Newline) && !is(TokenKind::End))
            nested.name += next().text;
        if (isOp("(") && !skipGroup())
            return false;
        if (!expectOp(":") || !expectKind(TokenKind::Newline, "end of line after the class header")
            || !expectKind(TokenKind::Indent, "an indented class body"))
            return false;
        int depth = 1;
        int lastLine = start.line;
        while (depth > 0) {
            if (is(TokenKind::End))
                return fail(peek(), "the end of class " + nested.name);
            const Token &t = next();
            if (t.kind == TokenKind::Indent)
                ++depth;
            else if (t.kind == TokenKind::Dedent)
                --depth;
            else
                lastLine = t.line;
        }
        nested.text = sourceLines(start.line, lastLine, start.column - 1);
        m_result.nested.push_back(std::move(nested));
        return true;
    }

    /// Lines first..last of the text, each without its first `dedent` columns.
    std::string sourceLines(int first, int last, int dedent) const
    {
        std::string out;
        size_t pos = 0;
        for (int line = 1; line <= last && pos <= m_text.size(); ++line) {
            size_t end = m_text.find('\n', pos);
            if (end == std::string_view::npos)
                end = m_text.size();
            if (line >= first) {
                std::string_view l = m_text.substr(pos, end - pos);
                size_t cut = 0;
                while (cut < l.size() && cut < size_t(dedent) && (l[cut] == ' ' || l[cut] == '\t'))
                    ++cut;
                l.remove_prefix(cut);
                while (!l.empty() && (l.back() == ' ' || l.back() == '\r' || l.back() == '\t'))
                    l.remove_suffix(1);
                out += std::string(l) + "\n";
            }
            pos = end + 1;
        }
        return out;
    }

    bool parseDef(bool keep)
    {
        const Token &defTok = peek();
        if (!isName("def"))
            return fail(peek(), "'def forward(self, ...):'");
        next();
        std::string fname;
        if (!expectName(fname, "a function name") || !expectOp("("))
            return false;
        std::vector<Param> params;
        while (!isOp(")")) {
            if (isOp("*") || isOp("**"))
                next();
            Param p;
            p.line = peek().line;
            p.column = peek().column;
            if (!expectName(p.name, "a parameter name"))
                return false;
            if (isOp(":")) {
                next();
                Annotation a;
                if (!parseAnnotation(a))
                    return false;
                p.annotation = std::move(a);
            }
            if (isOp("=")) {
                next();
                if (!parseExpr())
                    return false;
            }
            params.push_back(std::move(p));
            if (!isOp(","))
                break;
            next();
        }
        if (!expectOp(")"))
            return false;
        if (isOp("->")) {
            next();
            if (!parseExpr())
                return false;
        }
        if (!expectOp(":") || !expectKind(TokenKind::Newline, "end of line after the def")
            || !expectKind(TokenKind::Indent, "an indented function body"))
            return false;
        std::vector<Stmt> body;
        while (!is(TokenKind::Dedent) && !is(TokenKind::End))
            if (!parseSimpleStatements(&body))
                return false;
        if (!expectKind(TokenKind::Dedent, "the end of " + fname + "()"))
            return false;
        if (keep) {
            if (!params.empty() && params.front().name == "self")
                params.erase(params.begin());
            m_result.params = std::move(params);
            m_result.body = std::move(body);
            m_result.line = defTok.line;
            m_result.column = defTok.column;
        }
        return true;
    }

    bool parseAnnotation(Annotation &a)
    {
        const Token &first = peek();
        a.line = first.line;
        if (first.kind == TokenKind::String) {
            a.text = first.text;
            a.column = first.column + 1;
            next();
            return true;
        }
        a.column = first.column;
        size_t begin = first.begin;
        if (!parseExpr())
            return false;
        size_t end = m_tokens[m_pos - 1].end;
        a.text = std::string(m_text.substr(begin, end > begin ? end - begin : 0));
        return true;
    }

    /// small_stmt (';' small_stmt)* NEWLINE; statements go to body when given.
    bool parseSimpleStatements(std::vector<Stmt> *body)
    {
        if (isName("if") || isName("for") || isName("while") || isName("with") || isName("try")
            || isName("def"))
            return fail(peek(), "a simple statement (FX code has no blocks)");
        while (true) {
            Stmt s;
            if (!parseSmallStatement(s))
                return false;
            s.endLine = m_tokens[m_pos > 0 ? m_pos - 1 : 0].line;
            if (body)
                body->push_back(std::move(s));
            if (!isOp(";"))
                break;
            next();
            if (is(TokenKind::Newline) || is(TokenKind::End))
                break;
        }
        if (is(TokenKind::End))
            return fail(peek(), "end of line");
        return expectKind(TokenKind::Newline, "end of line");
    }

    bool parseSmallStatement(Stmt &s)
    {
        s.line = peek().line;
        s.column = peek().column;
        if (isName("pass")) {
            next();
            s.kind = Stmt::Kind::Pass;
            return true;
        }
        if (isName("return")) {
            next();
            s.kind = Stmt::Kind::Return;
            if (is(TokenKind::Newline) || isOp(";"))
                return true;
            s.value = parseTestList();
            return s.value != nullptr;
        }
        ExprPtr first = parseTestList();
        if (!first)
            return false;
        if (isOp(":")) {
            if (first->kind != Expr::Kind::Name)
                return fail(peek(), "'=' (only a name can be annotated)");
            next();
            Annotation a;
            if (!parseAnnotation(a))
                return false;
            s.annotation = std::move(a);
            s.targets.push_back(first);
            if (!isOp("=")) {
                s.kind = Stmt::Kind::AnnotationOnly;
                return true;
            }
        }
        if (!isOp("=")) {
            if (s.annotation)
                return fail(peek(), "'='");
            s.kind = Stmt::Kind::Expression;
            s.value = first;
            return true;
        }
        s.kind = Stmt::Kind::Assign;
        if (s.targets.empty())
            s.targets.push_back(first);
        while (isOp("=")) {
            next();
            ExprPtr value = parseTestList();
            if (!value)
                return false;
            if (isOp("="))
                s.targets.push_back(value);
            else
                s.value = value;
        }
        for (const ExprPtr &t : s.targets) {
            bool ok = t->kind == Expr::Kind::Name;
            if (t->kind == Expr::Kind::Tuple)
                ok = std::all_of(t->items.begin(), t->items.end(),
                                 [](const ExprPtr &i) { return i->kind == Expr::Kind::Name; });
            if (!ok) {
                m_error = positionPrefix(m_sourceName, t->line, t->column)
                          + "expected a name or names to assign to, found an expression";
                return false;
            }
        }
        return true;
    }

    // --- expressions ---------------------------------------------------------
    /// expr (',' expr)* [','] — a bare tuple when there is a comma.
    ExprPtr parseTestList()
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

    bool startsExpr() const
    {
        const Token &t = peek();
        if (t.kind == TokenKind::Name || t.kind == TokenKind::Int || t.kind == TokenKind::Float
            || t.kind == TokenKind::String)
            return true;
        return t.kind == TokenKind::Op
               && (t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+"
                   || t.text == "~" || t.text == "%");
    }

    /// Bounds recursion so that pathological nesting is an error, not a stack overflow.
    struct DepthGuard {
        int &depth;
        explicit DepthGuard(int &d) : depth(++d) {}
        ~DepthGuard() { --depth; }
    };
    static constexpr int kMaxNesting = 200;

    ExprPtr parseExpr()
    {
        DepthGuard guard(m_nesting);
        if (m_nesting > kMaxNesting) {
            fail(peek(), "at most " + std::to_string(kMaxNesting) + " levels of nesting");
            return nullptr;
        }
        return parseBinary(0);
    }

    static int precedence(const std::string &op)
    {
        if (op == "+" || op == "-")
            return 1;
        if (op == "*" || op == "/" || op == "@" || op == "//" || op == "%")
            return 2;
        return -1;
    }

    ExprPtr parseBinary(int minPrec)
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

    ExprPtr parseUnary()
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
                return postfix(make(Expr{Expr::Kind::Int, "-" + n.text, nullptr, {}, {}, op.line, op.column}));
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

    ExprPtr parsePostfix()
    {
        ExprPtr atom = parseAtom();
        return atom ? postfix(atom) : nullptr;
    }

    ExprPtr postfix(ExprPtr e)
    {
        while (e) {
            if (isOp(".")) {
                next();
                const Token &attr = peek();
                if (attr.kind != TokenKind::Name && attr.kind != TokenKind::Int) {
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

    bool closeBracket(const std::string &close, const Token &open)
    {
        if (isOp(close)) {
            next();
            return true;
        }
        return fail(peek(), "'" + close + "' to close the '" + open.text + "' at " + std::to_string(open.line) + ":"
                                + std::to_string(open.column));
    }

    /// Call arguments up to `close`: positional, then `name = value` keywords.
    bool parseArguments(Expr &call, const std::string &close, const Token &open)
    {
        while (!isOp(close)) {
            if (is(TokenKind::Name) && isOp("=", 1)) {
                std::string key = next().text;
                next();
                ExprPtr value = parseExpr();
                if (!value)
                    return false;
                call.keywords.emplace_back(std::move(key), value);
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
    ExprPtr parseSubscript()
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

    ExprPtr parseSliceItem()
    {
        const Token &start = peek();
        ExprPtr lower;
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

    ExprPtr parseAtom()
    {
        const Token &t = peek();
        switch (t.kind) {
        case TokenKind::Name:
            next();
            return make(Expr{Expr::Kind::Name, t.text, nullptr, {}, {}, t.line, t.column});
        case TokenKind::Int:
            next();
            return make(Expr{Expr::Kind::Int, t.text, nullptr, {}, {}, t.line, t.column});
        case TokenKind::Float:
            next();
            return make(Expr{Expr::Kind::Float, t.text, nullptr, {}, {}, t.line, t.column});
        case TokenKind::String: {
            next();
            std::string value = t.text;
            while (is(TokenKind::String)) // adjacent literals concatenate
                value += next().text;
            return make(Expr{Expr::Kind::String, value, nullptr, {}, {}, t.line, t.column});
        }
        default: break;
        }
        if (isOp("%") && peek(1).kind == TokenKind::Name) {
            next();
            const Token &n = next();
            return make(Expr{Expr::Kind::Percent, n.text, nullptr, {}, {}, t.line, t.column});
        }
        if (isOp("(") || isOp("[")) {
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
        if (isOp("{")) {
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
        fail(t, "a value");
        return nullptr;
    }

    // --- str(graph) ----------------------------------------------------------
    bool parseGraphForm()
    {
        m_graphForm = true;
        m_result.graphForm = true;
        m_result.className = "graph";
        m_result.line = peek().line;
        m_result.column = peek().column;
        std::string header;
        if (!expectName(header, "'graph():'") || !expectOp("(") || !expectOp(")") || !expectOp(":")
            || !expectKind(TokenKind::Newline, "end of line after 'graph():'"))
            return false;
        if (!expectKind(TokenKind::Indent, "an indented node line"))
            return false;
        while (!is(TokenKind::Dedent) && !is(TokenKind::End)) {
            if (!parseGraphLine())
                return false;
        }
        return true;
    }

    bool parseGraphLine()
    {
        Stmt s;
        s.line = peek().line;
        s.column = peek().column;
        if (isName("return")) {
            next();
            s.kind = Stmt::Kind::Return;
            s.value = parseTestList();
            if (!s.value)
                return false;
            s.endLine = s.line;
            m_result.body.push_back(std::move(s));
            return expectKind(TokenKind::Newline, "end of line");
        }
        if (!expectOp("%"))
            return false;
        const Token &nameTok = peek();
        std::string name;
        if (!expectName(name, "a node name after '%'"))
            return false;
        if (isOp(":"))
            next();
        // An optional type ("torch.Tensor "), then "[num_users=N]" / "[#users=N]".
        while (!isOp("=") && !(isOp("[") && (peek(1).text == "num_users" || peek(1).text == "#"))) {
            if (is(TokenKind::Newline) || is(TokenKind::End))
                return fail(peek(), "'=' after the node's users");
            next();
        }
        if (isOp("[") && !skipGroup())
            return false;
        std::string kind;
        if (!expectOp("="))
            return false;
        const Token &kindTok = peek();
        if (!expectName(kind, "a node kind (placeholder, call_function, ...)"))
            return false;
        const Token &open = peek();
        if (!expectOp("["))
            return false;
        std::string key;
        if (!expectName(key, "'target'") || !expectOp("="))
            return false;
        size_t targetBegin = peek().begin;
        int depth = 0;
        while (!(isOp("]") && depth == 0)) {
            if (is(TokenKind::Newline) || is(TokenKind::End))
                return fail(peek(), "']' to close the '[' at " + std::to_string(open.line) + ":"
                                        + std::to_string(open.column));
            if (isOp("[") || isOp("("))
                ++depth;
            else if (isOp("]") || isOp(")"))
                --depth;
            next();
        }
        std::string target(trimmed(m_text.substr(targetBegin, peek().begin - targetBegin)));
        next();
        Expr call; // args and kwargs
        if (isOp("(")) {
            const Token &paren = next();
            if (!parseArguments(call, ")", paren))
                return false;
        }
        ExprPtr args, kwargs;
        for (auto &[k, v] : call.keywords) {
            if (k == "args")
                args = v;
            else if (k == "kwargs")
                kwargs = v;
        }
        std::vector<ExprPtr> argItems = args ? args->items : std::vector<ExprPtr>{};
        if (args && args->kind != Expr::Kind::Tuple)
            argItems = {args};
        std::vector<std::pair<std::string, ExprPtr>> kwItems = kwargs ? kwargs->keywords
                                                                      : std::vector<std::pair<std::string, ExprPtr>>{};
        const int line = nameTok.line, column = nameTok.column;
        auto nameExpr = [&] { return make(Expr{Expr::Kind::Name, name, nullptr, {}, {}, line, column}); };
        auto selfPath = [&] { return dottedExpr("self." + target, line, column); };

        if (kind == "placeholder") {
            m_result.params.push_back(Param{name, std::nullopt, line, column});
            return expectKind(TokenKind::Newline, "end of line");
        }
        if (kind == "output") {
            s.kind = Stmt::Kind::Return;
            if (argItems.empty())
                return fail(open, "the output's args");
            s.value = argItems.front();
        } else {
            s.kind = Stmt::Kind::Assign;
            s.targets.push_back(nameExpr());
            Expr c;
            c.kind = Expr::Kind::Call;
            c.line = line;
            c.column = column;
            c.keywords = kwItems;
            if (kind == "call_function") {
                c.object = dottedExpr(target, line, column);
                c.items = argItems;
            } else if (kind == "call_method") {
                if (argItems.empty())
                    return fail(open, "a call_method with a self argument");
                c.object = make(Expr{Expr::Kind::Attribute, target, argItems.front(), {}, {}, line, column});
                c.items.assign(argItems.begin() + 1, argItems.end());
            } else if (kind == "call_module") {
                c.object = selfPath();
                c.items = argItems;
            } else if (kind == "get_attr") {
                s.value = selfPath();
            } else {
                m_error = positionPrefix(m_sourceName, kindTok.line, kindTok.column)
                          + "expected placeholder, call_function, call_method, call_module, get_attr or "
                            "output, found '"
                          + kind + "'";
                return false;
            }
            if (!s.value)
                s.value = make(std::move(c));
        }
        s.endLine = s.line;
        m_result.body.push_back(std::move(s));
        return expectKind(TokenKind::Newline, "end of line");
    }

    std::string_view m_text;
    std::vector<Token> m_tokens;
    std::string m_sourceName;
    size_t m_pos = 0;
    bool m_graphForm = false;
    int m_nesting = 0;
    FxFunction m_result;
    std::string m_error;
};

bool startsWithWord(std::string_view line, std::string_view word)
{
    return line.starts_with(word) && (line.size() == word.size() || line[word.size()] == ' ' || line[word.size()] == '(');
}

} // namespace

std::optional<DumpStart> findDumpStart(std::string_view text)
{
    size_t pos = 0;
    int line = 1;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view l = text.substr(pos, end - pos);
        std::string_view t = trimmed(l);
        if (t.starts_with("#")) {
            pos = end + 1;
            ++line;
            continue;
        }
        if (t == "graph():")
            return DumpStart{pos + size_t(t.data() - l.data()), line, true};
        if (startsWithWord(t, "def") && t.substr(3).find("forward(") != std::string_view::npos
            && trimmed(t.substr(3)).starts_with("forward("))
            return DumpStart{pos + size_t(t.data() - l.data()), line, false};
        // "class GraphModule(torch.nn.Module):", possibly after a log prefix.
        for (size_t at = l.find("class "); at != std::string_view::npos; at = l.find("class ", at + 1)) {
            bool wordStart = at == 0 || l[at - 1] == ' ' || l[at - 1] == '\t';
            std::string_view rest = trimmed(l.substr(at));
            if (wordStart && rest.ends_with(":") && rest.find('(') != std::string_view::npos)
                return DumpStart{pos + at, line, false};
        }
        pos = end + 1;
        ++line;
    }
    return std::nullopt;
}

Expected<FxFunction> parseFx(std::string_view text, const DumpStart &start, const std::string &sourceName)
{
    TokenizeOptions options;
    options.start = start.offset;
    options.graphForm = start.graphForm;
    options.sourceName = sourceName;
    auto tokens = tokenize(text, options);
    if (!tokens)
        return tokens.error();
    return Parser(text, std::move(*tokens), sourceName).run(start.graphForm);
}

} // namespace fusebox::fx
