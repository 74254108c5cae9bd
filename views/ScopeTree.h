#pragma once

#include "core/ir/Graph.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fusebox {

/// The module hierarchy of a graph, from each node's provenance.scope
/// ("layer1.0.conv1"). Scope 0 is the root (the top level, path "").
///
/// A scope's children are its child scopes and the nodes directly in it, in
/// program order of first appearance. A scope with more than maxChildren
/// children gets artificial group scopes of consecutive children in between
/// (as Model Explorer does), nested as often as needed, so no scope has more
/// than maxChildren children and a group box never hides an unbounded layer.
class ScopeTree {
public:
    static constexpr size_t kDefaultMaxChildren = 200;

    struct Scope {
        /// Unique key. Real scopes: the dotted module path. Artificial groups:
        /// the parent's path and the child range, "layers[0:200]" ('[' cannot
        /// occur in a module path).
        std::string path;
        /// What a group box shows: the last path segment ("conv1"), or the range.
        std::string label;
        int parent = -1;
        int depth = 0;
        bool artificial = false;
        /// Child scopes, in program order.
        std::vector<int> scopes;
        /// Nodes directly in this scope, in program order.
        std::vector<NodeId> nodes;
        /// Nodes in this scope and all scopes below it.
        size_t nodeCount = 0;
    };

    ScopeTree() = default;
    explicit ScopeTree(const Graph &graph, size_t maxChildren = kDefaultMaxChildren);

    int root() const { return 0; }
    size_t size() const { return m_scopes.size(); }
    const Scope &scope(int index) const { return m_scopes.at(static_cast<size_t>(index)); }
    /// The innermost scope holding the node, or -1 when the node is unknown.
    int scopeOf(NodeId id) const;
    /// The scope with this path, or -1.
    int find(std::string_view path) const;
    /// The scopes from the root's child down to `index` (root excluded).
    std::vector<int> chain(int index) const;
    /// True when `ancestor` is `index` or lies above it.
    bool contains(int ancestor, int index) const;
    /// The deepest scope depth.
    int maxDepth() const;

private:
    int child(int parent, const std::string &segment, const std::string &path);
    void split(int index, size_t maxChildren);
    size_t countNodes(int index);

    std::vector<Scope> m_scopes;
    std::unordered_map<std::string, int> m_byPath;
    std::vector<int> m_scopeOfNode; // by NodeId value
    // Program-ordered children of each scope while building: scope index or ~node.
    std::vector<std::vector<int64_t>> m_children;
};

} // namespace fusebox
