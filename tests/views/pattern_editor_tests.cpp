#include "core/ir/GraphBuilder.h"
#include "ViewTestGraphs.h"

#include "core/io/PatternFile.h"
#include "core/ir/OpSchema.h"
#include "views/PatternEditor.h"
#include "views/TaskService.h"
#include "views/PatternHighlighter.h"

#include <catch.hpp>

#include <QApplication>
#include <QFile>
#include <QHelpEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextLayout>
#include <QToolTip>

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {

const QString kLinearRelu = QStringLiteral(R"(# fuse relu into the linear that feeds it
pattern linear_relu_fusion {
    benefit = 10
    match {
        y = aten::linear(x, w, b)
        r = aten::relu(y)
    }
    where {
        users(y) == 1
        dtype(x) in [f32, bf16]
    }
    replace {
        r = fusebox::linear_relu(x, w, b)
    }
}
)");

const QString kLinearGelu = QStringLiteral(R"(
pattern linear_gelu_fusion {
    match {
        y = aten::linear(x, w, b)
        r = aten::gelu(y)
    }
    replace {
        r = fusebox::linear_gelu(x, w, b)
    }
}
)");

/// x -> two linear -> relu chains and one linear -> gelu, all outputs.
std::shared_ptr<const Graph> twoChainGraph()
{
    auto g = std::make_shared<Graph>();
    GraphBuilder build(*g);
    NodeId x = build.addInput("x", f32({4, 16}));
    std::vector<Arg> outputs;
    for (int i = 0; i < 3; ++i) {
        const std::string n = std::to_string(i);
        NodeId w = build.addConstant("w" + n, "w" + n, f32({16, 16}));
        NodeId lin = build.addOp("aten::linear", {x, w, NoneArg{}}, {}, "fc" + n);
        build.node(lin).meta = f32({4, 16});
        NodeId act = build.addOp(i < 2 ? "aten::relu" : "aten::gelu", {lin}, {}, "act" + n);
        build.node(act).meta = f32({4, 16});
        outputs.push_back(act);
    }
    build.setOutputs(outputs);
    return g;
}

OpSchemaRegistry editorSchemas()
{
    OpSchemaRegistry registry;
    registry.add({"aten::linear",
                  "",
                  {{"input", "Tensor", {}, false}, {"weight", "Tensor", {}, false}, {"bias", "Tensor?", "None", false}},
                  {{"", "Tensor", {}, false}},
                  false});
    registry.add({"aten::relu", "", {{"self", "Tensor", {}, false}}, {{"", "Tensor", {}, false}}, false});
    return registry;
}

// Compiles now and waits for the final state.
void compileAndWait(PatternEditor &editor)
{
    QSignalSpy finished(&editor, &PatternEditor::compileFinished);
    editor.compileNow();
    if (finished.isEmpty())
        REQUIRE(finished.wait(30000));
    REQUIRE(finished.size() == 1);
    CHECK_FALSE(editor.isBusy());
}

// The underlined extra selection, or a null cursor.
QTextCursor errorMarker(const PatternEditor &editor)
{
    for (const QTextEdit::ExtraSelection &s : editor.textEdit()->extraSelections()) {
        if (s.format.underlineStyle() == QTextCharFormat::WaveUnderline)
            return s.cursor;
    }
    return {};
}

} // namespace

TEST_CASE("PatternEditor matches a compiled pattern on the graph in the background", "[views][editor]")
{
    PatternEditor editor;
    editor.setGraph(twoChainGraph());
    editor.setText(kLinearRelu);
    QSignalSpy changed(&editor, &PatternEditor::liveMatchesChanged);
    compileAndWait(editor);

    CHECK_FALSE(editor.hasError());
    CHECK(editor.errorLine() == 0);
    REQUIRE(editor.liveMatches().size() == 2);
    for (const Match &m : editor.liveMatches())
        CHECK(m.pattern == "linear_relu_fusion");
    CHECK(changed.size() == 1);
    CHECK(editor.statusText() == QStringLiteral("1 pattern · 2 matches (linear_relu_fusion 2)"));
    CHECK(editor.findChild<QLabel *>(QStringLiteral("patternStatus"))->text() == editor.statusText());
    CHECK(editor.textEdit()->objectName() == QStringLiteral("patternText"));
    CHECK(errorMarker(editor).isNull());

    // Two patterns: counted per pattern, in file order.
    editor.setText(kLinearRelu + kLinearGelu);
    compileAndWait(editor);
    CHECK(editor.liveMatches().size() == 3);
    CHECK(editor.statusText() == QStringLiteral("2 patterns · 3 matches (linear_relu_fusion 2, linear_gelu_fusion 1)"));

    // Without a graph it says what compiled.
    editor.setGraph(nullptr);
    compileAndWait(editor);
    CHECK(editor.liveMatches().empty());
    CHECK(editor.statusText() == QStringLiteral("2 patterns compiled · no graph to match against"));
}

TEST_CASE("PatternEditor marks the first error where the parser puts it", "[views][editor]")
{
    const OpSchemaRegistry schemas = editorSchemas();
    PatternEditor editor;
    editor.setSchemas(&schemas);
    editor.setSourceName(QStringLiteral("fusion.patterns"));
    editor.setGraph(twoChainGraph());
    QString text = kLinearRelu;
    text.replace(QStringLiteral("aten::relu(y)"), QStringLiteral("aten::rleu(y)"));
    editor.setText(text);
    editor.textEdit()->moveCursor(QTextCursor::End);
    const int cursorBefore = editor.textEdit()->textCursor().position();
    compileAndWait(editor);

    PatternFileReadOptions options;
    options.sourceName = "fusion.patterns";
    options.schemas = &schemas;
    const Expected<PatternFile> parsed = parsePatternFile(text.toStdString(), options);
    REQUIRE_FALSE(parsed.hasValue());
    CHECK(parsed.error().message == "fusion.patterns:6:13: unknown op 'aten::rleu' (did you mean 'aten::relu'?)");

    REQUIRE(editor.hasError());
    CHECK(editor.errorMessage() == QString::fromStdString(parsed.error().message));
    CHECK(editor.errorLine() == 6);
    CHECK(editor.errorColumn() == 13);
    CHECK(editor.statusText() == editor.errorMessage());
    CHECK(editor.liveMatches().empty());
    const QTextCursor marker = errorMarker(editor);
    REQUIRE_FALSE(marker.isNull());
    CHECK(marker.block().blockNumber() == 5);
    CHECK(marker.selectedText() == QStringLiteral("aten::rleu"));
    // The cursor stays where the user left it.
    CHECK(editor.textEdit()->textCursor().position() == cursorBefore);

    // A syntax error: the position is the parser's too.
    editor.setText(QStringLiteral("pattern p {\n    match {\n        y = aten::linear(x w)\n    }\n}\n"));
    compileAndWait(editor);
    REQUIRE(editor.hasError());
    CHECK(editor.errorLine() == 3);
    CHECK(editor.errorColumn() == 28);
    CHECK(editor.errorMessage().startsWith(QStringLiteral("fusion.patterns:3:28: ")));
    CHECK(errorMarker(editor).block().blockNumber() == 2);
    CHECK(errorMarker(editor).selectedText() == QStringLiteral("w"));

    // Fixing the text clears the marker.
    editor.setText(kLinearRelu);
    compileAndWait(editor);
    CHECK_FALSE(editor.hasError());
    CHECK(editor.errorLine() == 0);
    CHECK(editor.errorColumn() == 0);
    CHECK(editor.textEdit()->extraSelections().isEmpty());
    CHECK(editor.liveMatches().size() == 2);
}

TEST_CASE("PatternEditor compiles once after a burst of edits", "[views][editor]")
{
    PatternEditor editor;
    editor.setGraph(twoChainGraph());
    QSignalSpy finished(&editor, &PatternEditor::compileFinished);
    editor.setText(QStringLiteral("pattern broken {"));
    editor.setText(kLinearRelu);
    CHECK(editor.isBusy());
    CHECK(finished.isEmpty());
    REQUIRE(finished.wait(30000));
    // Nothing else arrives: the first text was never compiled.
    CHECK_FALSE(finished.wait(800));
    CHECK(finished.size() == 1);
    CHECK_FALSE(editor.hasError());
    CHECK(editor.liveMatches().size() == 2);

    // Typing into the widget goes through the debounce too.
    editor.textEdit()->moveCursor(QTextCursor::End);
    editor.textEdit()->insertPlainText(QStringLiteral("pattern"));
    CHECK(editor.isBusy());
    REQUIRE(finished.wait(30000));
    CHECK(finished.size() == 2);
    CHECK(editor.hasError());
}

TEST_CASE("PatternEditor saves its text and hands it to the document", "[views][editor]")
{
    PatternEditor editor;
    editor.setText(kLinearRelu);
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("fusion.patterns"));
    QString error;
    REQUIRE(editor.saveTo(path, &error));
    CHECK(error.isEmpty());
    QFile file(path);
    REQUIRE(file.open(QIODevice::ReadOnly));
    CHECK(QString::fromUtf8(file.readAll()) == kLinearRelu);

    CHECK_FALSE(editor.saveTo(dir.filePath(QStringLiteral("missing/dir/x.patterns")), &error));
    CHECK(error.contains(QStringLiteral("missing/dir/x.patterns")));

    QSignalSpy used(&editor, &PatternEditor::useRequested);
    auto *use = editor.findChild<QPushButton *>(QStringLiteral("patternUse"));
    REQUIRE(use);
    use->click();
    REQUIRE(used.size() == 1);
    CHECK(used.first().at(0).toString() == kLinearRelu);
    QSignalSpy save(&editor, &PatternEditor::saveRequested);
    editor.findChild<QPushButton *>(QStringLiteral("patternSave"))->click();
    CHECK(save.size() == 1);
}

TEST_CASE("PatternHighlighter colours the pattern language", "[views][editor]")
{
    using Role = PatternHighlighter::Role;
    const QString line = QStringLiteral(
        "    r = aten::split.Tensor(x, 16, \"a # b\") and dtype(x) in [f32, bf16]  # why");
    const QList<PatternHighlighter::Span> spans = PatternHighlighter::classify(line);
    auto roleOf = [&](const QString &token) -> std::optional<Role> {
        for (const PatternHighlighter::Span &s : spans) {
            if (line.mid(s.start, s.length) == token)
                return s.role;
        }
        return std::nullopt;
    };
    CHECK(roleOf(QStringLiteral("aten::split.Tensor")) == Role::Op);
    CHECK(roleOf(QStringLiteral("16")) == Role::Number);
    CHECK(roleOf(QStringLiteral("\"a # b\"")) == Role::String);
    CHECK(roleOf(QStringLiteral("and")) == Role::Keyword);
    CHECK(roleOf(QStringLiteral("in")) == Role::Keyword);
    CHECK(roleOf(QStringLiteral("dtype")) == Role::Function);
    CHECK(roleOf(QStringLiteral("f32")) == Role::DType);
    CHECK(roleOf(QStringLiteral("bf16")) == Role::DType);
    CHECK(roleOf(QStringLiteral("# why")) == Role::Comment);
    CHECK_FALSE(roleOf(QStringLiteral("x")).has_value());
    CHECK_FALSE(roleOf(QStringLiteral("r")).has_value());
    // Unterminated strings run to the end of the line.
    CHECK(PatternHighlighter::classify(QStringLiteral("d = \"open")).last().length == 5);

    // In the editor the formats reach the document's layout.
    PatternEditor editor;
    editor.setText(kLinearRelu);
    const QTextBlock block = editor.textEdit()->document()->findBlockByNumber(4);
    REQUIRE(block.text().contains(QStringLiteral("aten::linear")));
    const int opStart = int(block.text().indexOf(QStringLiteral("aten::linear")));
    bool coloured = false;
    for (const QTextLayout::FormatRange &r : block.layout()->formats()) {
        if (r.start == opStart && r.length == 12)
            coloured = r.format.foreground() == PatternHighlighter::formatFor(Role::Op).foreground();
    }
    CHECK(coloured);
}

TEST_CASE("PatternEditor draws the error marker under the token", "[views][editor]")
{
    const OpSchemaRegistry schemas = editorSchemas();
    PatternEditor editor;
    editor.setSchemas(&schemas);
    QString text = kLinearRelu;
    text.replace(QStringLiteral("aten::relu(y)"), QStringLiteral("aten::rleu(y)"));
    editor.setText(text);
    editor.resize(700, 400);
    editor.show();
    compileAndWait(editor);
    REQUIRE(editor.hasError());

    // Red underline pixels lie within the marked token's rectangle, none elsewhere.
    QPlainTextEdit *edit = editor.textEdit();
    const QTextCursor marker = errorMarker(editor);
    QTextCursor first = marker;
    first.setPosition(marker.selectionStart());
    QTextCursor last = marker;
    last.setPosition(marker.selectionEnd());
    const QRect token = edit->cursorRect(first).united(edit->cursorRect(last)).adjusted(-2, -2, 2, 6);
    const QImage image = edit->viewport()->grab().toImage();
    int inside = 0, outside = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (c.red() < 200 || c.green() > 120 || c.blue() > 120)
                continue;
            const QPoint widgetPos(x * edit->viewport()->width() / image.width(),
                                   y * edit->viewport()->height() / image.height());
            ++(token.contains(widgetPos) ? inside : outside);
        }
    }
    CHECK(inside > 10);
    CHECK(outside == 0);

    // Hovering the token shows the message.
    const QPoint inToken = token.center();
    QHelpEvent hover(QEvent::ToolTip, inToken, edit->viewport()->mapToGlobal(inToken));
    QApplication::sendEvent(edit->viewport(), &hover);
    CHECK(QToolTip::text() == editor.errorMessage());
}

TEST_CASE("PatternEditor survives every prefix of a pattern file and odd text", "[views][editor]")
{
    const OpSchemaRegistry schemas = editorSchemas();
    PatternEditor editor;
    editor.setSchemas(&schemas);
    editor.setGraph(twoChainGraph());
    const QString full = kLinearRelu + kLinearGelu;
    int errors = 0;
    for (qsizetype n = 0; n <= full.size(); n += 3) {
        editor.setText(full.left(n));
        editor.compileNow();
        if (editor.hasError()) {
            ++errors;
            CHECK(editor.errorLine() >= 1);
            CHECK(editor.errorLine() <= editor.textEdit()->document()->blockCount());
        }
    }
    CHECK(errors > 50);
    for (const QString &odd : {QStringLiteral("pattern p { description = \"é→ü\" match { y = aten::rleu(x) } }"),
                               QStringLiteral("\u00e9\u00e9 = ("), QStringLiteral("\"unterminated"),
                               QString(2000, QLatin1Char('(')), QStringLiteral("pattern\n\n\n")}) {
        editor.setText(odd);
        editor.compileNow();
        CHECK(editor.hasError());
    }
    // Multi-byte characters before the error: the marker still covers the token.
    editor.setText(QStringLiteral("pattern p {\n    match { y = aten::linear(x, \"é→ü\", aten::rleu(x)) }\n}\n"));
    editor.compileNow();
    REQUIRE(editor.hasError());
    INFO(editor.errorMessage().toStdString());
    CHECK(editor.errorLine() == 2);
    CHECK(editor.errorColumn() == 44); // character 40: é and ü take 2 bytes, → 3
    CHECK(errorMarker(editor).block().blockNumber() == 1);
    CHECK(errorMarker(editor).selectedText() == QStringLiteral("aten::rleu"));

    // The last compile is the one that counts, whatever was still searching.
    editor.setText(kLinearRelu);
    compileAndWait(editor);
    CHECK(editor.liveMatches().size() == 2);
}

TEST_CASE("PatternEditor's live search is a task of the service it is given", "[views][editor]")
{
    // The window gives the editor its document's service, so that the status
    // bar shows the search and Cancel stops it (issue 36: one task service).
    TaskService service;
    QStringList titles;
    QObject::connect(&service, &TaskService::changed, [&] {
        if (const QString t = service.statusText(kEditorSearchTask); !t.isEmpty())
            titles << t;
    });
    PatternEditor editor;
    editor.setTasks(&service);
    editor.setGraph(twoChainGraph());
    editor.setText(kLinearRelu);
    compileAndWait(editor);
    REQUIRE(editor.liveMatches().size() == 2);
    REQUIRE_FALSE(titles.isEmpty());
    CHECK(titles.first().startsWith(QStringLiteral("Pattern Editor: matching")));
    CHECK_FALSE(service.isRunning(kEditorSearchTask));
}
