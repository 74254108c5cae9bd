#include "ScopeTree.h"

#include "core/ir/LiftedParameters.h"

#include <algorithm>

namespace fusebox {

namespace {
// A child entry while building: >= 0 a scope index, < 0 a node (~value).
int64_t nodeEntry(NodeId id)
{
    return ~static_cast<int64_t>(id.value);
}
bool isNodeEntry(int64_t entry)
{
    return entry < 0;
}
NodeId entryNode(int64_t entry)
{
    return NodeId{static_cast<uint32_t>(~entry)};
}
} // namespace

ScopeTree::ScopeTree(const Graph &graph, size_t maxChildren)
{
    m_scopes.push_back(Scope{});
    m_children.emplace_back();
    m_byPath.emplace("", 0);
    m_scopeOfNode.assign(graph.idBound(), -1);
    maxChildren = std::max<size_t>(maxChildren, 2);

    // A Dynamo graph records no scopes: its lifted parameters' names give them.
    const std::vector<std::string> derived = derivedModuleScopes(graph);
    for (NodeId id : graph.nodeIds()) {
        const std::string &scopePath = derived.empty() ? graph.node(id)->provenance.scope : derived[id.value];
        int current = 0;
        size_t start = 0;
        while (start < scopePath.size()) {
            size_t dot = scopePath.find('.', start);
            if (dot == std::string::npos)
                dot = scopePath.size();
            if (dot > start) // "a..b" tolerates empty segments
                current = child(current, scopePath.substr(start, dot - start), scopePath.substr(0, dot));
            start = dot + 1;
        }
        m_scopeOfNode[id.value] = current;
        m_children[static_cast<size_t>(current)].push_back(nodeEntry(id));
    }

    // Split wide scopes (this appends artificial scopes; iterate by index).
    const size_t realScopes = m_scopes.size();
    for (size_t i = 0; i < realScopes; ++i)
        split(static_cast<int>(i), maxChildren);

    // Materialise the ordered children into scopes/nodes and depths.
    for (size_t i = 0; i < m_scopes.size(); ++i) {
        Scope &s = m_scopes[i];
        s.scopes.clear();
        s.nodes.clear();
        for (int64_t entry : m_children[i]) {
            if (isNodeEntry(entry)) {
                s.nodes.push_back(entryNode(entry));
                m_scopeOfNode[entryNode(entry).value] = static_cast<int>(i);
            } else {
                s.scopes.push_back(static_cast<int>(entry));
                m_scopes[static_cast<size_t>(entry)].parent = static_cast<int>(i);
            }
        }
    }
    // Depth top-down (artificial scopes have higher indices than their children).
    std::vector<int> stack{0};
    while (!stack.empty()) {
        int index = stack.back();
        stack.pop_back();
        for (int c : m_scopes[static_cast<size_t>(index)].scopes) {
            m_scopes[static_cast<size_t>(c)].depth = m_scopes[static_cast<size_t>(index)].depth + 1;
            stack.push_back(c);
        }
    }
    countNodes(0);
    m_children.clear();
}

int ScopeTree::child(int parent, const std::string &segment, const std::string &path)
{
    auto it = m_byPath.find(path);
    if (it != m_byPath.end())
        return it->second;
    int index = static_cast<int>(m_scopes.size());
    Scope s;
    s.path = path;
    s.label = segment;
    s.parent = parent;
    m_scopes.push_back(std::move(s));
    m_children.emplace_back();
    m_children[static_cast<size_t>(parent)].push_back(index);
    m_byPath.emplace(path, index);
    return index;
}

void ScopeTree::split(int index, size_t maxChildren)
{
    // Ranges are positions in the scope's original child list, so nested
    // artificial groups read "[0:40000]" > "[0:200]".
    struct Range {
        int64_t entry;
        size_t first, last; // [first, last)
    };
    std::vector<Range> level;
    const auto &original = m_children[static_cast<size_t>(index)];
    if (original.size() <= maxChildren)
        return;
    for (size_t i = 0; i < original.size(); ++i)
        level.push_back({original[i], i, i + 1});
    const std::string parentPath = m_scopes[static_cast<size_t>(index)].path;
    while (level.size() > maxChildren) {
        std::vector<Range> next;
        for (size_t start = 0; start < level.size(); start += maxChildren) {
            size_t end = std::min(level.size(), start + maxChildren);
            if (end - start == 1) { // a group of one would only repeat its child
                next.push_back(level[start]);
                continue;
            }
            Range range{0, level[start].first, level[end - 1].last};
            std::string name = "[" + std::to_string(range.first) + ":" + std::to_string(range.last) + "]";
            int group = static_cast<int>(m_scopes.size());
            Scope s;
            s.path = parentPath + name;
            s.label = (parentPath.empty() ? std::string("top level") : m_scopes[static_cast<size_t>(index)].label) + " "
                      + name;
            s.artificial = true;
            m_scopes.push_back(std::move(s));
            std::vector<int64_t> members;
            for (size_t k = start; k < end; ++k)
                members.push_back(level[k].entry);
            m_children.push_back(std::move(members));
            m_byPath.emplace(m_scopes.back().path, group);
            range.entry = group;
            next.push_back(range);
        }
        level = std::move(next);
    }
    std::vector<int64_t> children;
    for (const Range &r : level)
        children.push_back(r.entry);
    m_children[static_cast<size_t>(index)] = std::move(children);
}

size_t ScopeTree::countNodes(int index)
{
    // Iterative post-order: scope trees of generated graphs can be deep.
    std::vector<std::pair<int, bool>> stack{{index, false}};
    while (!stack.empty()) {
        auto [i, done] = stack.back();
        stack.pop_back();
        Scope &s = m_scopes[static_cast<size_t>(i)];
        if (done) {
            s.nodeCount = s.nodes.size();
            for (int c : s.scopes)
                s.nodeCount += m_scopes[static_cast<size_t>(c)].nodeCount;
            continue;
        }
        stack.push_back({i, true});
        for (int c : s.scopes)
            stack.push_back({c, false});
    }
    return m_scopes[static_cast<size_t>(index)].nodeCount;
}

int ScopeTree::scopeOf(NodeId id) const
{
    if (!id.isValid() || id.value >= m_scopeOfNode.size())
        return -1;
    return m_scopeOfNode[id.value];
}

int ScopeTree::find(std::string_view path) const
{
    auto it = m_byPath.find(std::string(path));
    return it == m_byPath.end() ? -1 : it->second;
}

std::vector<int> ScopeTree::chain(int index) const
{
    std::vector<int> result;
    for (int i = index; i > 0; i = m_scopes[static_cast<size_t>(i)].parent)
        result.push_back(i);
    std::reverse(result.begin(), result.end());
    return result;
}

bool ScopeTree::contains(int ancestor, int index) const
{
    for (int i = index; i >= 0; i = m_scopes[static_cast<size_t>(i)].parent)
        if (i == ancestor)
            return true;
    return false;
}

int ScopeTree::maxDepth() const
{
    int depth = 0;
    for (const Scope &s : m_scopes)
        depth = std::max(depth, s.depth);
    return depth;
}

} // namespace fusebox
