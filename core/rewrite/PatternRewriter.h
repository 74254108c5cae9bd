#pragma once

#include "EditLog.h"

#include "core/ir/Graph.h"

#include <functional>
#include <string>
#include <vector>

namespace fusebox {

/// Hears every primitive change the rewriter makes (the GUI and the report
/// listen; MLIR's RewriterBase::Listener).
class RewriteListener {
public:
    virtual ~RewriteListener() = default;
    virtual void nodeInserted(const Graph &, NodeId) {}
    /// Called just before the node is removed, while it is still readable.
    virtual void nodeErasing(const Graph &, NodeId) {}
    /// Called just before a node's arguments (or other fields) change, while
    /// its old inputs are still readable.
    virtual void nodeModifying(const Graph &, NodeId) {}
    virtual void nodeModified(const Graph &, NodeId) {}
};

/// The only way to mutate a graph past import. Every change is recorded in the
/// EditLog (when one is given) and reported to the listener, so undo/redo, the
/// diff, provenance and the report all see the same edits.
class PatternRewriter {
public:
    explicit PatternRewriter(Graph &graph, EditLog *log = nullptr, RewriteListener *listener = nullptr);

    /// Read-only: every change goes through the calls below, so that the
    /// log and the listener see it.
    const Graph &graph() const { return m_graph; }

    /// Tag written into provenance.createdBy of every node created from now on
    /// (the match being rewritten, "batch_linear#3").
    void setCreatedBy(std::string tag) { m_createdBy = std::move(tag); }

    /// Whether rewrites leave node metadata as Inductor 2.6's passes leave
    /// it (the Inductor schedule) rather than true to each node's args
    /// (Fusebox's own search, the default): where a 2.6 pass copies a
    /// replaced node's meta onto its replacement, the copy is kept, stale or
    /// not (Node::inductorMeta), and later rules read it as 2.6's do.
    void setInductorMetadata(bool on) { m_inductorMetadata = on; }
    bool inductorMetadata() const { return m_inductorMetadata; }

    /// Inserts an op call before `before` (before the output node when
    /// invalid). The name is derived from the op (or nameHint) and made unique.
    NodeId createOp(std::string op, std::vector<Arg> args, std::vector<NamedArg> kwargs = {}, NodeId before = {},
                    TensorMeta meta = {}, std::string nameHint = {});
    /// Replaces a node's arguments.
    void setArgs(NodeId id, std::vector<Arg> args, std::vector<NamedArg> kwargs = {});
    /// Changes a node's data fields (meta, type, provenance, name, op) through fn.
    /// Arguments must be changed with setArgs().
    void modify(NodeId id, const std::function<void(Node &)> &fn);
    /// Makes every reader of `from` read `to` instead.
    void replaceAllUsesWith(NodeId from, NodeId to);
    /// Replaces `from` by `to` everywhere and erases `from` (and then any of its
    /// inputs left without users, transitively, except inputs and the output).
    void replaceAndErase(NodeId from, NodeId to);
    /// Erases a node without users. Returns false when it has users.
    bool erase(NodeId id);
    /// Erases `id` if it has no users, then its inputs that became unused,
    /// transitively; graph inputs and constants still in use are kept.
    void eraseIfDead(NodeId id);
    /// Moves `id` before `before` in program order.
    void moveBefore(NodeId id, NodeId before);
    /// How restoreTopologicalOrder() mends an order: both keep the current
    /// order wherever it is valid.
    enum class SortStyle {
        HoistInputs,  ///< topologicalOrder(): inputs move up before their reader
        DelayReaders, ///< stableTopologicalOrder(): Inductor's, readers wait for inputs
    };
    /// Restores a topological program order (one Reorder edit when it changes).
    /// Returns false when the graph has a cycle (nothing changes then).
    bool restoreTopologicalOrder(SortStyle style = SortStyle::HoistInputs);

private:
    void record(Edit edit);
    /// A copy of node id as it is now, for an edit's `after`; null when the
    /// log keeps none (no log, or one that is not redoable).
    std::shared_ptr<const Node> afterSnapshot(NodeId id) const;

    Graph &m_graph;
    EditLog *m_log;
    RewriteListener *m_listener;
    std::string m_createdBy;
    bool m_inductorMetadata = false;
};

} // namespace fusebox
