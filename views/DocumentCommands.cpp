#include "DocumentCommands.h"

#include <QObject>

namespace fusebox {

RewriteCommand::RewriteCommand(Hooks hooks, const QString &text, std::vector<EditGroup> groups,
                               std::vector<MatchEntry> applied, SessionStep step)
    : QUndoCommand(text)
    , m_hooks(std::move(hooks))
    , m_groups(std::move(groups))
    , m_applied(std::move(applied))
    , m_step(std::move(step))
{}

void RewriteCommand::undo()
{
    m_hooks.revert(m_groups);
    m_done = false;
}

void RewriteCommand::redo()
{
    if (m_done)
        return; // pushed after the rewrite ran
    m_hooks.replay(m_groups);
    m_done = true;
}

RejectCommand::RejectCommand(SetRejected setRejected, MatchEntry entry, bool reject)
    : QUndoCommand()
    , m_setRejected(std::move(setRejected))
    , m_entry(std::move(entry))
    , m_reject(reject)
{
    setText(QStringLiteral("%1 %2 at %%3")
                .arg(reject ? QObject::tr("Reject") : QObject::tr("Restore"),
                     QString::fromStdString(m_entry.match.pattern), m_entry.anchorName));
}

void RejectCommand::undo()
{
    m_setRejected(m_entry, !m_reject);
}

void RejectCommand::redo()
{
    m_setRejected(m_entry, m_reject);
}

} // namespace fusebox
