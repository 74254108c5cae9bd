#include "Traversal.h"

#include <algorithm>
#include <cstdint>

namespace fusebox {

bool isTopologicallySorted(const Graph &graph)
{
    return graph.isTopologicallySorted();
}

std::vector<uint32_t> programPositions(const Graph &graph)
{
    std::vector<uint32_t> position(graph.idBound(), 0);
    uint32_t i = 0;
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id))
        position[id.value] = i++;
    return position;
}

std::vector<NodeId> topologicalOrder(const Graph &graph)
{
    // Fast path, and the usual case (importers and the driver keep graphs
    // sorted): when program order is already topological it is the answer.
    if (isTopologicallySorted(graph))
        return graph.nodeIds();
    const std::vector<NodeId> program = graph.nodeIds();
    // Otherwise walk program order and emit each node after its not yet
    // emitted inputs (a depth-first post-order over the args): nodes already
    // in order stay where they are, a node read before its definition is
    // hoisted to just before its first reader. O(nodes + edges), no heap.
    enum : char { kNew, kOpen, kDone };
    std::vector<char> state(graph.idBound(), kNew);
    std::vector<NodeId> order;
    order.reserve(program.size());
    std::vector<std::pair<NodeId, size_t>> stack; // (node, next input to visit)
    std::vector<NodeId> inputs;
    for (NodeId start : program) {
        if (state[start.value] != kNew)
            continue;
        stack.push_back({start, 0});
        state[start.value] = kOpen;
        while (!stack.empty()) {
            auto &[id, next] = stack.back();
            inputs.clear();
            graph.forEachInput(id, [&](NodeId in) { inputs.push_back(in); });
            bool descended = false;
            while (next < inputs.size()) {
                const NodeId in = inputs[next++];
                if (!graph.contains(in) || state[in.value] == kDone)
                    continue;
                if (state[in.value] == kOpen)
                    return {}; // a cycle
                state[in.value] = kOpen;
                stack.push_back({in, 0});
                descended = true;
                break;
            }
            if (descended)
                continue;
            state[id.value] = kDone;
            order.push_back(id);
            stack.pop_back();
        }
    }
    return order;
}

std::vector<NodeId> stableTopologicalOrder(const Graph &graph)
{
    if (isTopologicallySorted(graph))
        return graph.nodeIds();
    const std::vector<NodeId> program = graph.nodeIds();
    // pending: nodes to process, last to be processed first (Inductor's
    // reversed(graph.nodes), popped from the back). The nodes parked on d wait
    // in a list threaded through `nextParked` (first[d] .. last[d]), released
    // in their parking order once d is ready: no vector per node.
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<NodeId> pending(program.rbegin(), program.rend());
    std::vector<char> ready(graph.idBound(), 0);
    std::vector<uint32_t> first(graph.idBound(), kNone), last(graph.idBound(), kNone),
        nextParked(graph.idBound(), kNone);
    std::vector<NodeId> order, released;
    order.reserve(program.size());
    size_t parked = 0;
    while (!pending.empty()) {
        const NodeId id = pending.back();
        pending.pop_back();
        NodeId lastUnready;
        graph.forEachInput(id, [&](NodeId in) {
            if (graph.contains(in) && !ready[in.value])
                lastUnready = in;
        });
        if (lastUnready.isValid()) {
            const uint32_t d = lastUnready.value;
            nextParked[id.value] = kNone; // (it may have waited on another node before)
            (first[d] == kNone ? first[d] : nextParked[last[d]]) = id.value;
            last[d] = id.value;
            ++parked;
            continue;
        }
        ready[id.value] = 1;
        order.push_back(id);
        released.clear();
        for (uint32_t n = first[id.value]; n != kNone; n = nextParked[n])
            released.push_back(NodeId{n});
        first[id.value] = last[id.value] = kNone;
        parked -= released.size();
        pending.insert(pending.end(), released.rbegin(), released.rend());
    }
    if (parked != 0 || order.size() != program.size())
        return {}; // a cycle: some nodes wait for each other
    return order;
}

namespace {

template<typename Next>
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

bool hasCycle(const Graph &graph)
{
    return !graph.isTopologicallySorted() && graph.size() != 0 && topologicalOrder(graph).empty();
}

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
