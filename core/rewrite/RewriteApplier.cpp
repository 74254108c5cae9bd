#include "RewriteApplier.h"

#include "MatchTrace.h"
#include "RewriteContract.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <absl/container/flat_hash_set.h>

namespace fusebox {

struct TouchTracker::Marks {
    absl::flat_hash_set<uint32_t> ids;
    /// Inserted by the current rewrite (beginRewrite()).
    absl::flat_hash_set<uint32_t> insertedNow;
};

void TouchTracker::beginRewrite()
{
    m_marks->insertedNow.clear();
}

TouchTracker::TouchTracker()
    : m_marks(std::make_unique<Marks>())
{}
TouchTracker::~TouchTracker() = default;

void TouchTracker::mark(NodeId id)
{
    if (m_marks->ids.insert(id.value).second)
        seeds.push_back(id);
}

bool TouchTracker::isTouched(NodeId id) const
{
    return m_marks->ids.contains(id.value);
}

void TouchTracker::nodeInserted(const Graph &, NodeId id)
{
    mark(id);
    ++inserted;
    m_marks->insertedNow.insert(id.value);
}

void TouchTracker::nodeErasing(const Graph &graph, NodeId id)
{
    mark(id);
    if (m_marks->insertedNow.erase(id.value))
        --inserted; // this rewrite's temporary: neither added nor removed
    else
        ++erased;
    // Its inputs lose a user: patterns that count users may now match there.
    graph.forEachInput(id, [&](NodeId in) { seed(in); });
}

void TouchTracker::nodeModifying(const Graph &graph, NodeId id)
{
    graph.forEachInput(id, [&](NodeId in) { seed(in); });
}

RewriteApplier::RewriteApplier(Graph &graph, const PatternSet &patterns, const DriverOptions &options, EditLog *edits,
                               DriverListener *listener, DriverResult &result)
    : m_graph(graph)
    , m_patterns(patterns)
    , m_options(options)
    , m_edits(edits)
    , m_listener(listener)
    , m_result(result)
{}

LogicalResult rewriteMatch(const Pattern &pattern, PatternRewriter &rewriter, const Match &match)
{
    if (pattern.family() == PatternFamily::Vertical)
        return static_cast<const VerticalPattern &>(pattern).rewrite(rewriter, match);
    return static_cast<const HorizontalPattern &>(pattern).fuse(rewriter, match.nodes);
}

bool RewriteApplier::insertedNodesCloseCycle(const EditGroup &group)
{
    // Before the rewrite the graph had no cycle, and the rewrite changed only
    // the edges into the nodes it inserted and into the readers it moved onto
    // them. So a new cycle runs through an inserted node, and leaves the
    // inserted nodes through an input they read from outside: it exists
    // exactly when walking up from those inputs reaches an inserted node.
    // The walk covers the fused group's ancestry only, not the whole graph
    // (hasCycle()), which on a 100k-node graph fused many times made the
    // check the run's cost.
    absl::flat_hash_set<uint32_t> inserted;
    for (const Edit &e : group.edits)
        if (e.kind == Edit::Kind::Insert && m_graph.contains(e.node))
            inserted.insert(e.node.value);
    if (m_seen.size() < m_graph.idBound())
        m_seen.resize(m_graph.idBound(), 0);
    if (++m_walk == 0) { // the stamp wrapped: forget every old one
        std::fill(m_seen.begin(), m_seen.end(), 0);
        m_walk = 1;
    }
    std::vector<NodeId> stack;
    bool reached = false;
    auto visit = [&](NodeId in) {
        if (inserted.contains(in.value))
            reached = true;
        else if (m_seen[in.value] != m_walk) {
            m_seen[in.value] = m_walk;
            stack.push_back(in);
        }
    };
    for (uint32_t id : inserted)
        m_graph.forEachInput(NodeId{id}, [&](NodeId in) {
            if (!inserted.contains(in.value) && m_seen[in.value] != m_walk) {
                m_seen[in.value] = m_walk;
                stack.push_back(in);
            }
        });
    while (!stack.empty() && !reached) {
        const NodeId n = stack.back();
        stack.pop_back();
        m_graph.forEachInput(n, visit);
    }
    return reached;
}

bool RewriteApplier::admit(Attempt &a)
{
    const Match &candidate = a.candidate;
    const bool rejected = m_options.isRejected && m_options.isRejected(m_graph, candidate);
    if (rejected || m_options.verifyRewrite) {
        a.signature = matchSignature(m_graph, candidate) + "@" + m_graph.node(candidate.anchor)->name;
        if (m_blocked.count(a.signature) || (rejected && m_rejectedSeen.count(a.signature)))
            return false;
    }
    ++a.counters.matched;
    if (m_listener)
        m_listener->matchFound(m_graph, candidate);
    if (!rejected)
        return true;
    m_rejectedSeen.insert(a.signature);
    ++a.counters.rejected;
    if (m_listener)
        m_listener->matchRejected(m_graph, candidate);
    return false;
}

bool RewriteApplier::apply(const Match &candidate, TouchTracker &tracker)
{
    const Pattern *p = m_patterns.find(candidate.pattern);
    if (!p)
        return false;
    Attempt a{candidate, m_result.counters[candidate.pattern]};
    if (!admit(a))
        return false;
    a.anchorName = m_graph.node(candidate.anchor)->name;
    a.label = m_anchorLabels ? candidate.pattern + "@" + a.anchorName
                             : candidate.pattern + "#" + std::to_string(m_labelCounts[candidate.pattern] + 1);
    tracker.beginRewrite();
    a.insertedBefore = tracker.inserted;
    a.erasedBefore = tracker.erased;
    // A horizontal fusion is checked for a cycle after it (unless the driver
    // checks the order itself), so it keeps its edits to take itself back
    // even when nobody else needs them.
    const bool horizontal = m_undoCycles && p->family() == PatternFamily::Horizontal;
    EditLog *edits = m_edits ? m_edits : horizontal ? &m_scratch : nullptr;
    if (edits == &m_scratch) {
        m_scratch.clear();
        m_scratch.setRedoable(false);
    }
    const size_t appliedBefore = edits ? edits->appliedCount() : 0;
    if (edits)
        edits->beginGroup(a.label);
    PatternRewriter rewriter(m_graph, edits, &tracker);
    rewriter.setCreatedBy(a.label);
    rewriter.setInductorMetadata(m_inductorMetadata);
    const LogicalResult rewritten = rewriteMatch(*p, rewriter, candidate);
    bool closedCycle = succeeded(rewritten) && horizontal && insertedNodesCloseCycle(edits->groups().back());
    if (succeeded(rewritten) && !closedCycle) {
        for (NodeId id : candidate.nodes)
            tracker.mark(id);
        // The verifier executes the graph; a single apply leaves it in order.
        // No order means a cycle: a rewrite that made one is taken back.
        if ((m_options.verifyRewrite || m_restoreOrder) && !rewriter.restoreTopologicalOrder() && edits)
            closedCycle = true;
    }
    if (edits)
        edits->endGroup();
    // The contract: a success changed the graph (endGroup() dropped an empty group).
    if (succeeded(rewritten) && edits && edits->appliedCount() == appliedBefore && rewriteContractChecks()) {
        std::fprintf(stderr, "fusebox: rewrite contract broken: %s reported success at %%%s but changed nothing\n",
                     candidate.pattern.c_str(), a.anchorName.c_str());
        std::abort();
    }
    if (failed(rewritten)) {
        // The match no longer held: nothing changed and nothing is counted.
        // (A pattern that edited and then failed broke its contract: its edits
        // are taken back, so that the graph is as it was.)
        if (edits && edits->appliedCount() > appliedBefore)
            edits->undo(m_graph);
        return false;
    }
    ++m_labelCounts[candidate.pattern];
    if (closedCycle) {
        // The search found the group independent; an earlier rewrite of the
        // round made one member depend on another, and the fusion closed the
        // loop. Take it back, as GreedyDriver::apply() does.
        edits->undo(m_graph);
        ++a.counters.closedCycle;
        if (m_listener)
            m_listener->rewriteUndone(m_graph, candidate,
                                      "fusing the group would close a cycle: an earlier rewrite made a member "
                                      "depend on another");
        return false;
    }
    return verifyAndRecord(a, tracker);
}

bool RewriteApplier::verifyAndRecord(const Attempt &a, const TouchTracker &tracker)
{
    if (m_options.verifyRewrite) {
        if (auto failure = m_options.verifyRewrite(m_graph)) {
            m_edits->undo(m_graph);
            m_blocked.insert(a.signature);
            ++a.counters.failedVerification;
            if (m_listener)
                m_listener->rewriteUndone(m_graph, a.candidate, *failure);
            return false;
        }
    }
    ++a.counters.applied;
    const size_t erased = tracker.erased - a.erasedBefore, inserted = tracker.inserted - a.insertedBefore;
    m_result.rewrites.push_back({a.label, a.candidate.pattern, a.anchorName, erased, inserted});
    m_result.nodesRemoved += erased;
    m_result.nodesAdded += inserted;
    if (m_listener)
        m_listener->rewriteApplied(m_graph, a.candidate, m_edits->groups()[m_edits->appliedCount() - 1]);
    return true;
}

namespace {

/// Hears why applyOneMatch's rewrite was undone.
class UndoneReason final : public DriverListener {
public:
    std::string why;
    void rewriteUndone(const Graph &, const Match &, const std::string &reason) override { why = reason; }
};

} // namespace

ApplyOutcome applyOneMatch(Graph &graph, const PatternSet &patterns, const Match &match, EditLog &edits,
                           const DriverOptions &options)
{
    ApplyOutcome outcome; // Stale until shown otherwise
    const Pattern *p = patterns.find(match.pattern);
    if (!p || !graph.contains(match.anchor))
        return outcome;
    for (NodeId id : match.nodes)
        if (!graph.contains(id))
            return outcome;
    Match fresh = match;
    if (p->family() == PatternFamily::Vertical) {
        MatchTrace trace;
        auto again = static_cast<const VerticalPattern &>(*p).match(graph, match.anchor, trace);
        if (!again)
            return outcome;
        fresh = std::move(*again);
        fresh.pattern = match.pattern;
        fresh.benefit = match.benefit;
    }
    DriverResult result;
    UndoneReason undone;
    RewriteApplier applier(graph, patterns, options, &edits, &undone, result);
    applier.setAnchorLabels(true);
    applier.setRestoreOrder(true);
    TouchTracker tracker;
    if (applier.apply(fresh, tracker)) {
        outcome.kind = ApplyOutcome::Kind::Applied;
        outcome.nodesRemoved = result.rewrites.back().nodesRemoved;
        outcome.nodesAdded = result.rewrites.back().nodesAdded;
        return outcome;
    }
    const PatternCounters &counters = result.counters[match.pattern];
    if (counters.rejected) {
        outcome.kind = ApplyOutcome::Kind::Rejected;
    } else if (counters.failedVerification) {
        outcome.kind = ApplyOutcome::Kind::FailedVerification;
        outcome.message = undone.why;
    } else if (counters.closedCycle) {
        outcome.kind = ApplyOutcome::Kind::ClosedCycle;
        outcome.message = undone.why;
    }
    return outcome;
}

} // namespace fusebox
