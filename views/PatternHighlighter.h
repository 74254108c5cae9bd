#pragma once

#include <QList>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <QTextEdit>

namespace fusebox {

/// Colours the pattern language (docs/pattern-language.md) in a QTextDocument:
/// keywords, op names (`aten::linear`, `aten::split.Tensor`), `#` comments,
/// strings, numbers, built-in functions (`users`, `shape`...) and dtype short
/// names (`f32`, `bf16`). Each line is classified on its own: the language
/// has no construct that spans lines.
class PatternHighlighter final : public QSyntaxHighlighter {
    Q_OBJECT

public:
    /// What a highlighted span of text is.
    enum class Role { Keyword, Op, Comment, String, Number, Function, DType };

    /// One highlighted span of a line; start and length in QString units.
    struct Span {
        int start = 0;
        int length = 0;
        Role role = Role::Keyword;
        friend bool operator==(const Span &, const Span &) = default;
    };

    /// Highlights document (which owns the highlighter).
    explicit PatternHighlighter(QTextDocument *document);

    /// The spans of one line, left to right; text that is none of the roles
    /// (names, punctuation) has no span. Never fails: malformed text (an
    /// unterminated string) is classified as far as it goes.
    static QList<Span> classify(const QString &line);

    /// The end (exclusive) of the token of line that starts at start: a name
    /// or op name (`aten::split.Tensor`), a string, a number; else the
    /// character at start. start must be inside line.
    static int tokenEnd(const QString &line, int start);

    /// The character format used for role.
    static QTextCharFormat formatFor(Role role);

    /// The marks of an error at line:column of document (1-based; the column
    /// counts UTF-8 bytes, as the pattern parser does): a light background on
    /// the line and a red wavy underline (QTextCharFormat::WaveUnderline)
    /// from the column to the end of the token there, or of the line when the
    /// column is on a space; past the end, the line's last character. A line
    /// past the end marks the last line. Empty when line < 1.
    static QList<QTextEdit::ExtraSelection> errorSelections(QTextDocument *document, int line, int column);

protected:
    void highlightBlock(const QString &text) override;
};

} // namespace fusebox
