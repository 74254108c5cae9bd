#include "MatchTrace.h"

#include "core/ir/Graph.h"

namespace fusebox {

const Check *MatchTrace::failure() const
{
    for (const Check &c : m_checks)
        if (!c.passed)
            return &c;
    return nullptr;
}

std::string nodeRef(const Graph &graph, NodeId id)
{
    const Node *n = graph.node(id);
    return n ? "%" + n->name : "%<erased>";
}

} // namespace fusebox
