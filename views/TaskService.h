#pragma once
// The IDE's one place for background work, after Qt Creator's ProgressManager:
// a job is added with a title and a kind, reports its progress, and is
// cancelled through the service (by kind, or all at once); the status bar
// shows the newest running task and its progress, and the Cancel action
// cancels what the service holds.

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <atomic>
#include <mutex>
#include <functional>
#include <memory>
#include <vector>

class QTimer;

namespace fusebox {

/// The kind of the tasks that read the document's graph on a worker thread
/// besides the search and Apply All (the scene's layout preparation): every
/// change to the graph waits for them first (DocumentHistory).
inline const QString kGraphReadTask = QStringLiteral("view.layout.read");
/// The kind of the dot layouts (they read no graph).
inline const QString kLayoutTask = QStringLiteral("view.layout");
/// The kind of the Pattern Editor's live search (on its own copy of the graph).
inline const QString kEditorSearchTask = QStringLiteral("editor.search");

/// What a running job sees: where to report progress and whether it is cancelled.
/// Shared between the GUI thread and the job's thread.
class TaskControl {
public:
    /// done of total units (total 0: unknown); any thread.
    void setProgress(qint64 done, qint64 total)
    {
        m_done = done;
        m_total = total;
    }
    /// What the job is doing now ("tracing the model"), shown after the
    /// title; any thread.
    void setStatus(const QString &status)
    {
        std::lock_guard lock(m_mutex);
        m_status = status;
    }
    /// True once the task was cancelled; the job should return soon.
    bool isCancelled() const { return m_cancelled; }
    /// The flag itself, for APIs that poll one (pt2::RequestControl::cancel).
    std::atomic<bool> *cancelFlag() { return &m_cancelled; }

    qint64 done() const { return m_done; }
    qint64 total() const { return m_total; }
    QString status() const
    {
        std::lock_guard lock(m_mutex);
        return m_status;
    }
    void cancel() { m_cancelled = true; }

private:
    std::atomic<qint64> m_done{0};
    std::atomic<qint64> m_total{0};
    std::atomic<bool> m_cancelled{false};
    mutable std::mutex m_mutex;
    QString m_status;
};

class TaskService final : public QObject {
    Q_OBJECT

public:
    explicit TaskService(QObject *parent = nullptr);
    ~TaskService() override;

    /// Runs `work` on a worker thread as a task titled `title` of `kind`
    /// ("trace.index", "trace.replay", ...); `done` runs on the GUI thread
    /// when it returns, with `cancelled` true when the task was cancelled
    /// meanwhile. `context` owns the task: when it is destroyed first, `done`
    /// is not called (the work still finishes on its thread).
    void run(const QString &title, const QString &kind, QObject *context, std::function<void(TaskControl &)> work,
             std::function<void(bool cancelled)> done);

    /// Cancels every running task of `kind`; all when empty.
    void cancel(const QString &kind = {});
    /// True while a task of `kind` (any task when empty) runs.
    bool isRunning(const QString &kind = {}) const;
    /// The newest running task as the status bar shows it: its title, what
    /// it reports doing, its progress and how long it has run ("PyTorch 2:
    /// capturing model.py — tracing the model 40% (3 s)…").
    QString statusText(const QString &kind = {}) const;
    /// Blocks until the tasks of `kind` (all when empty) have returned from
    /// their work. Their `done` runs later, from the event loop, as usual.
    void waitFor(const QString &kind = {});
    /// Blocks until every task has finished and its `done` has run (tests).
    void waitForAll();

signals:
    /// A task started, finished or reported progress.
    void changed();

private:
    struct Task;
    std::vector<std::shared_ptr<Task>> m_tasks;
    QTimer *m_poll;
};

} // namespace fusebox
