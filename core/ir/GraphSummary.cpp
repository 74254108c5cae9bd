#include "GraphSummary.h"

#include <algorithm>

namespace fusebox {

GraphSummary summarize(const Graph &graph)
{
    GraphSummary s;
    s.nodes = graph.size();
    s.edges = graph.edgeCount();
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        switch (n.kind()) {
        case NodeKind::Input: ++s.inputs; break;
        case NodeKind::Constant: ++s.constants; break;
        case NodeKind::Op:
            ++s.ops;
            ++s.opCounts[n.op];
            break;
        case NodeKind::Output: break;
        }
    }
    s.opHistogram.assign(s.opCounts.begin(), s.opCounts.end());
    std::stable_sort(s.opHistogram.begin(), s.opHistogram.end(),
                     [](const auto &a, const auto &b) { return a.second > b.second; });
    return s;
}

} // namespace fusebox
