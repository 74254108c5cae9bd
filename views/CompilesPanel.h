#pragma once

#include "OptimusStepsWindow.h"
#include "core/io/TorchTrace.h"
#include "patterns/TraceReplay.h"

#include <QDockWidget>

#include <memory>
#include <set>

class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace fusebox {

class TaskService;

/// A dock listing a TORCH_TRACE log (docs/torch-trace.md): rank → compile →
/// its payloads. A compile's row says its frame and what the log says of it
/// (failed, recompiled, served from the FX graph cache, whether it ran no
/// Optimus pass); graph payloads can be opened, other payloads are listed
/// with their kind. The log is indexed in the background through the
/// TaskService (progress in the status bar, Cancel stops it). The filter
/// keeps the compiles whose id, frame, notes or graph/pass names contain its
/// text, and, once a background search of their graphs' text has run, those
/// whose graphs call it ("torch.cat", "baddbmm": an op).
/// Double-clicking a graph emits graphActivated() with its address
/// ("run.log#0/0/before_pre_grad_graph"): the window opens it as a document.
/// "Optimus, pass by pass" opens the selected compile's logged Optimus
/// stages in an OptimusStepsWindow. "Replay every compile" replays them all
/// in the background (patterns/TraceReplay.h) and says, on each compile's
/// row, whether Fusebox gives production's graph, where it first differs,
/// or why the compile was not replayed; the filter matches those words too
/// ("differs" keeps the compiles to look at).
class CompilesPanel final : public QDockWidget {
    Q_OBJECT

public:
    CompilesPanel(TaskService *tasks, QWidget *parent = nullptr);

    /// Indexes the log (a file, or a directory of rank logs) in the
    /// background; logIndexed() or indexFailed() tells how it went.
    void openLog(const QString &path);
    /// The log shown (null before the first index).
    std::shared_ptr<const TraceLog> log() const { return m_log; }

    QTreeWidget *tree() const { return m_tree; }
    /// The line above the list: the log, its counts, the last replay's tally.
    QLabel *headerLabel() const { return m_header; }
    QLineEdit *filter() const { return m_filter; }
    QPushButton *optimusButton() const { return m_optimus; }
    QPushButton *replayAllButton() const { return m_replayAll; }
    /// Replays every compile in the background (the TaskService's
    /// "trace.replayAll": progress, Cancel); replayedAll() follows.
    void replayAll();
    /// The row of compile `index` of log()->compiles (null when filtered out or none).
    QTreeWidgetItem *compileItem(int index) const;
    /// The compile the current row belongs to, or -1.
    int currentCompile() const;
    /// Opens the Optimus steps of compile `index` in a window of their own
    /// (null, and a message in the header, when the compile logged none).
    OptimusStepsWindow *showOptimusSteps(int index);

    /// The profile replays follow where the log records no torch version
    /// (the window's document's); asked as each replay starts.
    void setFallbackProfile(FallbackProfile profile) { m_fallback = std::move(profile); }

    /// Activates a row as a double-click does: a graph row emits graphActivated().
    void activate(QTreeWidgetItem *item);

signals:
    void logIndexed(const QString &path);
    void indexFailed(const QString &message);
    /// A graph of the log was chosen: open it (its address as a model path).
    void graphActivated(const QString &address);
    void optimusStepsShown(OptimusStepsWindow *window);
    /// replayAll() is done: how many compiles were replayed, and how many of
    /// those give production's graph (not emitted when cancelled).
    void replayedAll(int replayed, int same);

private:
    void fill();
    void applyFilter(const QString &text);
    /// One compile's replay (or why not, or its error) on its row.
    void showReplay(int index, const Expected<CompileReplay> &replay);

    TaskService *m_tasks;
    FallbackProfile m_fallback;
    QLabel *m_header;
    QLineEdit *m_filter;
    QTreeWidget *m_tree;
    QPushButton *m_optimus;
    QPushButton *m_replayAll;
    std::shared_ptr<const TraceLog> m_log;
    quint64 m_generation = 0;
    /// Compiles whose graphs' text holds m_searchedText (the background search's answer).
    /// Each compile's row, by its index in the log (filled by fill()).
    std::vector<QTreeWidgetItem *> m_compileItems;
    std::set<int> m_opMatches;
    QString m_searchedText;
};

} // namespace fusebox
