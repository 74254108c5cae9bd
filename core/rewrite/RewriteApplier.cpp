#include "RewriteApplier.h"

#include <absl/container/flat_hash_set.h>

namespace fusebox {

struct TouchTracker::Marks {
    absl::flat_hash_set<uint32_t> ids;
    /// Inserted by the current rewrite (beginRewrite()).
    absl::flat_hash_set<uint32_t> insertedNow;
};

void TouchTracker::beginRewrite() { m_marks->insertedNow.clear(); }

TouchTracker::TouchTracker() : m_marks(std::make_unique<Marks>()) {}
TouchTracker::~TouchTracker() = default;

void TouchTracker::mark(NodeId id)
{
    if (m_marks->ids.insert(id.value).second)
        seeds.push_back(id);
}

bool TouchTracker::isTouched(NodeId id) const { return m_marks->ids.contains(id.value); }

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

RewriteApplier::RewriteApplier(Graph &graph, const PatternSet &patterns, const DriverOptions &options,
                               EditLog *edits, DriverListener *listener, DriverResult &result)
    : m_graph(graph), m_patterns(patterns), m_options(options), m_edits(edits), m_listener(listener),
      m_result(result)
{
}

bool RewriteApplier::apply(const Match &candidate, TouchTracker &tracker)
{
    const Pattern *p = m_patterns.find(candidate.pattern);
    if (!p)
        return false;
    PatternCounters &counters = m_result.counters[candidate.pattern];
    const bool rejected = m_options.isRejected && m_options.isRejected(m_graph, candidate);
    std::string signature;
    if (rejected || m_options.verifyRewrite) {
        signature = matchSignature(m_graph, candidate) + "@" + m_graph.node(candidate.anchor)->name;
        if (m_blocked.count(signature) || (rejected && m_rejectedSeen.count(signature)))
            return false;
    }
    ++counters.matched;
    if (m_listener)
        m_listener->matchFound(m_graph, candidate);
    if (rejected) {
        m_rejectedSeen.insert(signature);
        ++counters.rejected;
        if (m_listener)
            m_listener->matchRejected(m_graph, candidate);
        return false;
    }

    const std::string anchorName = m_graph.node(candidate.anchor)->name;
    const std::string label = candidate.pattern + "#" + std::to_string(++m_labelCounts[candidate.pattern]);
    tracker.beginRewrite();
    const size_t insertedBefore = tracker.inserted, erasedBefore = tracker.erased;
    if (m_edits)
        m_edits->beginGroup(label);
    PatternRewriter rewriter(m_graph, m_edits, &tracker);
    rewriter.setCreatedBy(label);
    rewriter.setInductorMetadata(m_inductorMetadata);
    if (p->family() == PatternFamily::Vertical)
        static_cast<const VerticalPattern &>(*p).rewrite(rewriter, candidate);
    else
        static_cast<const HorizontalPattern &>(*p).fuse(rewriter, candidate.nodes);
    for (NodeId id : candidate.nodes)
        tracker.mark(id);
    if (m_options.verifyRewrite)
        rewriter.restoreTopologicalOrder(); // the verifier executes the graph
    if (m_edits)
        m_edits->endGroup();

    if (m_options.verifyRewrite) {
        if (auto failure = m_options.verifyRewrite(m_graph)) {
            m_edits->undo(m_graph);
            m_blocked.insert(signature);
            ++counters.failedVerification;
            if (m_listener)
                m_listener->rewriteUndone(m_graph, candidate, *failure);
            return false;
        }
    }
    ++counters.applied;
    m_result.rewrites.push_back({label, candidate.pattern, anchorName, tracker.erased - erasedBefore,
                                 tracker.inserted - insertedBefore});
    m_result.nodesRemoved += tracker.erased - erasedBefore;
    m_result.nodesAdded += tracker.inserted - insertedBefore;
    if (m_listener)
        m_listener->rewriteApplied(m_graph, candidate, m_edits->groups()[m_edits->appliedCount() - 1]);
    return true;
}

} // namespace fusebox
