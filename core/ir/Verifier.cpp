#include "Verifier.h"

#include "Traversal.h"

#include <algorithm>
#include <unordered_set>

namespace fusebox {

std::vector<VerifierIssue> verify(const Graph &graph)
{
    std::vector<VerifierIssue> issues;
    auto report = [&](NodeId id, const std::string &what) {
        const Node *n = graph.node(id);
        issues.push_back({id, (n ? "%" + n->name : "graph") + ": " + what});
    };

    const std::vector<NodeId> program = graph.nodeIds();
    std::unordered_set<std::string> names;
    std::vector<char> defined(graph.idBound(), 0);
    size_t opNodes = 0;
    for (NodeId id : program) {
        const Node &n = *graph.node(id);
        if (n.name.empty())
            report(id, "node #" + std::to_string(id.value) + " has an empty name");
        else if (!names.insert(n.name).second)
            report(id, "name '" + n.name + "' is used by more than one node");

        int argIndex = 0;
        for (NodeId in : n.inputNodes()) {
            if (!graph.contains(in))
                report(id, "argument " + std::to_string(argIndex) + " refers to node #" + std::to_string(in.value)
                               + ", which is not in the graph");
            else if (!defined[in.value])
                report(id, "reads %" + graph.node(in)->name + " before it is defined");
            ++argIndex;
        }
        defined[id.value] = 1;

        switch (n.kind()) {
        case NodeKind::Input:
            if (!n.args().empty() || !n.kwargs().empty())
                report(id, "an input has arguments");
            break;
        case NodeKind::Constant:
            if (n.weightKey.empty())
                report(id, "a constant has no weight key");
            break;
        case NodeKind::Op:
            if (n.op.empty())
                report(id, "an op node has no op name");
            ++opNodes;
            if (n.op == ops::kGetItem && (n.args().size() != 2 || !n.args()[0].isNode() || !n.args()[1].asInt()))
                report(id, "getitem needs (node, int) arguments, has " + std::to_string(n.args().size()));
            break;
        case NodeKind::Output:
            if (id != graph.output())
                report(id, "a second output node");
            break;
        }
    }

    // The op index must list each live op node once, under its current op.
    size_t indexed = 0;
    for (const std::string &op : graph.opNames())
        for (NodeId id : graph.nodesWithOp(op)) {
            ++indexed;
            const Node *n = graph.node(id);
            if (!n || n->op != op)
                issues.push_back({id, "graph: the op index lists node #" + std::to_string(id.value) + " under '" + op
                                          + "' but it is " + (n ? "'" + n->op + "'" : "gone")
                                          + " (an op was assigned without Graph::setOp)"});
        }
    if (indexed != opNodes)
        issues.push_back({{},
                          "graph: the op index holds " + std::to_string(indexed) + " nodes for "
                              + std::to_string(opNodes) + " op nodes"});

    if (!graph.output().isValid())
        issues.push_back({{}, "graph: has no output node"});
    else if (graph.last() != graph.output())
        report(graph.output(), "the output node is not the last node");

    if (!program.empty() && topologicalOrder(graph).empty())
        issues.push_back({{}, "graph: has a cycle"});
    return issues;
}

std::string formatIssues(const std::vector<VerifierIssue> &issues)
{
    std::string text;
    for (const VerifierIssue &issue : issues)
        text += issue.message + "\n";
    return text;
}

} // namespace fusebox
