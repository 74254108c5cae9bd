#include "EditDiff.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

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

NodeChange netNodeChange(const EditGroup &group)
{
    std::unordered_set<uint32_t> inserted;
    NodeChange change;
    for (const Edit &e : group.edits) {
        if (e.kind == Edit::Kind::Insert)
            inserted.insert(e.node.value);
        else if (e.kind == Edit::Kind::Erase && !inserted.erase(e.node.value))
            ++change.removed;
    }
    change.added = inserted.size();
    return change;
}

GraphDiff diffFromEdits(const Graph &before, const Graph &after, const std::vector<const EditGroup *> &groups)
{
    GraphDiff diff;
    std::unordered_set<NodeId> inserted, erased;
    std::vector<NodeId> modified;
    std::map<std::string, size_t> rewrites;
    std::map<std::string, NodeChange> perPattern;
    std::vector<std::string> order;
    for (const EditGroup *group : groups) {
        const std::string pattern = patternOf(group->label);
        if (!pattern.empty()) {
            if (!rewrites.count(pattern))
                order.push_back(pattern);
            ++rewrites[pattern];
            const NodeChange change = netNodeChange(*group);
            perPattern[pattern].removed += change.removed;
            perPattern[pattern].added += change.added;
        }
        for (const Edit &e : group->edits) {
            switch (e.kind) {
            case Edit::Kind::Insert: inserted.insert(e.node); break;
            case Edit::Kind::Erase: erased.insert(e.node); break;
            case Edit::Kind::Modify:
            case Edit::Kind::SetArgs: modified.push_back(e.node); break;
            case Edit::Kind::Move:
            case Edit::Kind::Reorder: break;
            }
        }
    }
    for (NodeId id : erased)
        if (before.contains(id) && !after.contains(id))
            diff.removed.push_back(id);
    for (NodeId id : inserted)
        if (!before.contains(id) && after.contains(id))
            diff.added.push_back(id);
    std::sort(modified.begin(), modified.end(), [](NodeId a, NodeId b) { return a.value < b.value; });
    modified.erase(std::unique(modified.begin(), modified.end()), modified.end());
    for (NodeId id : modified)
        if (before.contains(id) && after.contains(id))
            diff.changed.push_back(id);
    auto byValue = [](NodeId a, NodeId b) { return a.value < b.value; };
    std::sort(diff.removed.begin(), diff.removed.end(), byValue);
    std::sort(diff.added.begin(), diff.added.end(), byValue);
    for (const std::string &pattern : order)
        diff.byPattern.push_back({pattern, rewrites[pattern], perPattern[pattern].removed, perPattern[pattern].added});
    countOps(before, false, diff.opCounts);
    countOps(after, true, diff.opCounts);
    return diff;
}

} // namespace fusebox
