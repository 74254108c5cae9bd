#include "GraphSource.h"

namespace fusebox {

bool isPt2Graph(const Graph &graph)
{
    auto format = graph.metadata().find("source.format");
    if (format == graph.metadata().end())
        return false;
    const std::string &f = format->second;
    return f == "fx-text" || f == "fx-graph" || f.starts_with("torch.export") || f.starts_with("pt2");
}

bool isTorchLevelCall(const Node &node)
{
    if (!node.isOp())
        return false;
    const std::string &s = node.provenance.originalSpelling;
    const bool spelledTorchLevel = !s.empty() && !s.starts_with("torch.ops.") && !s.starts_with("operator.")
                                   && !s.starts_with("_operator.");
    return spelledTorchLevel || node.op.starts_with("torch.") || node.op.starts_with("Tensor.");
}

bool hasTorchLevelCalls(const Graph &graph)
{
    for (NodeId id : graph.nodeIds())
        if (isTorchLevelCall(*graph.node(id)))
            return true;
    return false;
}

bool isPreGradGraph(const Graph &graph)
{
    if (!isPt2Graph(graph))
        return false;
    if (auto stage = graph.metadata().find("source.stage"); stage != graph.metadata().end())
        return stage->second == "pre_grad";
    return hasTorchLevelCalls(graph);
}

} // namespace fusebox
