#include "FxGraphStringParser.h"

#include "FxExprParser.h"
#include "FxTargets.h"

#include <algorithm>

namespace fusebox::fx {
namespace {

/// The Python spelling of a call_function target: "<built-in function
/// getitem>" (older str(graph) dumps) -> "operator.getitem"; others as written.
std::string pythonTarget(std::string target)
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
    return target;
}

/// A target as an error quotes it: on one line, at most 80 characters.
std::string firstLineOf(std::string_view text)
{
    const size_t end = std::min(text.find('\n'), size_t(80));
    return std::string(text.substr(0, end)) + (end < text.size() ? "..." : "");
}

/// True for "a.b.c" where every part is a Python identifier.
bool isDottedName(std::string_view target)
{
    for (size_t begin = 0;;) {
        const size_t dot = target.find('.', begin);
        if (!isIdentifier(target.substr(begin, dot == std::string_view::npos ? std::string_view::npos : dot - begin)))
            return false;
        if (dot == std::string_view::npos)
            return true;
        begin = dot + 1;
    }
}

/// "torch.ops.aten.add.Tensor" -> Name(torch).ops.aten.add.Tensor.
/// Its expressions and their texts are kept in `store`.
ExprPtr dottedExpr(ExprStore &store, const std::string &target, int line, int column)
{
    ExprPtr e = nullptr;
    size_t begin = 0;
    const std::string_view kept = store.keep(target);
    while (begin <= kept.size()) {
        size_t dot = kept.find('.', begin);
        std::string_view part = kept.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
        Expr x;
        x.line = line;
        x.column = column;
        x.text = part;
        if (e) {
            x.kind = Expr::Kind::Attribute;
            x.object = e;
        }
        e = store.make(std::move(x));
        if (dot == std::string::npos)
            break;
        begin = dot + 1;
    }
    return e;
}

/// The str(graph) form: a `graph():` header, then one node per line.
class GraphStringParser : public ExprParser {
public:
    GraphStringParser(std::string_view text, TokenStream stream, std::string sourceName)
        : ExprParser(text, stream, std::move(sourceName))
    {
        m_result.comments = std::move(stream.comments);
    }

    Expected<FxFunction> run()
    {
        if (!parseGraphForm())
            return Error{m_error};
        m_result.stores = takeStores();
        return std::move(m_result);
    }

private:
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
        const Token &targetTok = peek();
        size_t targetBegin = targetTok.begin;
        int depth = 0;
        while (!(isOp("]") && depth == 0)) {
            if (is(TokenKind::Newline) || is(TokenKind::End))
                return fail(peek(),
                            "']' to close the '[' at " + std::to_string(open.line) + ":" + std::to_string(open.column));
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
        ExprPtr args = nullptr, kwargs = nullptr;
        for (auto &[k, v] : call.keywords) {
            if (k == "args")
                args = v;
            else if (k == "kwargs")
                kwargs = v;
        }
        std::vector<ExprPtr> argItems = args ? args->items : std::vector<ExprPtr>{};
        if (args && args->kind != Expr::Kind::Tuple)
            argItems = {args};
        std::vector<std::pair<std::string_view, ExprPtr>> kwItems
            = kwargs ? kwargs->keywords : std::vector<std::pair<std::string_view, ExprPtr>>{};
        const int line = nameTok.line, column = nameTok.column;
        auto nameExpr = [&] { return make(Expr{Expr::Kind::Name, m_store.keep(name), nullptr, {}, {}, line, column}); };
        auto selfPath = [&] { return dottedExpr(m_store, "self." + target, line, column); };

        if (kind == "placeholder") {
            m_result.params.push_back(Param{name, std::nullopt, line, column, nullptr, 0});
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
            if (kind == "call_function" || kind == "call_method") {
                if (kind == "call_function")
                    target = pythonTarget(target);
                if (kind == "call_function" ? !isDottedName(target) : !isIdentifier(target)) {
                    m_error = positionPrefix(m_sourceName, targetTok.line, targetTok.column) + "expected a " + kind
                              + (kind == "call_function"
                                     ? " target (a dotted Python name or <built-in function ...>), found '"
                                     : " target (a method name), found '")
                              + firstLineOf(target) + "'";
                    return false;
                }
            }
            if (kind == "call_function") {
                c.object = dottedExpr(m_store, target, line, column);
                c.items = argItems;
            } else if (kind == "call_method") {
                if (argItems.empty())
                    return fail(open, "a call_method with a self argument");
                c.object = make(
                    Expr{Expr::Kind::Attribute, m_store.keep(target), argItems.front(), {}, {}, line, column});
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

    FxFunction m_result;
};

} // namespace

Expected<FxFunction> parseGraphString(std::string_view text, TokenStream stream, const std::string &sourceName)
{
    return GraphStringParser(text, std::move(stream), sourceName).run();
}

} // namespace fusebox::fx
