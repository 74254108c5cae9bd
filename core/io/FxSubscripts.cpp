#include "FxSubscripts.h"

#include <algorithm>
#include <limits>

namespace fusebox::fx {
namespace {

constexpr std::string_view kSpelling = "operator.getitem";

bool isStep(const Node &n)
{
    return n.isOp() && (n.op == "aten::slice" || n.op == "aten::select") && n.kwargs().empty() && !n.args().empty()
           && n.args()[0].isNode() && n.provenance.originalSpelling == kSpelling;
}

/// One index item (`:16`, `2`) for a step at `dim`, or nullopt when the step
/// is not one a subscript item gives at that position.
std::optional<std::string> itemText(const Node &step, int64_t dim)
{
    const auto &a = step.args();
    if (step.op == "aten::select") {
        if (a.size() != 3 || a[1].asInt() != dim || !a[2].asInt())
            return std::nullopt;
        return std::to_string(*a[2].asInt());
    }
    if (a.size() != 5 || a[1].asInt() != dim || !a[2].asInt() || !a[3].asInt() || !a[4].asInt())
        return std::nullopt;
    const int64_t start = *a[2].asInt(), end = *a[3].asInt(), stride = *a[4].asInt();
    std::string s = (start == 0 ? "" : std::to_string(start)) + ":"
                    + (end == std::numeric_limits<int64_t>::max() ? "" : std::to_string(end));
    return stride == 1 ? s : s + ":" + std::to_string(stride);
}

} // namespace

std::optional<LoweredSubscript> loweredSubscript(const Graph &graph, NodeId last)
{
    const Node *n = graph.node(last);
    if (!n || !isStep(*n) || n->provenance.writtenArgs.empty())
        return std::nullopt;
    // Walk back to the subscripted value through the unwritten steps.
    std::vector<const Node *> chain{n};
    for (const Node *prev = graph.node(n->args()[0].node());
         prev && isStep(*prev) && prev->provenance.writtenArgs.empty(); prev = graph.node(prev->args()[0].node())) {
        if (graph.useCount(prev->id()) != 1)
            return std::nullopt;
        chain.push_back(prev);
    }
    std::reverse(chain.begin(), chain.end());
    LoweredSubscript out;
    out.object = chain.front()->args()[0].node();
    int64_t dim = 0;
    for (const Node *step : chain) {
        auto item = itemText(*step, dim);
        if (!item)
            return std::nullopt;
        out.index += (out.index.empty() ? "" : ", ") + *item;
        dim += step->op == "aten::slice" ? 1 : 0;
        if (step != n)
            out.steps.push_back(step->id());
    }
    return out;
}

} // namespace fusebox::fx
