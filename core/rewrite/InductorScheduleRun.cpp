#include "InductorScheduleRun.h"

#include "core/ir/Traversal.h"

#include <algorithm>

namespace fusebox {
namespace {

/// Keeps what a driver listener hears during a pass that may yet be taken
/// back, to pass it on once the pass stays.
class DeferredListener final : public DriverListener {
public:
    explicit DeferredListener(const EditLog &edits)
        : m_edits(edits)
    {}

    void matchFound(const Graph &, const Match &m) override { m_events.push_back({Kind::Found, m, 0, {}}); }
    void matchRejected(const Graph &, const Match &m) override { m_events.push_back({Kind::Rejected, m, 0, {}}); }
    void rewriteApplied(const Graph &, const Match &m, const EditGroup &) override
    {
        m_events.push_back({Kind::Applied, m, m_edits.appliedCount() - 1, {}});
    }
    void rewriteUndone(const Graph &, const Match &m, const std::string &reason) override
    {
        m_events.push_back({Kind::Undone, m, 0, reason});
    }

    void replay(const Graph &graph, DriverListener &to) const
    {
        for (const Event &e : m_events) {
            switch (e.kind) {
            case Kind::Found: to.matchFound(graph, e.match); break;
            case Kind::Rejected: to.matchRejected(graph, e.match); break;
            case Kind::Applied: to.rewriteApplied(graph, e.match, m_edits.groups()[e.group]); break;
            case Kind::Undone: to.rewriteUndone(graph, e.match, e.reason); break;
            }
        }
    }

private:
    enum class Kind { Found, Rejected, Applied, Undone };
    struct Event {
        Kind kind;
        Match match;
        size_t group;
        std::string reason;
    };
    const EditLog &m_edits;
    std::vector<Event> m_events;
};

Match groupMatch(const HorizontalPattern &pattern, const FusionGroup &group)
{
    Match m;
    m.pattern = pattern.name();
    m.anchor = group.members.front();
    m.nodes = group.members;
    m.key = group.key;
    m.benefit = pattern.benefit();
    return m;
}

} // namespace

InductorScheduleRun::InductorScheduleRun(Graph &graph, const PatternSet &patterns, const DriverOptions &options,
                                         ScheduleObserver *observer, EditLog *log, DriverListener *listener)
    : m_graph(graph)
    , m_patterns(patterns)
    , m_options(options)
    , m_observer(observer)
    , m_log(log)
    , m_listener(listener)
    , m_edits(log ? *log : m_local)
    , m_applier(graph, patterns, options, &m_edits, listener, m_result)
{
    m_local.setRedoable(false); // kept only to take a pass back
    m_result.nodesBefore = graph.size();
    m_applier.setInductorMetadata(true);
    m_applier.setUndoCycles(false); // horizontal passes are checked whole (horizontalPass)
    if (m_observer)
        m_observer->inductorCounters = &m_result.inductorCounters;
}

InductorScheduleRun::~InductorScheduleRun()
{
    if (m_observer)
        m_observer->inductorCounters = nullptr; // "null otherwise": the counters go with the run
}

DriverResult InductorScheduleRun::run(const std::vector<ScheduledPass> &schedule)
{
    notePassesDroppedForDevices();
    m_schedule = &schedule;
    m_index = 0;
    m_repetition = 0;
    // A schedule runs to its end, not to a fixed point: its end is converged.
    runDriverLoop(
        m_graph, *this, [this] { return stopRequested(); }, m_result);
    return m_result;
}

std::optional<DriverRound> InductorScheduleRun::nextRound()
{
    while (m_index < m_schedule->size() && m_repetition >= (*m_schedule)[m_index].repeat) {
        ++m_index;
        m_repetition = 0;
    }
    if (m_index >= m_schedule->size())
        return std::nullopt;
    if (m_observer)
        m_observer->passStarting(m_graph, *m_schedule, m_index, m_repetition);
    const std::string &name = (*m_schedule)[m_index].pattern;
    return DriverRound{"of " + name, name};
}

size_t InductorScheduleRun::runRound()
{
    const size_t before = m_result.rewrites.size();
    runPass(*m_patterns.find((*m_schedule)[m_index].pattern));
    return m_result.rewrites.size() - before;
}

bool InductorScheduleRun::restoreOrder()
{
    if (!sortTopologically())
        return false;
    // Edits kept only to take a pass back go once it stays.
    if (!m_log)
        m_local.clear();
    return true;
}

void InductorScheduleRun::roundEnded(size_t)
{
    if (m_observer)
        m_observer->passFinished(m_graph, *m_schedule, m_index, m_repetition);
    ++m_repetition;
}

bool InductorScheduleRun::stopRequested() const
{
    return (m_options.shouldStop && m_options.shouldStop()) || (m_observer && m_observer->done());
}

bool InductorScheduleRun::sortTopologically()
{
    m_edits.beginGroup("restore topological order");
    const bool acyclic = PatternRewriter(m_graph, &m_edits)
                             .restoreTopologicalOrder(PatternRewriter::SortStyle::DelayReaders);
    m_edits.endGroup();
    return acyclic;
}

void InductorScheduleRun::notePassesDroppedForDevices()
{
    for (const Pattern *p : m_patterns.enabled())
        if (std::string why = droppedForDevices(*p, m_graph); !why.empty())
            m_result.notes.push_back(std::move(why));
}

void InductorScheduleRun::runPass(const Pattern &pattern)
{
    if (pattern.family() == PatternFamily::Vertical)
        verticalPass(static_cast<const VerticalPattern &>(pattern));
    else
        horizontalPass(static_cast<const HorizontalPattern &>(pattern));
}

void InductorScheduleRun::addCounts(const InductorCounts &counts)
{
    for (const auto &[name, n] : counts.added)
        m_result.inductorCounters[name] += n;
    for (const auto &[name, n] : counts.assigned)
        m_result.inductorCounters[name] = n;
}

void InductorScheduleRun::noteUndecided(const Pattern &pattern, NodeId id)
{
    m_result.undecided.push_back({pattern.name(), id, m_graph.node(id)->name});
}

// A vertical pass is never taken back: it keeps edits only for whoever else
// reads them (the caller's log, verification's undo, the listener).
void InductorScheduleRun::verticalPass(const VerticalPattern &pattern)
{
    const bool needsEdits = m_log || m_options.verifyRewrite || m_listener;
    m_applier.setEdits(needsEdits ? &m_edits : nullptr);
    struct KeepEdits {
        RewriteApplier &applier;
        EditLog &edits;
        ~KeepEdits() { applier.setEdits(&edits); }
    } keepEdits{m_applier, m_edits};
    // Each node is matched on the graph as the earlier rewrites of this pass
    // left it, and rewritten at once.
    std::vector<NodeId> visit = verticalVisitOrder(pattern);
    std::optional<Match> match;
    InductorCounts counts;
    size_t nodes = 0;
    auto matchAt = [&](NodeId id) -> const Match * {
        if (!m_graph.contains(id))
            return nullptr;
        if (m_observer) {
            m_observer->visiting(m_graph, pattern, id);
            if (m_observer->done())
                return nullptr;
        }
        MatchTrace trace;
        match = pattern.match(m_graph, id, trace);
        if (!match) {
            if (trace.dependsOnUnknownShape())
                noteUndecided(pattern, id);
            addCounts(pattern.inductorCountsWithoutRewrite(m_graph, id));
            return nullptr;
        }
        match->pattern = pattern.name();
        match->benefit = pattern.benefit();
        nodes = match->nodes.size();
        counts = pattern.inductorCounts(m_graph, *match);
        return &*match;
    };
    auto rewritten = [&](const Match &) {
        // fuse_fx's rules are plain graph transforms in 2.6, not pattern
        // matcher passes: they move no counter.
        if (isFuseFxRule(pattern.name()))
            return;
        addCounts(counts);
        // The pattern matcher's own counts, unless the rule gives them (its
        // 2.6 pattern's nodes are not the rewrite's).
        if (!counts.added.contains("pattern_matcher_count")) {
            ++m_result.inductorCounters["pattern_matcher_count"];
            m_result.inductorCounters["pattern_matcher_nodes"] += nodes;
        }
    };
    TouchTracker tracker;
    applyInOrder(
        visit, matchAt, m_applier, tracker, [this] { return stopRequested(); }, rewritten);
}

std::vector<NodeId> InductorScheduleRun::verticalVisitOrder(const VerticalPattern &pattern) const
{
    std::vector<NodeId> visit;
    for (const std::string &op : pattern.rootOps())
        for (NodeId id : m_graph.nodesWithOp(op))
            visit.push_back(id);
    if (visit.size() > 1) { // (most passes of a schedule find no root at all)
        const std::vector<uint32_t> position = programPositions(m_graph);
        std::sort(visit.begin(), visit.end(), [&](NodeId a, NodeId b) { return position[a.value] > position[b.value]; });
        visit.erase(std::unique(visit.begin(), visit.end()), visit.end());
    }
    return visit;
}

bool InductorScheduleRun::fuseGroup(const HorizontalPattern &pattern, const FusionGroup &group,
                                    std::vector<NodeId> *changed)
{
    for (NodeId id : group.members)
        if (!m_graph.contains(id))
            return false;
    TouchTracker tracker;
    if (!m_applier.apply(groupMatch(pattern, group), tracker))
        return false;
    ++m_result.inductorCounters[pattern.name()];
    if (changed)
        *changed = std::move(tracker.seeds);
    return true;
}

// apply_group_batch_fusion: one stable_topological_sort (the pass before left
// the order sorted), then every group fused the moment the search yields it,
// with no sort in between (fuseHorizontalLive: later roots, keys and
// dependency tests see the fused nodes, as in 2.6). The order is mended once
// after the pass. The search's dependency tests keep fusions from closing a
// cycle; should the mend find one all the same, the pass is taken back and
// its groups, as a search on the graph at the pass's start finds them, are
// fused one at a time, checked. The listener hears the pass once it stays.
void InductorScheduleRun::horizontalPass(const HorizontalPattern &pattern)
{
    noteUnkeyedRoots(pattern);
    const size_t passStart = m_edits.appliedCount();
    const DriverResult saved = m_result;
    const RewriteApplier::Memory memory = m_applier.memory();
    DeferredListener deferred(m_edits);
    m_applier.setListener(m_listener ? &deferred : nullptr);
    fuseHorizontalLive(
        m_graph, pattern,
        [&](const FusionGroup &group, std::vector<NodeId> &changed) { return fuseGroup(pattern, group, &changed); },
        [this] { return stopRequested(); });
    m_applier.setListener(m_listener);
    if (sortTopologically()) {
        if (m_listener)
            deferred.replay(m_graph, *m_listener);
        return;
    }
    while (m_edits.appliedCount() > passStart)
        m_edits.undo(m_graph);
    m_result = saved;
    m_applier.restore(memory);
    horizontalPassChecked(pattern, searchHorizontal(m_graph, pattern, topologicalOrder(m_graph),
                                                    HorizontalSearchMode::GroupsOnly));
}

// The root ops the rule cannot key for an unknown shape, as the pass meets the
// graph (the search keeps no trace of why a node has no key).
void InductorScheduleRun::noteUnkeyedRoots(const HorizontalPattern &pattern)
{
    for (const std::string &op : pattern.rootOps())
        for (NodeId id : m_graph.nodesWithOp(op)) {
            MatchTrace trace;
            if (!pattern.key(m_graph, id, trace) && trace.dependsOnUnknownShape())
                noteUndecided(pattern, id);
        }
}

// The checked way, one group at a time: a group that the fusions before it
// made dependent closes a cycle, and the one apply path's cycle check
// (RewriteApplier) takes it back and reports it undone, never applied.
void InductorScheduleRun::horizontalPassChecked(const HorizontalPattern &pattern, const HorizontalSearchResult &found)
{
    m_applier.setUndoCycles(true);
    for (const FusionGroup &group : found.groups) {
        if (stopRequested())
            break;
        fuseGroup(pattern, group);
    }
    m_applier.setUndoCycles(false);
}

} // namespace fusebox
