#include "PatternRewriter.h"

#include "core/ir/Traversal.h"

namespace fusebox {
namespace {

std::shared_ptr<const Node> snapshot(const Node &n)
{
    return std::make_shared<const Node>(n);
}

} // namespace

PatternRewriter::PatternRewriter(Graph &graph, EditLog *log, RewriteListener *listener)
    : m_graph(graph)
    , m_log(log)
    , m_listener(listener)
{}

std::shared_ptr<const Node> PatternRewriter::afterSnapshot(NodeId id) const
{
    return m_log && m_log->redoable() ? snapshot(*m_graph.node(id)) : nullptr;
}

void PatternRewriter::record(Edit edit)
{
    if (m_log)
        m_log->record(std::move(edit));
}

NodeId PatternRewriter::createOp(std::string op, std::vector<Arg> args, std::vector<NamedArg> kwargs, NodeId before,
                                 TensorMeta meta, std::string nameHint)
{
    NodeId id = m_graph.addOp(std::move(op), std::move(args), std::move(kwargs), std::move(nameHint), before);
    Node &n = *m_graph.mutableNode(id);
    n.meta = std::move(meta);
    n.provenance.createdBy = m_createdBy;
    if (m_log) {
        Edit edit;
        edit.kind = Edit::Kind::Insert;
        edit.node = id;
        edit.after = afterSnapshot(id);
        edit.position = m_graph.next(id);
        record(std::move(edit));
    }
    if (m_listener)
        m_listener->nodeInserted(m_graph, id);
    return id;
}

void PatternRewriter::setArgs(NodeId id, std::vector<Arg> args, std::vector<NamedArg> kwargs)
{
    if (!m_graph.contains(id))
        return;
    if (m_listener)
        m_listener->nodeModifying(m_graph, id);
    if (m_log) {
        // The old arguments move into the edit: no node is copied.
        auto after = m_log->redoable() ? std::make_shared<const ArgState>(ArgState{args, kwargs}) : nullptr;
        m_graph.swapArgs(id, args, kwargs);
        Edit edit;
        edit.kind = Edit::Kind::SetArgs;
        edit.node = id;
        edit.oldArgs = std::make_shared<const ArgState>(ArgState{std::move(args), std::move(kwargs)});
        edit.newArgs = std::move(after);
        record(std::move(edit));
    } else {
        m_graph.setArgs(id, std::move(args), std::move(kwargs));
    }
    if (m_listener)
        m_listener->nodeModified(m_graph, id);
}

void PatternRewriter::modify(NodeId id, const std::function<void(Node &)> &fn)
{
    Node *n = m_graph.mutableNode(id);
    if (!n)
        return;
    if (m_listener)
        m_listener->nodeModifying(m_graph, id);
    const bool recorded = m_log && m_log->needsModifyOf(id);
    auto before = recorded ? snapshot(*n) : nullptr;
    fn(*n);
    m_graph.refreshOpIndex(id); // fn may have changed the op
    if (recorded) {
        Edit edit;
        edit.kind = Edit::Kind::Modify;
        edit.node = id;
        edit.before = before;
        edit.after = afterSnapshot(id);
        record(std::move(edit));
    }
    if (m_listener)
        m_listener->nodeModified(m_graph, id);
}

void PatternRewriter::replaceAllUsesWith(NodeId from, NodeId to)
{
    if (from == to || !m_graph.contains(from) || !m_graph.contains(to))
        return;
    std::function<void(Arg &)> rewire = [&](Arg &a) {
        if (auto *ref = std::get_if<NodeId>(&a.value)) {
            if (*ref == from)
                *ref = to;
        } else if (auto *list = std::get_if<ArgList>(&a.value)) {
            for (Arg &item : list->items)
                rewire(item);
        }
    };
    for (NodeId user : m_graph.users(from)) {
        const Node &u = *m_graph.node(user);
        std::vector<Arg> args = u.args();
        std::vector<NamedArg> kwargs = u.kwargs();
        for (Arg &a : args)
            rewire(a);
        for (NamedArg &kw : kwargs)
            rewire(kw.value);
        setArgs(user, std::move(args), std::move(kwargs));
    }
}

bool PatternRewriter::erase(NodeId id)
{
    const Node *n = m_graph.node(id);
    if (!n || m_graph.useCount(id) != 0)
        return false;
    if (m_listener)
        m_listener->nodeErasing(m_graph, id);
    if (!m_log)
        return m_graph.erase(id);
    // The node itself moves into the edit, to come back on undo.
    Edit edit;
    edit.kind = Edit::Kind::Erase;
    edit.node = id;
    edit.position = m_graph.next(id);
    edit.before = m_graph.extract(id);
    record(std::move(edit));
    return true;
}

void PatternRewriter::eraseIfDead(NodeId id)
{
    std::vector<NodeId> work{id};
    while (!work.empty()) {
        NodeId next = work.back();
        work.pop_back();
        const Node *n = m_graph.node(next);
        if (!n || m_graph.useCount(next) != 0 || n->kind() == NodeKind::Input || n->kind() == NodeKind::Output)
            continue;
        std::vector<NodeId> inputs = n->inputNodes();
        if (erase(next))
            work.insert(work.end(), inputs.begin(), inputs.end());
    }
}

void PatternRewriter::replaceAndErase(NodeId from, NodeId to)
{
    replaceAllUsesWith(from, to);
    eraseIfDead(from);
}

void PatternRewriter::moveBefore(NodeId id, NodeId before)
{
    if (!m_graph.contains(id) || id == before)
        return;
    NodeId oldPosition = m_graph.next(id);
    m_graph.moveBefore(id, before);
    Edit edit;
    edit.kind = Edit::Kind::Move;
    edit.node = id;
    edit.position = before;
    edit.oldPosition = oldPosition;
    record(std::move(edit));
}

} // namespace fusebox

namespace fusebox {

bool PatternRewriter::restoreTopologicalOrder(SortStyle style)
{
    // Both sorts keep a topological program order as it is; most calls (one
    // per pass, one per rewrite under verification) find it so.
    if (isTopologicallySorted(m_graph))
        return true;
    std::vector<NodeId> order = style == SortStyle::HoistInputs ? topologicalOrder(m_graph)
                                                                : stableTopologicalOrder(m_graph);
    if (order.size() != m_graph.size())
        return false;
    std::vector<NodeId> current = m_graph.nodeIds();
    if (order == current)
        return true;
    m_graph.reorder(order);
    if (!m_log)
        return true;
    Edit edit;
    edit.kind = Edit::Kind::Reorder;
    edit.oldOrder = std::make_shared<const std::vector<NodeId>>(std::move(current));
    edit.newOrder = std::make_shared<const std::vector<NodeId>>(std::move(order));
    record(std::move(edit));
    return true;
}

} // namespace fusebox
