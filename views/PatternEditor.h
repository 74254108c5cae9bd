#pragma once

#include "core/rewrite/Pattern.h"

#include <QStringList>
#include <QPointer>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTimer;
template<typename T>
class QFutureWatcher;

namespace fusebox {

class TaskService;

class Graph;
class OpSchemaRegistry;

/// Authoring a pattern file (docs/pattern-language.md) with live feedback.
///
/// 300 ms after the last edit the text is parsed and compiled; the first error
/// gets a red wavy underline in the text (the cursor stays where it is) and is
/// shown in the status line. When it compiles and a graph is set, the compiled
/// patterns are matched against the graph off the GUI thread, and the status
/// line counts the matches per pattern. An edit while matching supersedes the
/// search: its result is dropped, and at most one search runs at a time.
/// Bad input never throws or blocks the GUI.
class PatternEditor final : public QWidget {
    Q_OBJECT

public:
    explicit PatternEditor(QWidget *parent = nullptr);
    ~PatternEditor() override;

    /// Replaces the text (clearing the undo history); compiles after the debounce.
    void setText(const QString &text);
    QString text() const;

    /// Names the text in error messages; "untitled.patterns" by default.
    /// Schedules a compile.
    void setSourceName(const QString &name);
    QString sourceName() const { return m_sourceName; }
    /// What Save offers: the file last saved to, else the first pattern's
    /// name as the text has it now ("fused_relu.patterns"), else sourceName().
    QString suggestedFileName() const;
    /// The compiled patterns whose replace block is still their match block
    /// (patternChangesNothing()); the status line says so while it holds.
    QStringList unchangedPatterns() const { return m_unchanged; }

    /// Op schemas to check the text against and to compile with (null: ops are
    /// checked for form only). Not owned; it must outlive the editor, as
    /// background searches may still read it. Schedules a compile.
    void setSchemas(const OpSchemaRegistry *schemas);

    /// Runs the live search as a task of `tasks` (the window's, so that the
    /// status bar and Cancel see it); the editor's own service until then.
    /// Not owned.
    void setTasks(TaskService *tasks);

    /// The graph to match the compiled patterns against (null: none). Kept
    /// alive by the editor and its background search. Schedules a compile.
    void setGraph(std::shared_ptr<const Graph> graph);

    /// Compiles the current text now instead of after the debounce. The match
    /// search, when there is a graph, still runs in the background:
    /// compileFinished() says when the state is final.
    void compileNow();

    /// Writes the text to path as UTF-8. On failure returns false and, when
    /// error is given, sets it to a message naming the path.
    bool saveTo(const QString &path, QString *error);

    /// True when the last compile failed.
    bool hasError() const { return !m_errorMessage.isEmpty(); }
    /// The last compile's error, "source:line:col: problem"; empty when none.
    QString errorMessage() const { return m_errorMessage; }
    /// The error's position as the message gives it (1-based; the parser
    /// counts a line's UTF-8 bytes); 0 when there is no error or the message
    /// names no position.
    int errorLine() const { return m_errorLine; }
    int errorColumn() const { return m_errorColumn; }

    /// The matches of the last successful compile on the graph, in the order
    /// the greedy driver would consider them; empty on error or without a graph.
    const std::vector<Match> &liveMatches() const { return m_matches; }

    /// The status line's text.
    QString statusText() const;
    /// True while a compile is pending (debounce) or a search for the current
    /// text is running.
    bool isBusy() const;

    /// The text widget (objectName "patternText").
    QPlainTextEdit *textEdit() const { return m_text; }

signals:
    /// "Save…" was clicked or Ctrl+S pressed in the editor; the receiver picks
    /// a path and calls saveTo().
    void saveRequested();
    /// "Use in Document" was clicked with the current text.
    void useRequested(const QString &text);
    /// liveMatches() changed.
    void liveMatchesChanged();
    /// The state for the current text is final: an error is shown, the
    /// matches arrived, or the text compiled and there is no graph.
    void compileFinished();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct SearchJob;

    void scheduleCompile();
    void startSearch(std::shared_ptr<SearchJob> job);
    void finishSearch(bool cancelled);
    void showError(const QString &message);
    void setMatches(std::vector<Match> matches);
    void setStatus(const QString &text, bool error);
    QString matchSummary() const;
    /// " · p changes nothing yet: …" for unchangedPatterns(); "" when none.
    QString unchangedNote() const;

    QPlainTextEdit *m_text;
    QLabel *m_status;
    QPushButton *m_useButton;
    QTimer *m_debounce;
    /// Where the live search runs: the window's service (setTasks), else the
    /// editor's own. Guarded: the window's document may go first (its
    /// service then waited for the search as it went).
    QPointer<TaskService> m_tasks;

    QString m_sourceName;
    const OpSchemaRegistry *m_schemas = nullptr;
    std::shared_ptr<const Graph> m_graph;

    // Bumped by every change of the inputs; a search for an older generation is stale.
    quint64 m_generation = 0;
    // The search running in the background (one at a time), and the one for
    // the current text waiting for it to end.
    std::shared_ptr<SearchJob> m_runningSearch;
    std::shared_ptr<SearchJob> m_queuedSearch;
    bool m_awaitingSearch = false;

    QString m_errorMessage;
    int m_errorLine = 0;
    int m_errorColumn = 0;

    QStringList m_patternNames;
    QStringList m_unchanged;
    QString m_savedPath;
    std::vector<Match> m_matches;
};

} // namespace fusebox
