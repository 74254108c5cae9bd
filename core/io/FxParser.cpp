#include "FxParser.h"

#include "FxExprParser.h"
#include "FxGraphStringParser.h"
#include "FxTargets.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <thread>

namespace fusebox::fx {
namespace {

/// The print_readable form: a module class (or a bare `def forward(`) of simple statements.
class Parser : public ExprParser {
public:
    Parser(std::string_view text, TokenStream stream, std::string sourceName)
        : ExprParser(text, stream, std::move(sourceName))
        , m_comments(std::move(stream.comments))
    {}
    /// A parser over `main`'s tokens at token `pos`, for parseBody's second half.
    Parser(const Parser &main, size_t pos)
        : ExprParser(main, pos)
    {}

    Expected<FxFunction> run()
    {
        FxFunction result;
        bool ok = isName("class") ? parseClass(result, 0) : parseDef(&result);
        if (!ok)
            return Error{m_error};
        assignComments(result, 1, std::numeric_limits<int>::max());
        result.stores = takeStores();
        return result;
    }

private:
    /// Classes nested deeper than this are an error (reported when called).
    static constexpr int kMaxClassNesting = 32;

    // --- print_readable ------------------------------------------------------
    /// `class Name(...):` and its body into out; nested classes at depth + 1.
    bool parseClass(FxFunction &out, int depth)
    {
        next(); // "class"
        std::string name;
        while (!isOp("(") && !isOp(":")) {
            if (is(TokenKind::Newline) || is(TokenKind::End))
                return fail(peek(), "'(' after the class name");
            name += next().text;
        }
        out.className = name;
        if (isOp("(") && !skipGroup())
            return false;
        if (!expectOp(":") || !expectKind(TokenKind::Newline, "end of line after the class header")
            || !expectKind(TokenKind::Indent, "an indented class body"))
            return false;
        bool haveForward = false;
        while (!is(TokenKind::Dedent) && !is(TokenKind::End)) {
            if (isName("def")) {
                bool isForward = peek(1).text == "forward" && !haveForward;
                if (!parseDef(isForward ? &out : nullptr))
                    return false;
                haveForward = haveForward || isForward;
            } else if (isName("class")) {
                if (!parseNested(out, depth + 1))
                    return false;
            } else {
                if (!parseSimpleStatements(nullptr))
                    return false;
            }
        }
        if (!haveForward)
            return fail(peek(), "'def forward(self, ...):' in class " + name);
        if (depth > 0) // a nested class ends with its dedent
            return expectKind(TokenKind::Dedent, "the end of class " + name);
        return true;
    }

    /// A nested class. Errors in its body are kept in the NestedClass (the
    /// reader reports them if the class is called); the class is then skipped.
    bool parseNested(FxFunction &parent, int depth)
    {
        const size_t startPos = m_pos;
        const Token start = peek();
        NestedClass nested;
        nested.line = start.line;
        nested.column = start.column;
        auto fn = std::make_shared<FxFunction>();
        if (depth > kMaxClassNesting
                ? fail(start, "at most " + std::to_string(kMaxClassNesting) + " levels of nested classes")
                : parseClass(*fn, depth)) {
            nested.name = fn->className;
            nested.function = std::move(fn);
        } else {
            nested.error = std::move(m_error);
            m_error.clear();
            m_pos = startPos;
            if (!skipClass(nested))
                return false;
        }
        for (size_t i = startPos; i < m_pos; ++i)
            if (m_tokens[i].kind != TokenKind::Indent && m_tokens[i].kind != TokenKind::Dedent)
                nested.endLine = std::max(nested.endLine, m_tokens[i].line);
        nested.source = sourceLines(start, nested.endLine);
        // FX never prints two children of one name; which one a call or a
        // higher-order op meant would be a guess.
        for (const NestedClass &sibling : parent.nested)
            if (sibling.name == nested.name) {
                const Token &name = m_tokens[startPos + 1];
                m_error = positionPrefix(m_sourceName, name.line, name.column) + "expected a new class name, found '"
                          + nested.name + "' (already defined at line " + std::to_string(sibling.line) + ")";
                return false;
            }
        parent.nested.push_back(std::move(nested));
        return true;
    }

    /// Lines first.line..last of the text, dedented by the first line's
    /// indentation (less on lines that have less), trailing spaces removed.
    /// Indentation is measured as the tokenizer measures it (tabs to the next
    /// multiple of 8) and written as spaces, so the text keeps its block
    /// structure when the writer indents it again.
    std::string sourceLines(const Token &first, int last) const
    {
        size_t pos = first.begin == 0 ? 0 : m_text.rfind('\n', first.begin - 1);
        pos = pos == std::string_view::npos ? 0 : pos + 1;
        auto indentation = [](std::string_view l) {
            size_t width = 0, chars = 0;
            for (; chars < l.size() && (l[chars] == ' ' || l[chars] == '\t'); ++chars)
                width = l[chars] == '\t' ? (width / 8 + 1) * 8 : width + 1;
            return std::pair{width, chars};
        };
        size_t dedent = 0;
        std::string out;
        for (int line = first.line; line <= last && pos < m_text.size(); ++line) {
            size_t end = m_text.find('\n', pos);
            if (end == std::string_view::npos)
                end = m_text.size();
            std::string_view l = m_text.substr(pos, end - pos);
            const auto [width, chars] = indentation(l);
            if (line == first.line)
                dedent = width;
            l.remove_prefix(chars);
            while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r'))
                l.remove_suffix(1);
            out += (l.empty() ? std::string() : std::string(width - std::min(width, dedent), ' ')) + std::string(l)
                   + "\n";
            pos = end + 1;
        }
        return out;
    }

    /// Skips a class without parsing its body; fails only when its header or
    /// indentation is broken (the enclosing code cannot be parsed then either).
    bool skipClass(NestedClass &nested)
    {
        next(); // "class"
        while (!isOp("(") && !isOp(":") && !is(TokenKind::Newline) && !is(TokenKind::End))
            nested.name += next().text;
        if (isOp("(") && !skipGroup())
            return false;
        if (!expectOp(":") || !expectKind(TokenKind::Newline, "end of line after the class header")
            || !expectKind(TokenKind::Indent, "an indented class body"))
            return false;
        for (int depth = 1; depth > 0;) {
            if (is(TokenKind::End))
                return fail(peek(), "the end of class " + nested.name);
            const Token &t = next();
            depth += t.kind == TokenKind::Indent ? 1 : t.kind == TokenKind::Dedent ? -1 : 0;
        }
        return true;
    }

    /// fn's comments: those on lines first..last outside its nested classes.
    void assignComments(FxFunction &fn, int first, int last)
    {
        size_t n = 0;
        for (const Comment &c : m_comments) {
            if (c.line < first || c.line > last)
                continue;
            while (n < fn.nested.size() && fn.nested[n].endLine < c.line)
                ++n;
            if (n < fn.nested.size() && fn.nested[n].line <= c.line)
                continue;
            fn.comments.push_back(c);
        }
        for (NestedClass &nested : fn.nested)
            if (nested.function)
                assignComments(*nested.function, nested.line, nested.endLine);
    }

    /// A def; forward's parameters and body go to out when it is given.
    bool parseDef(FxFunction *out)
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
            int star = isOp("*") ? 1 : isOp("**") ? 2 : 0;
            if (star)
                next();
            Param p;
            p.line = peek().line;
            p.column = peek().column;
            p.star = star;
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
                p.defaultValue = parseExpr();
                if (!p.defaultValue)
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
        if (!parseBody(body))
            return false;
        if (!expectKind(TokenKind::Dedent, "the end of " + fname + "()"))
            return false;
        if (out) {
            if (!params.empty() && params.front().name == "self")
                params.erase(params.begin());
            out->params = std::move(params);
            out->body = std::move(body);
            out->line = defTok.line;
            out->column = defTok.column;
        }
        return true;
    }

    /// A body this long (about 10k nodes of Dynamo code) is parsed in two halves at once.
    static constexpr size_t kParallelBodyTokens = 100000;

    /// A function body's statements, up to the Dedent that ends it. A long
    /// body is parsed in two halves at once: a second parser starts at a
    /// statement boundary past the middle while this one parses up to it.
    /// The cursor is a statement parse's only state, so when this parser
    /// lands exactly on that boundary, the second half's statements are the
    /// ones it would have parsed itself. Otherwise (the boundary lay past the
    /// body's end) or when the second half failed, it goes on alone: the
    /// statements and the first error are always those of one sequential parse.
    bool parseBody(std::vector<Stmt> &body)
    {
        const size_t split = m_tokens.size() - m_pos >= kParallelBodyTokens && std::thread::hardware_concurrency() > 1
                                 ? statementBoundaryAfter(m_pos + (m_tokens.size() - m_pos) / 2)
                                 : m_tokens.size();
        if (split < m_tokens.size()) {
            Parser second(*this, split);
            std::vector<Stmt> rest;
            bool secondOk = false;
            std::thread worker([&] {
                try {
                    secondOk = second.parseStatements(rest, m_tokens.size());
                } catch (...) { // (memory): the sequential parse below meets it again
                    secondOk = false;
                }
            });
            const bool ok = parseStatements(body, split);
            worker.join();
            if (!ok)
                return false;
            if (m_pos == split && secondOk) {
                body.insert(body.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
                m_pos = second.m_pos;
                for (auto &store : second.takeStores())
                    m_stores.push_back(std::move(store));
                return true;
            }
        }
        return parseStatements(body, m_tokens.size());
    }

    /// Simple statements into body until the end of the block, or until the
    /// cursor reaches token `stop`.
    bool parseStatements(std::vector<Stmt> &body, size_t stop)
    {
        while (m_pos < stop && !is(TokenKind::Dedent) && !is(TokenKind::End))
            if (!parseSimpleStatements(&body))
                return false;
        return true;
    }

    /// The first statement boundary at or after token `from` (the token
    /// after a Newline that begins a statement of the same block), or the
    /// token count when there is none.
    size_t statementBoundaryAfter(size_t from) const
    {
        for (size_t i = from; i + 1 < m_tokens.size(); ++i)
            if (m_tokens[i].kind == TokenKind::Newline && m_tokens[i + 1].kind == TokenKind::Name)
                return i + 1;
        return m_tokens.size();
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
        a.text = m_text.substr(begin, end > begin ? end - begin : 0);
        return true;
    }

    /// small_stmt (';' small_stmt)* NEWLINE; statements go to body when given.
    bool parseSimpleStatements(std::vector<Stmt> *body)
    {
        if (isName("if") || isName("for") || isName("while") || isName("with") || isName("try") || isName("def"))
            return fail(peek(), "a simple statement (FX code has no blocks)");
        while (true) {
            if (!skipValueRelease()) {
                Stmt s;
                if (!parseSmallStatement(s))
                    return false;
                s.endLine = m_tokens[m_pos > 0 ? m_pos - 1 : 0].line;
                if (body)
                    body->push_back(std::move(s));
            }
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

    /// Skips `a = b = ... = None` up to the ';' or end of line after it: the
    /// way Dynamo code releases values early (after nearly every node). The
    /// reader builds nothing for it, so it is not made into a statement (half
    /// the expressions of a large dump). True when it skipped one.
    bool skipValueRelease()
    {
        auto plainName = [&](size_t i) {
            return m_tokens[i].kind == TokenKind::Name && !isPythonKeyword(m_tokens[i].text);
        };
        auto isOpAt = [&](size_t i, std::string_view o) {
            return m_tokens[i].kind == TokenKind::Op && m_tokens[i].text == o;
        };
        // The token vector ends with End, so reading one past a non-End token is safe.
        size_t p = m_pos;
        if (!plainName(p) || !isOpAt(p + 1, "="))
            return false;
        p += 2;
        while (plainName(p) && isOpAt(p + 1, "="))
            p += 2;
        if (m_tokens[p].kind != TokenKind::Name || m_tokens[p].text != "None")
            return false;
        if (m_tokens[p + 1].kind != TokenKind::Newline && !isOpAt(p + 1, ";"))
            return false;
        m_pos = p + 1;
        return true;
    }

    static bool isAugmentedAssignment(std::string_view op)
    {
        return op == "+=" || op == "-=" || op == "*=" || op == "/=" || op == "@=" || op == "%=" || op == "//="
               || op == "**=";
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
        if (peek().kind == TokenKind::Op && isAugmentedAssignment(peek().text) && !s.annotation) {
            // `a += b` binds a to a + b: FX records operator.iadd, whose value is the sum.
            if (first->kind != Expr::Kind::Name)
                return fail(peek(), "a name before '" + std::string(peek().text) + "'");
            const Token &op = next();
            ExprPtr right = parseTestList();
            if (!right)
                return false;
            Expr b;
            b.kind = Expr::Kind::Binary;
            b.text = op.text.substr(0, op.text.size() - 1);
            b.line = first->line;
            b.column = first->column;
            b.items = {first, right};
            s.kind = Stmt::Kind::Assign;
            s.augmented = true;
            s.targets.push_back(first);
            s.value = make(std::move(b));
            return true;
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
        if (s.targets.size() == 1 && s.targets[0]->kind == Expr::Kind::Subscript && !s.annotation)
            return true; // `x[idx] = v`: Dynamo's operator.setitem
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

    std::vector<Comment> m_comments;
};

bool startsWithWord(std::string_view line, std::string_view word)
{
    return line.starts_with(word)
           && (line.size() == word.size() || line[word.size()] == ' ' || line[word.size()] == '(');
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
    if (start.graphForm)
        return parseGraphString(text, std::move(*tokens), sourceName);
    return Parser(text, std::move(*tokens), sourceName).run();
}

} // namespace fusebox::fx
