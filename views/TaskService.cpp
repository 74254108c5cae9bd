#include "TaskService.h"

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QPointer>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace fusebox {

struct TaskService::Task {
    QString title;
    QString kind;
    TaskControl control;
    QFuture<void> future;
    QElapsedTimer clock;
};

TaskService::TaskService(QObject *parent)
    : QObject(parent)
    , m_poll(new QTimer(this))
{
    // Progress is read, not pushed: a job reports as often as it likes and the
    // status bar redraws at most ten times a second.
    m_poll->setInterval(100);
    connect(m_poll, &QTimer::timeout, this, &TaskService::changed);
}

TaskService::~TaskService()
{
    // No event loop here: the watchers go with this object, and no `done` runs.
    cancel();
    waitFor();
}

void TaskService::run(const QString &title, const QString &kind, QObject *context,
                      std::function<void(TaskControl &)> work, std::function<void(bool)> done)
{
    auto task = std::make_shared<Task>();
    task->title = title;
    task->kind = kind;
    task->clock.start();
    m_tasks.push_back(task);
    auto *watcher = new QFutureWatcher<void>(this);
    QPointer<QObject> owner(context);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, task, owner, done = std::move(done)] {
        watcher->deleteLater();
        m_tasks.erase(std::remove(m_tasks.begin(), m_tasks.end(), task), m_tasks.end());
        if (m_tasks.empty())
            m_poll->stop();
        emit changed();
        if (owner && done)
            done(task->control.isCancelled());
    });
    task->future = QtConcurrent::run([task, work = std::move(work)] { work(task->control); });
    watcher->setFuture(task->future);
    m_poll->start();
    emit changed();
}

void TaskService::cancel(const QString &kind)
{
    for (const auto &task : m_tasks)
        if (kind.isEmpty() || task->kind == kind)
            task->control.cancel();
    emit changed();
}

bool TaskService::isRunning(const QString &kind) const
{
    return std::any_of(m_tasks.begin(), m_tasks.end(),
                       [&](const auto &task) { return kind.isEmpty() || task->kind == kind; });
}

QString TaskService::statusText(const QString &kind) const
{
    auto newest = std::find_if(m_tasks.rbegin(), m_tasks.rend(),
                               [&](const auto &task) { return kind.isEmpty() || task->kind == kind; });
    if (newest == m_tasks.rend())
        return {};
    const Task &task = **newest;
    QString text = task.title;
    if (const QString status = task.control.status(); !status.isEmpty())
        text += QStringLiteral(" — ") + status;
    const qint64 total = task.control.total();
    if (total > 0)
        text += tr(" %1%").arg(std::clamp<qint64>(task.control.done() * 100 / total, 0, 100));
    text += tr(" (%1 s)…").arg(task.clock.elapsed() / 1000);
    if (task.control.isCancelled())
        text += tr(" cancelling");
    if (kind.isEmpty() && m_tasks.size() > 1)
        text += tr(" (+%1 more)").arg(m_tasks.size() - 1);
    return text;
}

void TaskService::waitFor(const QString &kind)
{
    // Copies: a task leaves m_tasks only from the event loop, not while waiting here.
    const auto tasks = m_tasks;
    for (const auto &task : tasks)
        if (kind.isEmpty() || task->kind == kind)
            task->future.waitForFinished();
}

void TaskService::waitForAll()
{
    while (!m_tasks.empty()) {
        m_tasks.front()->future.waitForFinished();
        QCoreApplication::processEvents(); // the watchers' finished() take the tasks off
    }
}

} // namespace fusebox
