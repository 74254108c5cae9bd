#pragma once

#include "core/ir/Graph.h"

#include <memory>
#include <string>
#include <vector>

namespace fusebox {

/// A node's arguments, as an Edit::Kind::SetArgs edit keeps them.
struct ArgState {
    std::vector<Arg> args;
    std::vector<NamedArg> kwargs;
};

/// One primitive change the rewriter made to a graph, with what it takes to
/// undo and redo it.
struct Edit {
    enum class Kind {
        Insert,  ///< `after` was inserted before `position`
        Erase,   ///< `before` was removed from before `position`
        Modify,  ///< the node changed from `before` to `after` (meta, name, op, ...)
        SetArgs, ///< the node's arguments changed from `oldArgs` to `newArgs`
        Move,    ///< the node moved from before `oldPosition` to before `position`
        Reorder, ///< the program order changed from `oldOrder` to `newOrder`
    };
    Kind kind = Kind::Insert;
    NodeId node;
    /// Node state before / after the edit (copies; absent where not meaningful,
    /// and `after` absent in a log that is not redoable).
    std::shared_ptr<const Node> before, after;
    NodeId position, oldPosition;
    std::shared_ptr<const std::vector<NodeId>> oldOrder, newOrder;
    /// SetArgs: the arguments before / after (`newArgs` absent in a log that
    /// is not redoable). Only the arguments: a rewire, the commonest edit of
    /// a large pass, copies no node.
    std::shared_ptr<const ArgState> oldArgs, newArgs;
};

/// A labelled group of edits: one rewrite of one match, one user action.
struct EditGroup {
    std::string label;
    std::vector<Edit> edits;
};

/// The record of what the rewriter changed. It drives undo/redo, the
/// before/after diff, provenance and the report (docs/architecture.md).
///
/// Contract: undo(graph) must see the graph exactly as the edits left it, and
/// redo(graph) exactly as the matching undo left it; the rewriter and the
/// document keep to that by owning the only mutation paths.
class EditLog {
public:
    /// Starts a group; edits recorded until endGroup() belong to it.
    void beginGroup(std::string label);
    /// Closes the current group. Empty groups are dropped.
    void endGroup();
    bool inGroup() const { return m_open; }

    /// Records an edit into the open group (or a group of its own).
    void record(Edit edit);

    /// Groups recorded, oldest first.
    const std::vector<EditGroup> &groups() const { return m_groups; }
    /// Number of groups currently applied (groups past it were undone).
    size_t appliedCount() const { return m_applied; }
    bool canUndo() const { return m_applied > 0 && !m_open; }
    bool canRedo() const { return m_redoable && m_applied < m_groups.size() && !m_open; }

    /// Reverts the last applied group. Returns false when it cannot (nothing to
    /// undo, or the graph no longer matches the log).
    bool undo(Graph &graph);
    /// Re-applies the first undone group, restoring the same NodeIds.
    bool redo(Graph &graph);

    /// Forgets everything.
    void clear();

    /// False for a log kept only to take work back: the rewriter then records
    /// no `after` copies (half the node copies of a large pass) and redo()
    /// refuses. True by default; set it before the first edit.
    void setRedoable(bool redoable) { m_redoable = redoable; }
    bool redoable() const { return m_redoable; }

    /// Whether a change to node id's data fields (Modify) must be recorded:
    /// false only in a log that is not redoable for a node the open group
    /// inserted, which undoing the group removes whatever its fields hold.
    /// (NodeIds are handed out in increasing order and never reused, so those
    /// are the ids from the group's first Insert on.)
    bool needsModifyOf(NodeId id) const
    {
        return m_redoable || !m_open || !m_firstInsert.isValid() || id.value < m_firstInsert.value;
    }

    /// Applies the inverse of one edit. Returns false when the graph does not
    /// match. With replay(), the only changes to a graph outside
    /// PatternRewriter and GraphBuilder (Graph's friends).
    static bool revert(Graph &graph, const Edit &edit);
    /// Applies one edit again.
    static bool replay(Graph &graph, const Edit &edit);

private:
    /// Makes the live node `id` equal to `state` (args included).
    static bool assign(Graph &graph, NodeId id, const Node &state);
    /// Gives the live node `id` the arguments `state` (whose inputs must be live).
    static bool assignArgs(Graph &graph, NodeId id, const ArgState &state);
    static bool insertCopy(Graph &graph, const Node &state, NodeId before);

    std::vector<EditGroup> m_groups;
    size_t m_applied = 0;
    bool m_open = false;
    bool m_redoable = true;
    /// The first node the open group inserted (invalid when none yet).
    NodeId m_firstInsert;
};

/// EditLog::revert() / replay() of one edit (the IDE takes a rewrite's edits
/// back and forth one group at a time).
inline bool revertEdit(Graph &graph, const Edit &edit)
{
    return EditLog::revert(graph, edit);
}
inline bool replayEdit(Graph &graph, const Edit &edit)
{
    return EditLog::replay(graph, edit);
}

} // namespace fusebox
