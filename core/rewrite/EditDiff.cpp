#include "EditDiff.h"

#include <algorithm>
#include <unordered_map>

namespace fusebox {

namespace {

std::string patternOf(const std::string &label)
{
    // GreedyDriver::apply labels "pattern@anchor", GreedyDriver::run "pattern#n".
    const auto at = label.find_first_of("@#");
    return at == std::string::npos ? std::string() : label.substr(0, at);
}

void countOps(const Graph &graph, bool after, std::map<std::string, std::pair<size_t, size_t>> &counts)
{
    for (NodeId id : graph.nodeIds()) {
        const Node *n = graph.node(id);
        if (!n || n->kind() != NodeKind::Op)
            continue;
        auto &c = counts[n->op];
        (after ? c.second : c.first)++;
    }
}

} // namespace

GraphDiff diffFromEdits(const Graph &before, const Graph &after, const std::vector<const EditGroup *> &groups)
{
    GraphDiff diff;
    // Which group last inserted / erased each node decides whom its net change
    // is charged to.
    std::unordered_map<NodeId, std::string> insertedBy, erasedBy;
    std::vector<NodeId> modified;
    std::map<std::string, size_t> rewrites;
    std::vector<std::string> order;
    for (const EditGroup *group : groups) {
        const std::string pattern = patternOf(group->label);
        if (!pattern.empty()) {
            if (!rewrites.count(pattern))
                order.push_back(pattern);
            ++rewrites[pattern];
        }
        for (const Edit &e : group->edits) {
            switch (e.kind) {
            case Edit::Kind::Insert: insertedBy[e.node] = pattern; break;
            case Edit::Kind::Erase: erasedBy[e.node] = pattern; break;
            case Edit::Kind::Modify:
            case Edit::Kind::SetArgs: modified.push_back(e.node); break;
            case Edit::Kind::Move:
            case Edit::Kind::Reorder: break;
            }
        }
    }
    std::map<std::string, std::pair<size_t, size_t>> perPattern; // removed, added
    for (const auto &[id, pattern] : erasedBy) {
        if (before.contains(id) && !after.contains(id)) {
            diff.removed.push_back(id);
            ++perPattern[pattern].first;
        }
    }
    for (const auto &[id, pattern] : insertedBy) {
        if (!before.contains(id) && after.contains(id)) {
            diff.added.push_back(id);
            ++perPattern[pattern].second;
        }
    }
    std::sort(modified.begin(), modified.end(), [](NodeId a, NodeId b) { return a.value < b.value; });
    modified.erase(std::unique(modified.begin(), modified.end()), modified.end());
    for (NodeId id : modified)
        if (before.contains(id) && after.contains(id))
            diff.changed.push_back(id);
    auto byValue = [](NodeId a, NodeId b) { return a.value < b.value; };
    std::sort(diff.removed.begin(), diff.removed.end(), byValue);
    std::sort(diff.added.begin(), diff.added.end(), byValue);
    for (const std::string &pattern : order)
        diff.byPattern.push_back({pattern, rewrites[pattern], perPattern[pattern].first, perPattern[pattern].second});
    countOps(before, false, diff.opCounts);
    countOps(after, true, diff.opCounts);
    return diff;
}

} // namespace fusebox
