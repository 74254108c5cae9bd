#include "PatternHighlighter.h"

#include "core/io/PatternAst.h"
#include "core/ir/DType.h"

#include <QColor>
#include <QFont>
#include <QTextBlock>
#include <QTextDocument>

#include <algorithm>

#include <string>

namespace fusebox {

namespace {

bool isNameStart(QChar c)
{
    return c == u'_' || (c.unicode() < 128 && c.isLetter());
}

bool isNameChar(QChar c)
{
    return isNameStart(c) || (c.unicode() < 128 && c.isDigit());
}

bool isDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

// End of the name starting at i (i must be a name start).
int nameEnd(const QString &line, int i)
{
    while (i < line.size() && isNameChar(line.at(i)))
        ++i;
    return i;
}

bool isKeyword(const QString &word)
{
    static const QStringList keywords = {QStringLiteral("pattern"),     QStringLiteral("match"),
                                         QStringLiteral("where"),       QStringLiteral("replace"),
                                         QStringLiteral("options"),     QStringLiteral("benefit"),
                                         QStringLiteral("description"), QStringLiteral("stage"),
                                         QStringLiteral("True"),        QStringLiteral("False"),
                                         QStringLiteral("None"),        QStringLiteral("and"),
                                         QStringLiteral("or"),          QStringLiteral("not"),
                                         QStringLiteral("in"),          QStringLiteral("pre_grad"),
                                         QStringLiteral("post_grad")};
    return keywords.contains(word);
}

bool isFunction(const QString &word)
{
    const std::string name = word.toStdString();
    for (const std::string &f : patternlang::builtinFunctions()) {
        if (f == name)
            return true;
    }
    return false;
}

// Only the short names are reserved words; "float32" or "Long" are ordinary names.
bool isDType(const QString &word)
{
    const std::string name = word.toStdString();
    const std::optional<DType> dtype = parseDType(name);
    return dtype && *dtype != DType::Unknown && shortName(*dtype) == name;
}

// End of the number starting at i: digits, a fraction, an exponent.
int numberEnd(const QString &line, int i)
{
    while (i < line.size() && isDigit(line.at(i)))
        ++i;
    if (i + 1 < line.size() && line.at(i) == u'.' && isDigit(line.at(i + 1))) {
        ++i;
        while (i < line.size() && isDigit(line.at(i)))
            ++i;
    }
    if (i < line.size() && (line.at(i) == u'e' || line.at(i) == u'E')) {
        int j = i + 1;
        if (j < line.size() && (line.at(j) == u'+' || line.at(j) == u'-'))
            ++j;
        if (j < line.size() && isDigit(line.at(j))) {
            i = j;
            while (i < line.size() && isDigit(line.at(i)))
                ++i;
        }
    }
    return i;
}

// End of the string starting at the quote at i; the line's end when unterminated.
int stringEnd(const QString &line, int i)
{
    const QChar quote = line.at(i);
    for (++i; i < line.size(); ++i) {
        if (line.at(i) == u'\\')
            ++i;
        else if (line.at(i) == quote)
            return i + 1;
    }
    return int(line.size());
}

} // namespace

PatternHighlighter::PatternHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document)
{}

QList<PatternHighlighter::Span> PatternHighlighter::classify(const QString &line)
{
    QList<Span> spans;
    int i = 0;
    while (i < line.size()) {
        const QChar c = line.at(i);
        if (c == u'#') {
            spans.append({i, int(line.size()) - i, Role::Comment});
            break;
        }
        if (c == u'"' || c == u'\'') {
            const int end = stringEnd(line, i);
            spans.append({i, end - i, Role::String});
            i = end;
            continue;
        }
        if (isDigit(c)) {
            const int end = numberEnd(line, i);
            spans.append({i, end - i, Role::Number});
            i = end;
            continue;
        }
        if (!isNameStart(c)) {
            ++i;
            continue;
        }
        // ns::op and ns::op.overload are one token.
        const int end = tokenEnd(line, i);
        if (end != nameEnd(line, i)) {
            spans.append({i, end - i, Role::Op});
            i = end;
            continue;
        }
        const QString word = line.mid(i, end - i);
        if (isKeyword(word))
            spans.append({i, end - i, Role::Keyword});
        else if (word == QLatin1String("getitem"))
            spans.append({i, end - i, Role::Op});
        else if (isFunction(word))
            spans.append({i, end - i, Role::Function});
        else if (isDType(word))
            spans.append({i, end - i, Role::DType});
        i = end;
    }
    return spans;
}

int PatternHighlighter::tokenEnd(const QString &line, int start)
{
    const QChar c = line.at(start);
    if (c == u'"' || c == u'\'')
        return stringEnd(line, start);
    if (isDigit(c))
        return numberEnd(line, start);
    if (!isNameStart(c))
        return start + 1;
    int end = nameEnd(line, start);
    if (end + 2 < line.size() && line.at(end) == u':' && line.at(end + 1) == u':' && isNameStart(line.at(end + 2))) {
        end = nameEnd(line, end + 2);
        if (end + 1 < line.size() && line.at(end) == u'.' && isNameStart(line.at(end + 1)))
            end = nameEnd(line, end + 1);
    }
    return end;
}

QTextCharFormat PatternHighlighter::formatFor(Role role)
{
    QTextCharFormat format;
    switch (role) {
    case Role::Keyword:
        format.setForeground(QColor(0x1f, 0x3f, 0x9f));
        format.setFontWeight(QFont::Bold);
        break;
    case Role::Op: format.setForeground(QColor(0x8a, 0x1c, 0x7c)); break;
    case Role::Comment:
        format.setForeground(QColor(0x6a, 0x73, 0x7d));
        format.setFontItalic(true);
        break;
    case Role::String: format.setForeground(QColor(0x1b, 0x7a, 0x2e)); break;
    case Role::Number: format.setForeground(QColor(0xb3, 0x5c, 0x00)); break;
    case Role::Function: format.setForeground(QColor(0x00, 0x6e, 0x7f)); break;
    case Role::DType: format.setForeground(QColor(0x6f, 0x42, 0xc1)); break;
    }
    return format;
}

QList<QTextEdit::ExtraSelection> PatternHighlighter::errorSelections(QTextDocument *document, int line, int column)
{
    if (line < 1)
        return {};
    QTextBlock block = document->findBlockByNumber(line - 1);
    if (!block.isValid())
        block = document->lastBlock();
    const QString text = block.text();
    // The parser counts UTF-8 bytes; the document counts UTF-16 units.
    int start = int(QString::fromUtf8(text.toUtf8().left(std::max(column - 1, 0))).size());
    int end = int(text.size());
    if (start >= text.size())
        start = std::max(end - 1, 0);
    else if (!text.at(start).isSpace())
        end = tokenEnd(text, start);

    QTextEdit::ExtraSelection lineMark;
    lineMark.format.setBackground(QColor(0xfd, 0xec, 0xea));
    lineMark.format.setProperty(QTextFormat::FullWidthSelection, true);
    lineMark.cursor = QTextCursor(block);
    QTextEdit::ExtraSelection tokenMark;
    // Not SpellCheckUnderline: the platform theme picks its look, and some
    // (offscreen, macOS) draw a faint dotted line.
    tokenMark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    tokenMark.format.setUnderlineColor(Qt::red);
    tokenMark.format.setBackground(QColor(0xf9, 0xcf, 0xca));
    tokenMark.cursor = QTextCursor(block);
    tokenMark.cursor.setPosition(block.position() + start);
    tokenMark.cursor.setPosition(block.position() + end, QTextCursor::KeepAnchor);
    return {lineMark, tokenMark};
}

void PatternHighlighter::highlightBlock(const QString &text)
{
    for (const Span &span : classify(text))
        setFormat(span.start, span.length, formatFor(span.role));
}

} // namespace fusebox
