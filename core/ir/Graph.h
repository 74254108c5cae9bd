#pragma once

#include "Expected.h"
#include "Node.h"
#include "WeightStore.h"

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox {

/// Transparent hash so that maps keyed by std::string can be searched with a
/// std::string_view without building a string.
struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// An operator-level dataflow graph, FX-like: inputs, op calls, constants, and
/// one output node whose first arg lists the returned values.
///
/// Nodes keep a program order (a linked list, so inserting before a node is
/// O(1)); importers produce it topologically sorted and the verifier checks it.
/// NodeIds are stable and never reused. Names are unique.
class Graph {
public:
    Graph();
    ~Graph();
    Graph(const Graph &) = delete;
    Graph &operator=(const Graph &) = delete;
    Graph(Graph &&) noexcept;
    Graph &operator=(Graph &&) noexcept;

    /// A deep copy with the same NodeIds, names and order; weight payloads
    /// are shared (they are immutable).
    Graph clone() const;

    /// Free-form facts about the graph: "source.format", "source.path", ...
    /// Read-only here: the reader that made the graph writes them through
    /// GraphBuilder::metadata(), as every other change goes through the
    /// builder or the rewriter.
    const std::map<std::string, std::string> &metadata() const { return m_metadata; }

    // --- queries ------------------------------------------------------------
    bool contains(NodeId id) const;
    /// The node, or nullptr when the id is not (or no longer) in the graph.
    /// Read-only: nodes change through PatternRewriter::modify().
    const Node *node(NodeId id) const;
    /// The node named name, or an invalid id.
    NodeId findByName(std::string_view name) const;
    /// Live node count (inputs, ops, constants and the output).
    size_t size() const { return m_liveCount; }
    /// Number of node references held in args (one per use).
    size_t edgeCount() const { return m_edgeCount; }
    /// Every live node in program order.
    std::vector<NodeId> nodeIds() const;
    /// True when every node comes after the nodes it reads. Walks the graph
    /// only when an edit that can break the order (an insertion before a
    /// node, new arguments, uses moved, a move, a reorder)
    /// happened since the last walk found it sorted: the schedules check the
    /// order after every pass, and most passes change nothing.
    bool isTopologicallySorted() const;
    NodeId first() const { return m_first; }
    NodeId last() const { return m_last; }
    /// The next / previous node in program order (invalid at the ends).
    NodeId next(NodeId id) const;
    NodeId prev(NodeId id) const;
    /// The live op nodes whose op is `op`, in no particular order (sort by
    /// program position where order matters). O(1) to find, no walk: like
    /// torch.fx's find_nodes lookup table, it lets a matcher visit only the
    /// nodes its root ops name.
    const std::vector<NodeId> &nodesWithOp(std::string_view op) const;
    /// True when id is a live op node whose op is `op`; answered from the op
    /// index without reading the node (cheap in loops over many inputs).
    bool hasOp(NodeId id, std::string_view op) const
    {
        const Slot *s = slot(id);
        return s && s->opBucket != kNoBucket && m_opBuckets[s->opBucket].op == op;
    }
    /// Every op name with at least one live node, in no particular order.
    std::vector<std::string> opNames() const;
    /// Input nodes in declaration order.
    const std::vector<NodeId> &inputs() const { return m_inputs; }
    /// The output node (invalid until setOutputs()).
    NodeId output() const { return m_output; }
    /// The nodes the output node returns, in order (list items flattened).
    std::vector<NodeId> outputValues() const;
    /// Distinct nodes that read id, in the order they started reading it.
    std::vector<NodeId> users(NodeId id) const;
    /// Number of uses of id (a node reading it twice counts twice).
    size_t useCount(NodeId id) const;
    /// Calls fn(user) once per use of id (a node reading it twice is called
    /// twice), without allocating.
    template<typename Fn>
    void forEachUse(NodeId id, Fn &&fn) const
    {
        if (const Slot *s = slot(id))
            for (NodeId user : s->users)
                fn(user);
    }
    /// Calls fn(input) once per node reference in id's arguments (args then
    /// kwargs, as Node::forEachInput), from an index kept beside the users
    /// index: walks over many nodes (sorting, searches) stay in one array.
    template<typename Fn>
    void forEachInput(NodeId id, Fn &&fn) const
    {
        if (const Slot *s = slot(id))
            for (NodeId in : s->inputs)
                fn(in);
    }
    /// One past the largest id ever handed out (ids are < idBound()).
    uint32_t idBound() const { return static_cast<uint32_t>(m_slots.size()); }

    /// Returns `base` if unused, else `base_1`, `base_2`, ...
    std::string uniqueName(std::string_view base) const;

    const WeightStore &weights() const { return m_weights; }

private:
    // Only these build or change a graph (DESIGN: "every mutation goes
    // through the rewriter"): the builder while a graph is made, the
    // rewriter after, and the edit log replaying or reverting the
    // rewriter's own edits. Everything else sees a const graph.
    friend class GraphBuilder;
    friend class PatternRewriter;
    friend class EditLog;

    // --- building -----------------------------------------------------------
    /// Room for `nodes` more nodes without growing the node table or the
    /// name index (a reader that knows about how many it will add).
    void reserve(size_t nodes);
    /// Appends an input (placeholder). name is made unique if taken.
    NodeId addInput(std::string name, TensorMeta meta = {}, std::string type = "Tensor");
    /// Appends a constant whose payload is weights()[weightKey].
    NodeId addConstant(std::string name, std::string weightKey, TensorMeta meta = {});
    /// Inserts an op call before `before` (appends when invalid). The name is
    /// derived from the op when empty ("aten::linear" -> "linear_4").
    NodeId addOp(std::string op, std::vector<Arg> args, std::vector<NamedArg> kwargs = {}, std::string name = {},
                 NodeId before = {});
    /// Creates the output node, or replaces its values when it exists.
    NodeId setOutputs(std::vector<Arg> values);

    // --- editing (the rewriter's primitives) --------------------------------
    /// Replaces a node's arguments, keeping the users index in step.
    void setArgs(NodeId id, std::vector<Arg> args, std::vector<NamedArg> kwargs);
    /// setArgs() that hands the node's old arguments back in `args` and
    /// `kwargs` (an edit log keeps them without copying).
    void swapArgs(NodeId id, std::vector<Arg> &args, std::vector<NamedArg> &kwargs);
    /// Makes every reader of `from` read `to` instead.
    void replaceAllUsesWith(NodeId from, NodeId to);
    /// Removes a node that has no users. Returns false (and does nothing) when it has.
    bool erase(NodeId id);
    /// Removes a node that has no users and hands it out, id and all, so that
    /// an undo can restore() it; nullptr (and nothing done) when it has users.
    std::unique_ptr<Node> extract(NodeId id);
    /// Puts back a node that extract() handed out (or a copy of one), under its
    /// own id, just before `before` (appended when invalid). Fails when the id
    /// is live, its name is taken, or an argument refers to a missing node.
    bool restore(std::unique_ptr<Node> node, NodeId before);
    /// Moves `id` to just before `before` in program order.
    void moveBefore(NodeId id, NodeId before);
    /// Sets the program order. `order` must list every live node exactly once
    /// (returns false and changes nothing otherwise).
    bool reorder(const std::vector<NodeId> &order);
    /// Changes an op node's op, keeping the op index in step. Code that
    /// assigns Node::op directly must call refreshOpIndex(id) afterwards.
    void setOp(NodeId id, std::string op);
    /// Re-files `id` in the op index under its current Node::op.
    void refreshOpIndex(NodeId id);

    /// The node and the payloads, writable (the friends above only; named
    /// apart from node() and weights() so that reads on a non-const graph
    /// still pick the public const ones).
    Node *mutableNode(NodeId id);
    WeightStore &mutableWeights() { return m_weights; }

    struct Slot {
        std::unique_ptr<Node> node;
        std::vector<NodeId> users;  // one entry per use
        std::vector<NodeId> inputs; // the node's own references, in arg order
        /// Op nodes: the op-index bucket holding this node, and where in it.
        uint32_t opBucket = kNoBucket;
        uint32_t opBucketPos = 0;
    };
    static constexpr uint32_t kNoBucket = UINT32_MAX;
    struct OpBucket {
        std::string op;
        std::vector<NodeId> nodes;
    };

    NodeId allocate(NodeKind kind, std::string name, NodeId before);
    void link(NodeId id, NodeId before);
    /// After a new or restored node `id` is linked and its uses added: forgets
    /// that the order is sorted unless the node cannot break it.
    void noteLinkedReader(NodeId id);
    void unlink(NodeId id);
    void addUses(NodeId user, const Node &node);
    void removeUses(NodeId user, const Node &node);
    Slot *slot(NodeId id);
    const Slot *slot(NodeId id) const;
    void indexOp(NodeId id);
    void unindexOp(NodeId id);

    std::map<std::string, std::string> m_metadata;
    std::vector<Slot> m_slots;
    /// Program order, per id beside m_slots (cleared for dead ids): walks in
    /// program order (nodeIds, sorting, next/prev) read 8 bytes per node from
    /// one small array instead of a 64-byte slot each.
    struct Link {
        NodeId prev, next;
    };
    std::vector<Link> m_links;
    std::vector<OpBucket> m_opBuckets;
    std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> m_opBucketByName;
    /// Name -> node, and where the numbering of each base name stopped
    /// (Graph.cpp; flat hash maps, kept out of this header).
    struct NameIndex;
    NameIndex &names();
    const NameIndex &names() const;
    std::unique_ptr<NameIndex> m_names;
    std::vector<NodeId> m_inputs;
    NodeId m_output, m_first, m_last;
    size_t m_liveCount = 0;
    size_t m_edgeCount = 0;
    /// Set by isTopologicallySorted() when it finds the order sorted, cleared
    /// by every edit that can break it.
    mutable bool m_knownSorted = false;
    WeightStore m_weights;
};

} // namespace fusebox
