#include "FuseboxOpDecomposition.h"

#include "core/rewrite/PatternRewriter.h"

#include <set>

namespace fusebox {

std::vector<std::string> fuseboxOpDecomposition(std::string_view op)
{
    if (op == "fusebox::linear_relu")
        return {"aten::linear", "aten::relu"};
    if (op == "fusebox::linear_gelu")
        return {"aten::linear", "aten::gelu"};
    return {};
}

std::vector<std::string> fuseboxOpsIn(const Graph &graph)
{
    std::set<std::string> ops;
    for (NodeId id : graph.nodeIds())
        if (const Node *n = graph.node(id); n->isOp() && n->op.starts_with("fusebox::"))
            ops.insert(n->op);
    return {ops.begin(), ops.end()};
}

Graph decomposeFuseboxOps(const Graph &graph, std::vector<std::string> *decomposed)
{
    Graph copy = graph.clone();
    std::set<std::string> replaced;
    PatternRewriter rewriter(copy);
    std::vector<NodeId> fused;
    for (NodeId id : copy.nodeIds())
        if (const Node *n = copy.node(id); n->isOp() && !fuseboxOpDecomposition(n->op).empty())
            fused.push_back(id);
    for (NodeId id : fused) {
        const Node node = *copy.node(id); // a copy: the rewriter changes the graph
        const std::vector<std::string> chain = fuseboxOpDecomposition(node.op);
        NodeId value;
        for (size_t i = 0; i < chain.size(); ++i) {
            // Every step has the fused op's result type (linear, then an
            // elementwise activation).
            value = i == 0 ? rewriter.createOp(chain[i], node.args(), node.kwargs(), id, node.meta)
                           : rewriter.createOp(chain[i], {value}, {}, id, node.meta);
        }
        rewriter.modify(value, [&](Node &n) { n.provenance = node.provenance; });
        rewriter.replaceAndErase(id, value);
        replaced.insert(node.op);
    }
    if (decomposed)
        decomposed->assign(replaced.begin(), replaced.end());
    return copy;
}

} // namespace fusebox
