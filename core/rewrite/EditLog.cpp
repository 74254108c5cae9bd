#include "EditLog.h"

namespace fusebox {

/// Makes the live node `id` equal to `state` (args included).
bool EditLog::assign(Graph &graph, NodeId id, const Node &state)
{
    Node *n = graph.mutableNode(id);
    if (!n)
        return false;
    for (NodeId in : state.inputNodes())
        if (!graph.contains(in))
            return false;
    graph.setArgs(id, state.args(), state.kwargs());
    n->name = state.name;
    n->overload = state.overload;
    n->type = state.type;
    n->meta = state.meta;
    n->inductorMeta = state.inductorMeta;
    n->provenance = state.provenance;
    n->weightKey = state.weightKey;
    n->opaqueBody = state.opaqueBody;
    graph.setOp(id, state.op);
    return true;
}

/// Gives the live node `id` the arguments `state` (whose inputs must be live).
bool EditLog::assignArgs(Graph &graph, NodeId id, const ArgState &state)
{
    bool live = graph.contains(id);
    auto check = [&](NodeId in) { live = live && graph.contains(in); };
    for (const Arg &a : state.args)
        forEachNodeRef(a, check);
    for (const NamedArg &kw : state.kwargs)
        forEachNodeRef(kw.value, check);
    if (!live)
        return false;
    graph.setArgs(id, state.args, state.kwargs);
    return true;
}

bool EditLog::insertCopy(Graph &graph, const Node &state, NodeId before)
{
    return graph.restore(std::make_unique<Node>(state), before);
}

void EditLog::beginGroup(std::string label)
{
    // Recording after an undo drops the undone groups, as any undo stack does.
    m_groups.resize(m_applied);
    m_groups.push_back({std::move(label), {}});
    m_open = true;
    m_firstInsert = {};
}

void EditLog::endGroup()
{
    if (!m_open)
        return;
    m_open = false;
    if (m_groups.back().edits.empty())
        m_groups.pop_back();
    else
        m_applied = m_groups.size();
}

void EditLog::record(Edit edit)
{
    if (m_open && edit.kind == Edit::Kind::Insert && !m_firstInsert.isValid())
        m_firstInsert = edit.node;
    if (!m_open) {
        beginGroup({});
        m_groups.back().edits.push_back(std::move(edit));
        endGroup();
        return;
    }
    m_groups.back().edits.push_back(std::move(edit));
}

bool EditLog::revert(Graph &graph, const Edit &edit)
{
    switch (edit.kind) {
    case Edit::Kind::Insert: return graph.erase(edit.node);
    case Edit::Kind::Erase: return insertCopy(graph, *edit.before, edit.position);
    case Edit::Kind::Modify: return assign(graph, edit.node, *edit.before);
    case Edit::Kind::SetArgs: return assignArgs(graph, edit.node, *edit.oldArgs);
    case Edit::Kind::Move:
        if (!graph.contains(edit.node))
            return false;
        graph.moveBefore(edit.node, edit.oldPosition);
        return true;
    case Edit::Kind::Reorder: return graph.reorder(*edit.oldOrder);
    }
    return false;
}

bool EditLog::replay(Graph &graph, const Edit &edit)
{
    switch (edit.kind) {
    case Edit::Kind::Insert: return insertCopy(graph, *edit.after, edit.position);
    case Edit::Kind::Erase: return graph.erase(edit.node);
    case Edit::Kind::Modify: return assign(graph, edit.node, *edit.after);
    case Edit::Kind::SetArgs: return assignArgs(graph, edit.node, *edit.newArgs);
    case Edit::Kind::Move:
        if (!graph.contains(edit.node))
            return false;
        graph.moveBefore(edit.node, edit.position);
        return true;
    case Edit::Kind::Reorder: return graph.reorder(*edit.newOrder);
    }
    return false;
}

bool EditLog::undo(Graph &graph)
{
    if (!canUndo())
        return false;
    const EditGroup &group = m_groups[m_applied - 1];
    for (auto it = group.edits.rbegin(); it != group.edits.rend(); ++it)
        if (!revertEdit(graph, *it))
            return false;
    --m_applied;
    return true;
}

bool EditLog::redo(Graph &graph)
{
    if (!canRedo())
        return false;
    for (const Edit &edit : m_groups[m_applied].edits)
        if (!replayEdit(graph, edit))
            return false;
    ++m_applied;
    return true;
}

void EditLog::clear()
{
    m_groups.clear();
    m_applied = 0;
    m_open = false;
}

} // namespace fusebox
