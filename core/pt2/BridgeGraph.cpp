#include "BridgeGraph.h"

#include "core/io/Base64.h"
#include "core/io/FxText.h"
#include "core/rewrite/FuseboxOpDecomposition.h"

namespace fusebox::pt2 {

std::string bridgeGraphText(const Graph &graph)
{
    // Only a graph that uses them is copied: a 100k-node copy costs more than the text.
    if (fuseboxOpsIn(graph).empty())
        return writeFxText(graph);
    return writeFxText(decomposeFuseboxOps(graph));
}

nlohmann::json bridgeWeights(const Graph &graph)
{
    nlohmann::json weights = nlohmann::json::object();
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (n.kind() != NodeKind::Constant)
            continue;
        const std::string key = n.weightKey.empty() ? n.name : n.weightKey;
        auto payload = graph.weights().get(key);
        if (!payload || !payload->meta.shape || weights.contains(key))
            continue;
        nlohmann::json shape = nlohmann::json::array();
        bool concrete = true;
        for (const Dim &d : *payload->meta.shape) {
            if (const int64_t *size = std::get_if<int64_t>(&d))
                shape.push_back(*size);
            else
                concrete = false;
        }
        if (!concrete)
            continue;
        weights[key] = {{"dtype", std::string(shortName(payload->meta.dtype))},
                        {"shape", shape},
                        {"base64", encodeBase64(payload->data)}};
    }
    return weights;
}

} // namespace fusebox::pt2
