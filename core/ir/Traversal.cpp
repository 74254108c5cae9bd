#include "Traversal.h"

#include <algorithm>
#include <queue>

namespace fusebox {

std::vector<NodeId> topologicalOrder(const Graph &graph)
{
    const std::vector<NodeId> program = graph.nodeIds();
    std::vector<uint32_t> position(graph.idBound(), 0);
    std::vector<uint32_t> pending(graph.idBound(), 0);
    for (uint32_t i = 0; i < program.size(); ++i)
        position[program[i].value] = i;

    using Entry = std::pair<uint32_t, NodeId>; // (program position, node)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (NodeId id : program) {
        // One count per use; forEachUse below releases one per use too.
        graph.node(id)->forEachInput([&](NodeId in) {
            if (graph.contains(in))
                ++pending[id.value];
        });
        if (pending[id.value] == 0)
            ready.push({position[id.value], id});
    }

    std::vector<NodeId> order;
    order.reserve(program.size());
    while (!ready.empty()) {
        NodeId id = ready.top().second;
        ready.pop();
        order.push_back(id);
        graph.forEachUse(id, [&](NodeId user) {
            if (--pending[user.value] == 0)
                ready.push({position[user.value], user});
        });
    }
    if (order.size() != program.size())
        return {};
    return order;
}

namespace {

template <typename Next>
std::vector<NodeId> reach(const Graph &graph, NodeId from, Next next)
{
    std::vector<char> seen(graph.idBound(), 0);
    std::vector<NodeId> stack{from}, found;
    seen[from.value] = 1;
    while (!stack.empty()) {
        NodeId id = stack.back();
        stack.pop_back();
        for (NodeId n : next(id)) {
            if (!graph.contains(n) || seen[n.value])
                continue;
            seen[n.value] = 1;
            found.push_back(n);
            stack.push_back(n);
        }
    }
    return found;
}

} // namespace

std::vector<NodeId> ancestors(const Graph &graph, NodeId from)
{
    if (!graph.contains(from))
        return {};
    return reach(graph, from, [&](NodeId id) { return graph.node(id)->inputNodes(); });
}

std::vector<NodeId> descendants(const Graph &graph, NodeId from)
{
    if (!graph.contains(from))
        return {};
    return reach(graph, from, [&](NodeId id) { return graph.users(id); });
}

bool isAncestor(const Graph &graph, NodeId ancestor, NodeId node)
{
    if (!graph.contains(ancestor) || !graph.contains(node) || ancestor == node)
        return false;
    std::vector<char> seen(graph.idBound(), 0);
    std::vector<NodeId> stack{node};
    while (!stack.empty()) {
        NodeId id = stack.back();
        stack.pop_back();
        for (NodeId in : graph.node(id)->inputNodes()) {
            if (in == ancestor)
                return true;
            if (graph.contains(in) && !seen[in.value]) {
                seen[in.value] = 1;
                stack.push_back(in);
            }
        }
    }
    return false;
}

std::vector<NodeId> neighbourhood(const Graph &graph, NodeId center, int hops)
{
    if (!graph.contains(center))
        return {};
    std::vector<int> depth(graph.idBound(), -1);
    std::vector<NodeId> found{center};
    depth[center.value] = 0;
    for (size_t i = 0; i < found.size(); ++i) {
        NodeId id = found[i];
        if (depth[id.value] >= hops)
            continue;
        auto visit = [&](NodeId n) {
            if (graph.contains(n) && depth[n.value] < 0) {
                depth[n.value] = depth[id.value] + 1;
                found.push_back(n);
            }
        };
        for (NodeId n : graph.node(id)->inputNodes())
            visit(n);
        for (NodeId n : graph.users(id))
            visit(n);
    }
    return found;
}

} // namespace fusebox
