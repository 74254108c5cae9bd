#include "PatternEditor.h"
#include "TaskService.h"

#include "PatternHighlighter.h"

#include "core/io/PatternFile.h"
#include "core/ir/Graph.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"
#include "patterns/custom/PatternCompiler.h"
#include "patterns/custom/PatternFromSubgraph.h"

#include <QAction>
#include <QFontDatabase>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>
#include <utility>

namespace fusebox {

namespace {

constexpr int kDebounceMs = 300;
const char kUntitled[] = "untitled.patterns";
const QColor kErrorColor(0xc6, 0x28, 0x28);

// "source:line:col: problem" -> line, col. Names may contain colons, so the
// known source name is stripped first.
void parsePosition(const QString &message, const QString &source, int *line, int *column)
{
    static const QRegularExpression position(QStringLiteral("^(?:.*?:)?(\\d+):(\\d+): "));
    const QString prefix = source + QLatin1Char(':');
    const QRegularExpressionMatch m = position.match(message.startsWith(prefix) ? message.mid(prefix.size()) : message);
    *line = m.hasMatch() ? m.captured(1).toInt() : 0;
    *column = m.hasMatch() ? m.captured(2).toInt() : 0;
}

// Parses and compiles; the compiler reports errors as values, and anything
// escaping it must not take the GUI down.
Expected<std::vector<std::unique_ptr<Pattern>>> compileText(const std::string &text,
                                                            const PatternFileReadOptions &options)
{
    try {
        const Expected<PatternFile> file = parsePatternFile(text, options);
        if (!file)
            return file.error();
        return compilePatterns(*file, options.schemas);
    } catch (const std::exception &e) {
        return Error{options.sourceName + ": internal error while compiling: " + e.what()};
    } catch (...) {
        return Error{options.sourceName + ": internal error while compiling"};
    }
}

QString countOf(qsizetype n, const QString &one, const QString &many)
{
    return n == 1 ? QStringLiteral("1 %1").arg(one) : QStringLiteral("%1 %2").arg(n).arg(many);
}

} // namespace

struct PatternEditor::SearchJob {
    quint64 generation = 0;
    std::shared_ptr<PatternSet> patterns;
    std::shared_ptr<const Graph> graph;
    // Written by the worker; read on the GUI thread once the future finished.
    std::vector<Match> matches;
    QString failure;
};

PatternEditor::PatternEditor(QWidget *parent)
    : QWidget(parent)
    , m_text(new QPlainTextEdit(this))
    , m_status(new QLabel(this))
    , m_useButton(new QPushButton(tr("Use in Document"), this))
    , m_debounce(new QTimer(this))
    , m_tasks(new TaskService(this))
    , m_sourceName(QLatin1String(kUntitled))
{
    m_text->setObjectName(QStringLiteral("patternText"));
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_text->setFont(mono);
    m_text->setTabStopDistance(QFontMetricsF(mono).horizontalAdvance(QLatin1Char(' ')) * 4);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setPlaceholderText(tr("pattern name {\n    match {\n        y = aten::linear(x, w, b)\n"
                                  "        r = aten::relu(y)\n    }\n    replace {\n"
                                  "        r = fusebox::linear_relu(x, w, b)\n    }\n}"));
    m_text->viewport()->installEventFilter(this);
    new PatternHighlighter(m_text->document());

    m_status->setObjectName(QStringLiteral("patternStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *saveAction = new QAction(tr("Save…"), this);
    saveAction->setShortcut(QKeySequence::Save);
    // Only while the editor has focus: the main window has its own Ctrl+S.
    saveAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(saveAction);
    connect(saveAction, &QAction::triggered, this, &PatternEditor::saveRequested);
    auto *saveButton = new QPushButton(saveAction->text(), this);
    saveButton->setObjectName(QStringLiteral("patternSave"));
    saveButton->setToolTip(
        tr("Save the pattern file (%1)").arg(saveAction->shortcut().toString(QKeySequence::NativeText)));
    connect(saveButton, &QPushButton::clicked, saveAction, &QAction::trigger);

    m_useButton->setObjectName(QStringLiteral("patternUse"));
    m_useButton->setToolTip(tr("Add these patterns to the document's pattern set"));
    connect(m_useButton, &QPushButton::clicked, this, [this] { emit useRequested(text()); });

    auto *buttons = new QHBoxLayout;
    buttons->setContentsMargins(6, 2, 6, 4);
    buttons->addWidget(m_status, 1);
    buttons->addWidget(saveButton);
    buttons->addWidget(m_useButton);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    layout->addLayout(buttons);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, &PatternEditor::compileNow);
    connect(m_text, &QPlainTextEdit::textChanged, this, &PatternEditor::scheduleCompile);
    setStatus(tr("No patterns yet"), false);
}

PatternEditor::~PatternEditor()
{
    // The compiled patterns read the schema registry, which the caller may
    // destroy right after the editor: the search must not outlive it.
    if (m_runningSearch && m_tasks)
        m_tasks->waitFor(kEditorSearchTask);
}

void PatternEditor::setTasks(TaskService *tasks)
{
    if (m_runningSearch && m_tasks)
        m_tasks->waitFor(kEditorSearchTask); // its result goes to the old service's callback
    m_runningSearch = nullptr;
    m_tasks = tasks;
    scheduleCompile();
}

void PatternEditor::setText(const QString &text)
{
    m_text->setPlainText(text);
}

QString PatternEditor::text() const
{
    return m_text->toPlainText();
}

void PatternEditor::setSourceName(const QString &name)
{
    m_sourceName = name.isEmpty() ? QLatin1String(kUntitled) : name;
    scheduleCompile();
}

void PatternEditor::setSchemas(const OpSchemaRegistry *schemas)
{
    m_schemas = schemas;
    scheduleCompile();
}

void PatternEditor::setGraph(std::shared_ptr<const Graph> graph)
{
    m_graph = std::move(graph);
    scheduleCompile();
}

void PatternEditor::scheduleCompile()
{
    ++m_generation; // a search still running is for older input
    m_awaitingSearch = false;
    m_debounce->start();
}

void PatternEditor::compileNow()
{
    m_debounce->stop();
    const quint64 generation = ++m_generation;
    m_awaitingSearch = false;
    m_queuedSearch.reset();

    PatternFileReadOptions options;
    options.sourceName = m_sourceName.toStdString();
    options.schemas = m_schemas;
    Expected<std::vector<std::unique_ptr<Pattern>>> compiled = compileText(text().toStdString(), options);
    if (!compiled) {
        showError(QString::fromStdString(compiled.error().message));
        return;
    }
    auto patterns = std::make_shared<PatternSet>();
    QStringList names;
    for (std::unique_ptr<Pattern> &pattern : compiled.value()) {
        names << QString::fromStdString(pattern->name());
        patterns->add(std::move(pattern));
    }

    m_errorMessage.clear();
    m_errorLine = m_errorColumn = 0;
    m_text->setExtraSelections({});
    QToolTip::hideText();
    m_useButton->setEnabled(true);
    m_patternNames = names;
    m_unchanged.clear();
    if (auto parsed = parsePatternFile(text().toStdString(), options))
        for (const patternlang::PatternDecl &decl : parsed->patterns)
            if (patternChangesNothing(decl))
                m_unchanged << QString::fromStdString(decl.name);
    if (names.isEmpty() || !m_graph) {
        setMatches({});
        setStatus(names.isEmpty() ? tr("No patterns yet")
                                  : tr("%1 compiled · no graph to match against")
                                            .arg(countOf(names.size(), tr("pattern"), tr("patterns")))
                                        + unchangedNote(),
                  false);
        emit compileFinished();
        return;
    }

    setStatus(tr("%1 compiled · matching…").arg(countOf(names.size(), tr("pattern"), tr("patterns"))), false);
    auto job = std::make_shared<SearchJob>();
    job->generation = generation;
    job->patterns = std::move(patterns);
    job->graph = m_graph;
    m_awaitingSearch = true;
    if (m_runningSearch)
        m_queuedSearch = std::move(job);
    else
        startSearch(std::move(job));
}

void PatternEditor::startSearch(std::shared_ptr<SearchJob> job)
{
    m_runningSearch = job;
    if (!m_tasks) // the window's service went with its document
        m_tasks = new TaskService(this);
    m_tasks->run(
        tr("Pattern Editor: matching"), kEditorSearchTask, this,
        [job](TaskControl &) {
            try {
                job->matches = GreedyDriver(*job->patterns).findMatches(*job->graph);
            } catch (const std::exception &e) {
                job->failure = QString::fromUtf8(e.what());
            } catch (...) {
                job->failure = QStringLiteral("unknown error");
            }
        },
        [this](bool cancelled) { finishSearch(cancelled); });
}

void PatternEditor::finishSearch(bool cancelled)
{
    const std::shared_ptr<SearchJob> job = std::exchange(m_runningSearch, nullptr);
    if (std::shared_ptr<SearchJob> next = std::exchange(m_queuedSearch, nullptr);
        next && next->generation == m_generation)
        startSearch(std::move(next));
    if (!job || job->generation != m_generation)
        return; // superseded by an edit
    m_awaitingSearch = false;
    if (cancelled) {
        setMatches({});
        setStatus(tr("Matching cancelled; edit the text to match again"), false);
    } else if (!job->failure.isEmpty()) {
        setMatches({});
        setStatus(tr("Matching failed: %1").arg(job->failure), true);
    } else {
        setMatches(std::move(job->matches));
        setStatus(matchSummary() + unchangedNote(), false);
    }
    emit compileFinished();
}

void PatternEditor::showError(const QString &message)
{
    m_errorMessage = message;
    parsePosition(message, m_sourceName, &m_errorLine, &m_errorColumn);
    QToolTip::hideText();

    m_text->setExtraSelections(PatternHighlighter::errorSelections(m_text->document(), m_errorLine, m_errorColumn));
    m_useButton->setEnabled(false);
    m_patternNames.clear();
    setMatches({});
    setStatus(message, true);
    emit compileFinished();
}

void PatternEditor::setMatches(std::vector<Match> matches)
{
    if (matches.empty() && m_matches.empty())
        return;
    m_matches = std::move(matches);
    emit liveMatchesChanged();
}

void PatternEditor::setStatus(const QString &text, bool error)
{
    QPalette palette = m_status->palette();
    palette.setColor(QPalette::WindowText, error ? kErrorColor : this->palette().color(QPalette::WindowText));
    m_status->setPalette(palette);
    m_status->setText(text);
    m_status->setToolTip(error ? text : QString());
}

QString PatternEditor::matchSummary() const
{
    QString summary = countOf(m_patternNames.size(), tr("pattern"), tr("patterns")) + QStringLiteral(" · ")
                      + countOf(qsizetype(m_matches.size()), tr("match"), tr("matches"));
    QStringList perPattern;
    for (const QString &name : m_patternNames) {
        const std::string key = name.toStdString();
        const auto n = std::count_if(m_matches.begin(), m_matches.end(),
                                     [&key](const Match &m) { return m.pattern == key; });
        if (n > 0)
            perPattern << QStringLiteral("%1 %2").arg(name).arg(n);
    }
    if (!perPattern.isEmpty())
        summary += QStringLiteral(" (%1)").arg(perPattern.join(QStringLiteral(", ")));
    return summary;
}

QString PatternEditor::unchangedNote() const
{
    if (m_unchanged.isEmpty())
        return {};
    return m_unchanged.size() == 1
               ? tr(" · %1 changes nothing yet: its replace block is its match").arg(m_unchanged.front())
               : tr(" · %1 change nothing yet: their replace blocks are their matches")
                     .arg(m_unchanged.join(QStringLiteral(", ")));
}

QString PatternEditor::suggestedFileName() const
{
    if (!m_savedPath.isEmpty())
        return m_savedPath;
    if (!m_patternNames.isEmpty())
        return m_patternNames.front() + QStringLiteral(".patterns");
    return m_sourceName;
}

QString PatternEditor::statusText() const
{
    return m_status->text();
}

bool PatternEditor::isBusy() const
{
    return m_debounce->isActive() || m_awaitingSearch;
}

bool PatternEditor::saveTo(const QString &path, QString *error)
{
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly) && file.write(text().toUtf8()) >= 0 && file.commit()) {
        m_savedPath = path;
        return true;
    }
    if (error)
        *error = tr("%1: cannot write: %2").arg(path, file.errorString());
    return false;
}

bool PatternEditor::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_text->viewport() || event->type() != QEvent::ToolTip)
        return QWidget::eventFilter(watched, event);
    auto *help = static_cast<QHelpEvent *>(event);
    const int position = m_text->cursorForPosition(help->pos()).position();
    for (const QTextEdit::ExtraSelection &selection : m_text->extraSelections()) {
        if (selection.cursor.hasSelection() && position >= selection.cursor.selectionStart()
            && position <= selection.cursor.selectionEnd()) {
            QToolTip::showText(help->globalPos(), m_errorMessage, m_text->viewport());
            return true;
        }
    }
    QToolTip::hideText();
    return true;
}

} // namespace fusebox
