#include "GreedyDriver.h"

#include "DriverLoop.h"
#include "HorizontalSearch.h"
#include "MatchUtils.h"
#include "RewriteApplier.h"

#include "core/ir/ParallelFor.h"
#include "core/ir/Traversal.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <memory>
#include <set>
#include <cstdio>
#include <unordered_map>

namespace fusebox {
namespace {

/// Nodes within `radius` undirected hops of a live seed (program neighbours
/// through args and the users index).
std::vector<char> neighbourhoodOf(const Graph &graph, const std::vector<NodeId> &seeds, int radius)
{
    std::vector<char> in(graph.idBound(), 0);
    std::vector<NodeId> frontier, next;
    for (NodeId id : seeds)
        if (graph.contains(id) && !in[id.value]) {
            in[id.value] = 1;
            frontier.push_back(id);
        }
    for (int hop = 0; hop < radius && !frontier.empty(); ++hop) {
        next.clear();
        auto visit = [&](NodeId n) {
            if (graph.contains(n) && !in[n.value]) {
                in[n.value] = 1;
                next.push_back(n);
            }
        };
        for (NodeId id : frontier) {
            graph.forEachInput(id, visit);
            graph.forEachUse(id, visit);
        }
        std::swap(frontier, next);
    }
    return in;
}

/// `region` grown downstream (along users) by `depth` hops: the roots whose
/// depth-bounded upward search can reach a region node.
void extendDownstream(const Graph &graph, std::vector<char> &region, int64_t depth)
{
    std::vector<NodeId> frontier;
    for (uint32_t i = 0; i < region.size(); ++i)
        if (region[i])
            frontier.push_back(NodeId{i});
    std::vector<NodeId> next;
    for (int64_t hop = 0; hop < depth && !frontier.empty(); ++hop) {
        next.clear();
        for (NodeId id : frontier)
            graph.forEachUse(id, [&](NodeId user) {
                if (!region[user.value]) {
                    region[user.value] = 1;
                    next.push_back(user);
                }
            });
        std::swap(frontier, next);
    }
}

} // namespace

GreedyDriver::GreedyDriver(const PatternSet &patterns, DriverOptions options)
    : m_patterns(patterns)
    , m_options(std::move(options))
{
    size_t i = 0;
    for (const Pattern *p : m_patterns.all())
        m_patternIndex.emplace(p->name(), i++);
}

size_t GreedyDriver::patternIndex(const std::string &name) const
{
    auto it = m_patternIndex.find(name);
    return it == m_patternIndex.end() ? m_patternIndex.size() : it->second;
}

std::vector<Match> GreedyDriver::verticalMatches(const Graph &graph, const VerticalPattern &pattern,
                                                 const std::vector<char> *region) const
{
    // Only the nodes carrying a root op are visited (the graph's op index);
    // sortMatches puts the matches in program order afterwards.
    std::vector<Match> found;
    size_t roots = 0;
    for (const std::string &op : pattern.rootOps())
        roots += graph.nodesWithOp(op).size();
    found.reserve(roots);
    for (const std::string &op : pattern.rootOps())
        for (NodeId id : graph.nodesWithOp(op)) {
            if (region && !(*region)[id.value])
                continue;
            MatchTrace trace;
            if (auto m = pattern.match(graph, id, trace))
                found.push_back(std::move(*m));
        }
    return found;
}

std::vector<Match> GreedyDriver::horizontalMatches(const Graph &graph, const HorizontalPattern &pattern,
                                                   const std::vector<NodeId> &order, const std::vector<char> *roots,
                                                   HorizontalKeyMemo *memo) const
{
    std::vector<Match> found;
    for (FusionGroup &group :
         searchHorizontal(graph, pattern, order, HorizontalSearchMode::GroupsOnly, roots, memo).groups) {
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
    if (matches.empty())
        return;
    const std::vector<uint32_t> pos = programPositions(graph);
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
        keys.push_back({matches[k].benefit, patternIndex(matches[k].pattern), pos[matches[k].anchor.value], k});
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
    return findMatchesIn(graph, nullptr, nullptr, nullptr);
}

std::vector<Match> GreedyDriver::findMatchesIn(const Graph &graph, const std::vector<char> *anchors,
                                               const std::vector<char> *roots,
                                               std::map<std::string, HorizontalKeyMemo> *memos) const
{
    std::vector<const Pattern *> patterns;
    bool anyHorizontal = false;
    for (const Pattern *p : m_patterns.enabled())
        if (p->unavailableReason().empty()) {
            patterns.push_back(p);
            anyHorizontal = anyHorizontal || p->family() == PatternFamily::Horizontal;
        }
    // Everything the searches share is made before they start: the order of
    // the horizontal searches and each horizontal pattern's key memo (the map
    // must not grow while threads read it).
    const std::vector<NodeId> order = anyHorizontal ? topologicalOrder(graph) : std::vector<NodeId>();
    std::vector<HorizontalKeyMemo *> memoOf(patterns.size(), nullptr);
    if (memos)
        for (size_t i = 0; i < patterns.size(); ++i)
            if (patterns[i]->family() == PatternFamily::Horizontal)
                memoOf[i] = &(*memos)[patterns[i]->name()];

    // Each pattern's search reads the graph only and writes its own slot, so
    // the patterns run in parallel and the merged list does not depend on
    // which thread finished first.
    std::vector<std::vector<Match>> found(patterns.size());
    parallelFor(patterns.size(), m_options.searchThreads, [&](size_t i) {
        const Pattern *p = patterns[i];
        found[i] = p->family() == PatternFamily::Vertical
                       ? verticalMatches(graph, static_cast<const VerticalPattern &>(*p), anchors)
                       : horizontalMatches(graph, static_cast<const HorizontalPattern &>(*p), order, roots, memoOf[i]);
        for (Match &m : found[i]) {
            if (m.pattern != p->name())
                m.pattern = p->name();
            m.benefit = p->benefit();
        }
    });
    size_t total = 0;
    for (const std::vector<Match> &f : found)
        total += f.size();
    std::vector<Match> matches;
    matches.reserve(total);
    for (std::vector<Match> &f : found)
        std::move(f.begin(), f.end(), std::back_inserter(matches));
    sortMatches(graph, matches);
    return matches;
}

bool GreedyDriver::apply(Graph &graph, const Match &match, EditLog *log) const
{
    EditLog local;
    return applyOneMatch(graph, m_patterns, match, log ? *log : local, m_options).kind == ApplyOutcome::Kind::Applied;
}

/// Where a round searches, and what it remembers between rounds: round 1
/// searches everywhere; later rounds first search only around what the
/// previous round changed (MLIR's worklist idea), vertical anchors within
/// kAnchorRadius hops of a change and horizontal roots whose upward search
/// reaches one, and the whole graph only when that finds nothing to apply,
/// so the run still ends at a true fixed point.
struct GreedyDriver::SearchFocus {
    static constexpr int kAnchorRadius = 3;
    bool incremental = false;
    std::vector<char> anchors, roots;
    /// Horizontal keys survive between rounds except near a change.
    std::map<std::string, HorizontalKeyMemo> keyMemos;
    /// The deepest max_fuse_search_depth of the horizontal patterns.
    int64_t searchDepth = 0;

    /// Focuses the next round on the nodes near `seeds`.
    void narrowTo(const Graph &graph, const std::vector<NodeId> &seeds)
    {
        anchors = neighbourhoodOf(graph, seeds, kAnchorRadius);
        for (auto &entry : keyMemos)
            entry.second.invalidate(anchors);
        roots = anchors;
        extendDownstream(graph, roots, searchDepth);
        incremental = true;
    }
};

namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
} // namespace

bool GreedyDriver::stopRequested() const
{
    return m_options.shouldStop && m_options.shouldStop();
}

bool GreedyDriver::stillApplicable(const Graph &graph, Match &candidate, const TouchTracker &tracker) const
{
    bool stale = false;
    for (NodeId id : candidate.nodes)
        stale = stale || tracker.isTouched(id) || !graph.contains(id);
    if (!stale)
        return true;
    // A vertical match is re-tried at its anchor; a horizontal group waits
    // for the next round's search.
    const Pattern *p = m_patterns.find(candidate.pattern);
    if (p->family() != PatternFamily::Vertical || tracker.isTouched(candidate.anchor)
        || !graph.contains(candidate.anchor))
        return false;
    MatchTrace trace;
    auto fresh = static_cast<const VerticalPattern &>(*p).match(graph, candidate.anchor, trace);
    if (!fresh)
        return false;
    fresh->pattern = candidate.pattern;
    fresh->benefit = candidate.benefit;
    candidate = std::move(*fresh);
    return true;
}

size_t GreedyDriver::applyMatches(const Graph &graph, std::vector<Match> &matches, RewriteApplier &applier,
                                  TouchTracker &tracker) const
{
    return applyInOrder(
        matches, [&](Match &candidate) { return stillApplicable(graph, candidate, tracker) ? &candidate : nullptr; },
        applier, tracker, [this] { return stopRequested(); }, [](const Match &) {});
}

RoundStats GreedyDriver::searchAndApply(Graph &graph, RewriteApplier &applier, TouchTracker &tracker,
                                        SearchFocus &focus) const
{
    RoundStats stats;
    auto pass = [&](bool focused) {
        auto t = Clock::now();
        std::vector<Match> matches = focused ? findMatchesIn(graph, &focus.anchors, &focus.roots, &focus.keyMemos)
                                             : findMatchesIn(graph, nullptr, nullptr, &focus.keyMemos);
        stats.searchMs += msSince(t);
        stats.candidates += matches.size();
        t = Clock::now();
        stats.applied += applyMatches(graph, matches, applier, tracker);
        stats.applyMs += msSince(t);
    };
    if (focus.incremental)
        stats.searchedNodes = size_t(std::count(focus.anchors.begin(), focus.anchors.end(), 1));
    pass(focus.incremental);
    if (stats.applied == 0 && focus.incremental) {
        stats.fullSearch = true;
        pass(false);
    }
    return stats;
}

bool GreedyDriver::restoreOrder(Graph &graph, EditLog *edits, RoundStats &stats) const
{
    const auto t = Clock::now();
    if (edits)
        edits->beginGroup("restore topological order");
    PatternRewriter rewriter(graph, edits);
    const bool acyclic = rewriter.restoreTopologicalOrder();
    if (edits)
        edits->endGroup();
    stats.reorderMs = msSince(t);
    return acyclic;
}

/// GreedyDriver's work on the one driver loop: each round searches (around
/// the previous round's changes first) and applies what it finds, best first;
/// the run ends at the round that applies nothing, or at the round limit.
class GreedyDriver::Rounds final : public RoundSource {
public:
    Rounds(const GreedyDriver &driver, Graph &graph, EditLog *edits, RewriteApplier &applier, DriverResult &result)
        : m_driver(driver)
        , m_graph(graph)
        , m_edits(edits)
        , m_applier(applier)
        , m_result(result)
    {
        for (const Pattern *p : driver.m_patterns.enabled())
            if (p->family() == PatternFamily::Horizontal)
                m_focus.searchDepth = std::max(m_focus.searchDepth,
                                               p->options().getInt("max_fuse_search_depth",
                                                                   search_defaults::kMaxFuseSearchDepth));
    }

    std::optional<DriverRound> nextRound() override
    {
        if (m_round >= m_driver.m_options.maxRounds)
            return std::nullopt;
        const std::string n = std::to_string(++m_round);
        m_tracker = std::make_unique<TouchTracker>();
        return DriverRound{"in round " + n, "round " + n};
    }

    size_t runRound() override
    {
        m_stats = m_driver.searchAndApply(m_graph, m_applier, *m_tracker, m_focus);
        return m_stats.applied;
    }

    bool restoreOrder() override
    {
        const bool acyclic = m_driver.restoreOrder(m_graph, m_edits, m_stats);
        m_result.roundStats.push_back(m_stats);
        return acyclic;
    }

    void roundEnded(size_t applied) override
    {
        if (applied)
            m_focus.narrowTo(m_graph, m_tracker->seeds);
    }

    bool fixedPoint(size_t applied) const override { return applied == 0; }

    std::string noRoundLeft() const override
    {
        return "still rewriting after " + std::to_string(m_driver.m_options.maxRounds)
               + " rounds (raise the round limit, or a pattern keeps undoing another)";
    }

private:
    const GreedyDriver &m_driver;
    Graph &m_graph;
    EditLog *m_edits;
    RewriteApplier &m_applier;
    DriverResult &m_result;
    SearchFocus m_focus;
    int m_round = 0;
    /// The current round's touched nodes: the next round's focus.
    std::unique_ptr<TouchTracker> m_tracker;
    RoundStats m_stats;
};

DriverResult GreedyDriver::run(Graph &graph, EditLog *log, DriverListener *listener) const
{
    DriverResult result;
    result.nodesBefore = graph.size();
    // Edits are recorded when someone needs them: the caller's log, an undo
    // after failed verification, or a listener shown each rewrite's group.
    EditLog local;
    EditLog *edits = log ? log : (m_options.verifyRewrite || listener) ? &local : nullptr;
    RewriteApplier applier(graph, m_patterns, m_options, edits, listener, result);
    Rounds rounds(*this, graph, edits, applier, result);
    runDriverLoop(
        graph, rounds, [this] { return stopRequested(); }, result);
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
