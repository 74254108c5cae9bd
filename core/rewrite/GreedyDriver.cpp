#include "GreedyDriver.h"

#include "HorizontalSearch.h"
#include "MatchUtils.h"

#include "core/ir/Traversal.h"

#include <algorithm>
#include <set>
#include <cstdio>
#include <unordered_map>

namespace fusebox {
namespace {

/// Marks the nodes a rewrite inserted, erased or modified.
class TouchTracker final : public RewriteListener {
public:
    std::vector<char> touched;
    size_t inserted = 0, erased = 0;

    void mark(NodeId id)
    {
        if (id.value >= touched.size())
            touched.resize(id.value + 1, 0);
        touched[id.value] = 1;
    }
    bool isTouched(NodeId id) const { return id.value < touched.size() && touched[id.value]; }
    void nodeInserted(const Graph &, NodeId id) override { mark(id); ++inserted; }
    void nodeErasing(const Graph &, NodeId id) override { mark(id); ++erased; }
    void nodeModified(const Graph &, NodeId id) override { mark(id); }
};

std::vector<uint32_t> positions(const Graph &graph)
{
    std::vector<uint32_t> pos(graph.idBound(), 0);
    uint32_t i = 0;
    for (NodeId id : graph.nodeIds())
        pos[id.value] = i++;
    return pos;
}

} // namespace

GreedyDriver::GreedyDriver(const PatternSet &patterns, DriverOptions options)
    : m_patterns(patterns), m_options(std::move(options))
{
}

std::vector<Match> GreedyDriver::verticalMatches(const Graph &graph, const VerticalPattern &pattern) const
{
    std::vector<Match> found;
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id)) {
        const Node &n = *graph.node(id);
        if (!n.isOp() || !pattern.isRootOp(n.op))
            continue;
        MatchTrace trace;
        if (auto m = pattern.match(graph, id, trace))
            found.push_back(std::move(*m));
    }
    return found;
}

std::vector<Match> GreedyDriver::horizontalMatches(const Graph &graph, const HorizontalPattern &pattern,
                                                   const std::vector<NodeId> &order) const
{
    std::vector<Match> found;
    for (FusionGroup &group : searchHorizontal(graph, pattern, order).groups) {
        Match m;
        m.pattern = pattern.name();
        m.anchor = group.members.front();
        m.nodes = std::move(group.members);
        m.key = std::move(group.key);
        m.benefit = pattern.benefit();
        found.push_back(std::move(m));
    }
    return found;
}

void GreedyDriver::sortMatches(const Graph &graph, std::vector<Match> &matches) const
{
    std::unordered_map<std::string, size_t> patternIndex;
    size_t i = 0;
    for (const Pattern *p : m_patterns.all())
        patternIndex[p->name()] = i++;
    const std::vector<uint32_t> pos = positions(graph);
    // Sort keys computed once per match, not per comparison.
    struct Keyed {
        int benefit;
        size_t pattern;
        uint32_t position;
        size_t index;
    };
    std::vector<Keyed> keys;
    keys.reserve(matches.size());
    for (size_t k = 0; k < matches.size(); ++k)
        keys.push_back({matches[k].benefit, patternIndex[matches[k].pattern], pos[matches[k].anchor.value], k});
    std::sort(keys.begin(), keys.end(), [](const Keyed &a, const Keyed &b) {
        if (a.benefit != b.benefit)
            return a.benefit > b.benefit;
        if (a.pattern != b.pattern)
            return a.pattern < b.pattern;
        if (a.position != b.position)
            return a.position < b.position;
        return a.index < b.index;
    });
    std::vector<Match> sorted;
    sorted.reserve(matches.size());
    for (const Keyed &k : keys)
        sorted.push_back(std::move(matches[k.index]));
    matches = std::move(sorted);
}

std::vector<Match> GreedyDriver::findMatches(const Graph &graph) const
{
    std::vector<Match> matches;
    std::vector<NodeId> order; // shared by the horizontal searches, computed when first needed
    for (const Pattern *p : m_patterns.enabled()) {
        if (!p->unavailableReason().empty())
            continue;
        if (p->family() == PatternFamily::Horizontal && order.empty())
            order = topologicalOrder(graph);
        std::vector<Match> found = p->family() == PatternFamily::Vertical
                                       ? verticalMatches(graph, static_cast<const VerticalPattern &>(*p))
                                       : horizontalMatches(graph, static_cast<const HorizontalPattern &>(*p), order);
        for (Match &m : found) {
            m.pattern = p->name();
            m.benefit = p->benefit();
            matches.push_back(std::move(m));
        }
    }
    sortMatches(graph, matches);
    return matches;
}

bool GreedyDriver::apply(Graph &graph, const Match &match, EditLog *log) const
{
    const Pattern *p = m_patterns.find(match.pattern);
    if (!p)
        return false;
    for (NodeId id : match.nodes)
        if (!graph.contains(id))
            return false;
    EditLog local;
    EditLog &edits = log ? *log : local;
    edits.beginGroup(match.pattern + "@" + graph.node(match.anchor)->name);
    PatternRewriter rewriter(graph, &edits);
    rewriter.setCreatedBy(match.pattern + "@" + graph.node(match.anchor)->name);
    if (p->family() == PatternFamily::Vertical) {
        MatchTrace trace;
        auto fresh = static_cast<const VerticalPattern &>(*p).match(graph, match.anchor, trace);
        if (!fresh) {
            edits.endGroup();
            return false;
        }
        static_cast<const VerticalPattern &>(*p).rewrite(rewriter, *fresh);
    } else {
        static_cast<const HorizontalPattern &>(*p).fuse(rewriter, match.nodes);
    }
    rewriter.restoreTopologicalOrder();
    edits.endGroup();
    return true;
}

DriverResult GreedyDriver::run(Graph &graph, EditLog *log, DriverListener *listener) const
{
    DriverResult result;
    result.nodesBefore = graph.size();
    EditLog local;
    EditLog &edits = log ? *log : local;
    std::map<std::string, size_t> labelCounts;
    // Matches already rejected or failed: reported once, never retried.
    std::set<std::string> rejectedSeen, blocked;

    for (int round = 1; round <= m_options.maxRounds; ++round) {
        result.rounds = round;
        std::vector<Match> matches = findMatches(graph);
        TouchTracker tracker;
        size_t applied = 0;

        for (Match &candidate : matches) {
            const Pattern *p = m_patterns.find(candidate.pattern);
            bool stale = false;
            for (NodeId id : candidate.nodes)
                if (tracker.isTouched(id) || !graph.contains(id))
                    stale = true;
            if (stale) {
                // A vertical match is re-tried at its anchor; a horizontal group
                // waits for the next round's search.
                if (p->family() != PatternFamily::Vertical || tracker.isTouched(candidate.anchor)
                    || !graph.contains(candidate.anchor))
                    continue;
                MatchTrace trace;
                auto fresh = static_cast<const VerticalPattern &>(*p).match(graph, candidate.anchor, trace);
                if (!fresh)
                    continue;
                fresh->pattern = candidate.pattern;
                fresh->benefit = candidate.benefit;
                candidate = std::move(*fresh);
            }

            PatternCounters &counters = result.counters[candidate.pattern];
            const bool rejected = m_options.isRejected && m_options.isRejected(graph, candidate);
            std::string signature;
            if (rejected || m_options.verifyRewrite) {
                signature = matchSignature(graph, candidate) + "@" + graph.node(candidate.anchor)->name;
                if (blocked.count(signature) || (rejected && rejectedSeen.count(signature)))
                    continue;
            }
            ++counters.matched;
            if (listener)
                listener->matchFound(graph, candidate);
            if (rejected) {
                rejectedSeen.insert(signature);
                ++counters.rejected;
                if (listener)
                    listener->matchRejected(graph, candidate);
                continue;
            }

            const std::string anchorName = graph.node(candidate.anchor)->name;
            const std::string label = candidate.pattern + "#" + std::to_string(++labelCounts[candidate.pattern]);
            const size_t insertedBefore = tracker.inserted, erasedBefore = tracker.erased;
            edits.beginGroup(label);
            PatternRewriter rewriter(graph, &edits, &tracker);
            rewriter.setCreatedBy(label);
            if (p->family() == PatternFamily::Vertical)
                static_cast<const VerticalPattern &>(*p).rewrite(rewriter, candidate);
            else
                static_cast<const HorizontalPattern &>(*p).fuse(rewriter, candidate.nodes);
            for (NodeId id : candidate.nodes)
                tracker.mark(id);
            if (m_options.verifyRewrite)
                rewriter.restoreTopologicalOrder(); // the verifier executes the graph
            edits.endGroup();

            if (m_options.verifyRewrite) {
                if (auto failure = m_options.verifyRewrite(graph)) {
                    edits.undo(graph);
                    blocked.insert(signature);
                    ++counters.failedVerification;
                    if (listener)
                        listener->rewriteUndone(graph, candidate, *failure);
                    continue;
                }
            }
            ++counters.applied;
            ++applied;
            result.rewrites.push_back({label, candidate.pattern, anchorName,
                                       tracker.erased - erasedBefore, tracker.inserted - insertedBefore});
            result.nodesRemoved += tracker.erased - erasedBefore;
            result.nodesAdded += tracker.inserted - insertedBefore;
            if (listener)
                listener->rewriteApplied(graph, candidate, edits.groups()[edits.appliedCount() - 1]);
        }

        edits.beginGroup("restore topological order");
        PatternRewriter rewriter(graph, &edits);
        const bool acyclic = rewriter.restoreTopologicalOrder();
        edits.endGroup();
        if (!acyclic) {
            result.message = "a rewrite in round " + std::to_string(round) + " created a cycle";
            break;
        }
        if (applied == 0) {
            result.converged = true;
            break;
        }
    }
    if (!result.converged && result.message.empty())
        result.message = "still rewriting after " + std::to_string(m_options.maxRounds)
                         + " rounds (raise the round limit, or a pattern keeps undoing another)";
    result.nodesAfter = graph.size();
    return result;
}

std::string matchSignature(const Graph &graph, const Match &match)
{
    // FNV-1a over the covered nodes' ops, shapes and internal edges, in match order.
    uint64_t hash = 1469598103934665603ull;
    auto mix = [&hash](const std::string &text) {
        for (unsigned char c : text) {
            hash ^= c;
            hash *= 1099511628211ull;
        }
        hash ^= 0xff;
        hash *= 1099511628211ull;
    };
    std::unordered_map<NodeId, size_t> index;
    for (size_t i = 0; i < match.nodes.size(); ++i)
        index[match.nodes[i]] = i;
    std::string anchorOp, anchorScope;
    for (NodeId id : match.nodes) {
        const Node *n = graph.node(id);
        if (!n)
            continue;
        mix(n->op);
        mix(n->meta.toString());
        for (NodeId in : n->inputNodes()) {
            auto it = index.find(in);
            mix(it == index.end() ? "ext" : std::to_string(it->second));
        }
        if (id == match.anchor) {
            anchorOp = n->op;
            anchorScope = n->provenance.scope;
        }
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return match.pattern + "|" + anchorOp + "|" + anchorScope + "|" + hex;
}

} // namespace fusebox
