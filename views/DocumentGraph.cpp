// The document's read model: the graph the views draw, its origin and facts.
#include "DocumentGraph.h"

#include "DocumentHistory.h"

namespace fusebox {

namespace {

std::map<OpFamily, size_t> countFamilies(const Graph &graph)
{
    std::map<OpFamily, size_t> counts;
    for (NodeId id : graph.nodeIds())
        ++counts[opFamily(*graph.node(id))];
    return counts;
}

} // namespace

GraphFacts GraphFacts::of(const Graph &graph)
{
    GraphFacts facts;
    facts.shapes = countShapes(graph);
    facts.summary = summarize(graph);
    facts.families = countFamilies(graph);
    facts.scopes = std::make_shared<const ScopeTree>(graph);
    return facts;
}

OpenedGraph OpenedGraph::prepare(Graph graph)
{
    OpenedGraph opened;
    opened.original = graph.clone();
    opened.issues = verify(graph);
    opened.facts = GraphFacts::of(graph);
    opened.graph = std::move(graph);
    return opened;
}

DocumentGraph::DocumentGraph(const DocumentHistory &history, QObject *parent)
    : QObject(parent)
    , m_history(history)
{}

const Graph &DocumentGraph::graph() const
{
    return m_history.graph();
}

const GraphFacts &DocumentGraph::facts() const
{
    if (!m_facts)
        m_facts = GraphFacts::of(graph());
    return *m_facts;
}

std::vector<size_t> DocumentGraph::inputsWithoutShape() const
{
    std::vector<size_t> unknown;
    const auto &inputs = graph().inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Node *n = graph().node(inputs[i]);
        // Tensor inputs only: an int or a list input has no shape to give.
        if (n && (n->type.empty() || n->type == "Tensor") && !n->meta.hasStaticShape())
            unknown.push_back(i);
    }
    return unknown;
}

void DocumentGraph::adopt(GraphOrigin origin, GraphFacts facts)
{
    m_hasGraph = true;
    m_origin = std::move(origin);
    m_facts = std::move(facts);
    emit graphLoaded();
}

void DocumentGraph::rewritten()
{
    m_facts.reset();
    emit graphRewritten();
}

} // namespace fusebox
