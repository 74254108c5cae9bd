#pragma once

#include "MatchEntry.h"
#include "SessionFile.h"
#include "core/rewrite/EditLog.h"

#include <QUndoCommand>

#include <functional>
#include <vector>

namespace fusebox {

/// One rewrite step on the document: the edit groups of one or more applied
/// matches (Apply, Apply Selected, Apply All). The rewrite has already
/// happened when the command is pushed, so the first redo() does nothing;
/// undo() reverts the groups newest first and redo() replays them, through
/// the hooks the history gave the command when it made it
/// (DocumentHistory::pushRewrite: its private functions, reached by nothing
/// else), after which the document re-finds the matches.
class RewriteCommand final : public QUndoCommand {
public:
    /// What undo() and redo() do to the graph.
    struct Hooks {
        std::function<void(const std::vector<EditGroup> &)> revert, replay;
    };
    RewriteCommand(Hooks hooks, const QString &text, std::vector<EditGroup> groups, std::vector<MatchEntry> applied,
                   SessionStep step);

    void undo() override;
    void redo() override;

    const std::vector<EditGroup> &groups() const { return m_groups; }
    /// What was applied, one entry per rewrite (status Applied).
    const std::vector<MatchEntry> &applied() const { return m_applied; }
    /// How a session replays this step.
    const SessionStep &step() const { return m_step; }

private:
    Hooks m_hooks;
    std::vector<EditGroup> m_groups;
    std::vector<MatchEntry> m_applied;
    SessionStep m_step;
    bool m_done = true;
};

/// Rejecting (or un-rejecting) a match, by its signature, through the hook
/// the review gave the command when it made it (its private setRejected).
class RejectCommand final : public QUndoCommand {
public:
    using SetRejected = std::function<void(const MatchEntry &, bool rejected)>;
    RejectCommand(SetRejected setRejected, MatchEntry entry, bool reject);

    void undo() override;
    void redo() override;

    const MatchEntry &entry() const { return m_entry; }

private:
    SetRejected m_setRejected;
    MatchEntry m_entry;
    bool m_reject;
};

} // namespace fusebox
