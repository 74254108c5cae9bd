#pragma once

#include "ScopeTree.h"

#include <cstdint>
#include <optional>
#include <memory>
#include <set>
#include <unordered_set>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox {

/// What the graph view shows for one set of expanded scopes: every visible
/// node stands for itself, every collapsed scope whose parents are all
/// expanded stands for all of its nodes (a group; one holding a single
/// visible node shows the node instead), and the graph's edges are aggregated
/// between these visible items.
///
/// Items are keyed by a uint64_t that doubles as the layout key: a node's key
/// is its NodeId value, a group's key has bit 32 set and holds the scope index.
class CollapsedGraph {
public:
    struct Options {
        /// When false, constant nodes (weights) and their edges are left out.
        bool showConstants = true;
        /// When set, only these nodes (NodeId values) are shown: the focus view.
        std::shared_ptr<const std::unordered_set<uint32_t>> onlyNodes;
    };

    struct Item {
        uint64_t key = 0;
        /// The node, for a node item.
        NodeId node;
        /// The scope, for a group item; -1 for a node item.
        int scope = -1;
        /// Visible nodes this item stands for (1 for a node item).
        size_t nodeCount = 0;
        bool isGroup() const { return scope >= 0; }
    };

    struct Edge {
        uint64_t from = 0;
        uint64_t to = 0;
        /// Graph edges (uses) this edge stands for.
        size_t multiplicity = 0;
    };

    static uint64_t nodeKey(NodeId id) { return id.value; }
    static uint64_t groupKey(int scope) { return (uint64_t(1) << 32) | uint32_t(scope); }
    static bool isGroupKey(uint64_t key) { return (key >> 32) != 0; }
    static NodeId nodeOfKey(uint64_t key) { return isGroupKey(key) ? NodeId{} : NodeId{uint32_t(key)}; }
    static int scopeOfKey(uint64_t key) { return isGroupKey(key) ? int(uint32_t(key)) : -1; }

    CollapsedGraph() = default;
    /// `expanded` holds scope paths; the root is always expanded. Paths that
    /// name no scope are ignored.
    CollapsedGraph(const Graph &graph, const ScopeTree &tree, const std::set<std::string> &expanded, Options options);

    /// Visible items in program order of their first node.
    const std::vector<Item> &items() const { return m_items; }
    /// Aggregated edges, deduplicated, no self loops, in order of first use.
    const std::vector<Edge> &edges() const { return m_edges; }
    /// The key of the item that shows the node, or nullopt when it is hidden.
    std::optional<uint64_t> itemOf(NodeId id) const;
    /// The item with this key, or nullptr.
    const Item *item(uint64_t key) const;
    size_t groupCount() const { return m_groupCount; }
    /// Visible (not filtered out) nodes, whether shown as themselves or in groups.
    size_t visibleNodeCount() const { return m_visibleNodes; }
    /// Nodes left out by the options: outside the focus, and constants when hidden.
    size_t hiddenNodeCount() const { return m_hiddenNodes; }
    /// The hidden nodes that are outside the focus (Options::onlyNodes).
    size_t outsideFocusCount() const { return m_outsideFocus; }
    /// The hidden nodes that are constants inside the focus (or with no focus).
    size_t hiddenConstantCount() const { return m_hiddenNodes - m_outsideFocus; }

    /// The number of items shown when every scope is expanded: the visible nodes.
    static size_t fullyExpandedItemCount(const Graph &graph, Options options);

private:
    std::vector<Item> m_items;
    std::vector<Edge> m_edges;
    std::unordered_map<uint64_t, size_t> m_itemIndex;
    std::vector<int64_t> m_keyOfNode; // by NodeId value; -1 hidden
    size_t m_groupCount = 0;
    size_t m_visibleNodes = 0;
    size_t m_hiddenNodes = 0;
    size_t m_outsideFocus = 0;
};

} // namespace fusebox
