#include "CollapsedGraph.h"

#include "core/ir/LiftedParameters.h"

#include <map>

namespace fusebox {

namespace {
bool isFiltered(const Node &node, const CollapsedGraph::Options &options)
{
    if (options.onlyNodes && !options.onlyNodes->count(node.id().value))
        return true;
    // Dynamo's lifted parameters and buffers are weights too (LiftedParameters.h).
    return !options.showConstants && isWeight(node);
}
} // namespace

CollapsedGraph::CollapsedGraph(const Graph &graph, const ScopeTree &tree, const std::set<std::string> &expanded,
                               Options options)
{
    // visibleGroup[s]: -1 when s and all its ancestors are expanded (its nodes
    // show as themselves), else the outermost collapsed scope above or at s.
    std::vector<int> visibleGroup(tree.size(), -1);
    std::vector<int> stack{tree.root()};
    while (!stack.empty()) {
        int s = stack.back();
        stack.pop_back();
        for (int c : tree.scope(s).scopes) {
            if (visibleGroup[size_t(s)] >= 0)
                visibleGroup[size_t(c)] = visibleGroup[size_t(s)];
            else
                visibleGroup[size_t(c)] = expanded.count(tree.scope(c).path) ? -1 : c;
            stack.push_back(c);
        }
    }

    // Visible nodes per collapsed group: a group that would stand for a single
    // node shows that node instead (a box saying "1 node" helps nobody).
    std::vector<size_t> groupSize(tree.size(), 0);
    for (NodeId id : graph.nodeIds()) {
        if (isFiltered(*graph.node(id), options))
            continue;
        int scope = tree.scopeOf(id);
        if (scope >= 0 && visibleGroup[size_t(scope)] >= 0)
            ++groupSize[size_t(visibleGroup[size_t(scope)])];
    }

    m_keyOfNode.assign(graph.idBound(), -1);
    for (NodeId id : graph.nodeIds()) {
        const Node &node = *graph.node(id);
        if (isFiltered(node, options)) {
            ++m_hiddenNodes;
            if (options.onlyNodes && !options.onlyNodes->count(id.value))
                ++m_outsideFocus;
            continue;
        }
        ++m_visibleNodes;
        int scope = tree.scopeOf(id);
        int group = scope >= 0 ? visibleGroup[size_t(scope)] : -1;
        if (group >= 0 && groupSize[size_t(group)] < 2)
            group = -1;
        uint64_t key = group >= 0 ? groupKey(group) : nodeKey(id);
        m_keyOfNode[id.value] = int64_t(key);
        auto [it, inserted] = m_itemIndex.emplace(key, m_items.size());
        if (inserted) {
            m_items.push_back(Item{key, group >= 0 ? NodeId{} : id, group, 0});
            if (group >= 0)
                ++m_groupCount;
        }
        ++m_items[it->second].nodeCount;
    }

    std::map<std::pair<uint64_t, uint64_t>, size_t> edgeIndex;
    for (NodeId id : graph.nodeIds()) {
        int64_t to = m_keyOfNode[id.value];
        if (to < 0)
            continue;
        for (NodeId input : graph.node(id)->inputNodes()) {
            if (!input.isValid() || input.value >= m_keyOfNode.size())
                continue;
            int64_t from = m_keyOfNode[input.value];
            if (from < 0 || from == to)
                continue;
            auto [it, inserted] = edgeIndex.emplace(std::pair{uint64_t(from), uint64_t(to)}, m_edges.size());
            if (inserted)
                m_edges.push_back(Edge{uint64_t(from), uint64_t(to), 0});
            ++m_edges[it->second].multiplicity;
        }
    }
}

std::optional<uint64_t> CollapsedGraph::itemOf(NodeId id) const
{
    if (!id.isValid() || id.value >= m_keyOfNode.size() || m_keyOfNode[id.value] < 0)
        return std::nullopt;
    return uint64_t(m_keyOfNode[id.value]);
}

const CollapsedGraph::Item *CollapsedGraph::item(uint64_t key) const
{
    auto it = m_itemIndex.find(key);
    return it == m_itemIndex.end() ? nullptr : &m_items[it->second];
}

size_t CollapsedGraph::fullyExpandedItemCount(const Graph &graph, Options options)
{
    size_t count = 0;
    for (NodeId id : graph.nodeIds())
        if (!isFiltered(*graph.node(id), options))
            ++count;
    return count;
}

} // namespace fusebox
