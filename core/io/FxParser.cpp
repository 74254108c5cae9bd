#include "FxParser.h"

#include "FxExprParser.h"
#include "FxGraphStringParser.h"

#include <algorithm>

namespace fusebox::fx {
namespace {

/// The print_readable form: a module class (or a bare `def forward(`) of simple statements.
class Parser : public ExprParser {
public:
    Parser(std::string_view text, TokenStream stream, std::string sourceName)
        : ExprParser(text, std::move(stream.tokens), std::move(sourceName))
    {
        m_result.comments = std::move(stream.comments);
    }

    Expected<FxFunction> run()
    {
        bool ok = isName("class") ? parseClass() : parseDef(true);
        if (!ok)
            return Error{m_error};
        return std::move(m_result);
    }

private:
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

    FxFunction m_result;
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
    if (start.graphForm)
        return parseGraphString(text, std::move(*tokens), sourceName);
    return Parser(text, std::move(*tokens), sourceName).run();
}

} // namespace fusebox::fx
