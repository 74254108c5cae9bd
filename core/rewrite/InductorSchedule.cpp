#include "InductorSchedule.h"

#include "HorizontalSearch.h"
#include "RewriteApplier.h"

#include "core/ir/GraphSource.h"
#include "core/ir/Traversal.h"

#include <algorithm>
#include <array>
#include <set>

namespace fusebox {
namespace {

/// pre_grad.py's fuse_fx runs these before any configured pass, whatever the
/// config says (2.6 has no config key for them).
constexpr std::array<std::string_view, 4> kFuseFxRules = {"sink_cat_after_pointwise", "linear_permute_fusion",
                                                          "permute_linear_fusion", "permute_matmul_fusion"};

/// Passes 2.6 names but registers no pattern for: their PatternMatcherPass
/// is empty, so Inductor's schedule changes nothing with them.
constexpr std::array<std::string_view, 1> kPassesWithoutPatterns = {"merge_stack_tahn_unbind_pass"};

bool isFuseFxRule(std::string_view name)
{
    return std::find(kFuseFxRules.begin(), kFuseFxRules.end(), name) != kFuseFxRules.end();
}


/// Keeps what a driver listener hears during a pass that may yet be taken
/// back, to pass it on once the pass stays.
class DeferredListener final : public DriverListener {
public:
    explicit DeferredListener(const EditLog &edits) : m_edits(edits) {}

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

} // namespace

bool inductorRegistersNoPattern(std::string_view pass)
{
    return std::find(kPassesWithoutPatterns.begin(), kPassesWithoutPatterns.end(), pass)
           != kPassesWithoutPatterns.end();
}

GraphStage graphStage(const Graph &graph)
{
    auto format = graph.metadata.find("source.format");
    const std::string f = format == graph.metadata.end() ? std::string() : format->second;
    const bool pt2 = f == "fx-text" || f == "fx-graph" || f == "torch.export" || f.starts_with("pt2");
    if (!pt2)
        return GraphStage::Both;
    return isPreGradGraph(graph) ? GraphStage::PreGrad : GraphStage::PostGrad;
}

bool runsOnStage(PassStage pass, GraphStage graph)
{
    return graph == GraphStage::Both || (pass == PassStage::PreGrad) == (graph == GraphStage::PreGrad);
}

std::string_view toString(GraphStage stage)
{
    switch (stage) {
    case GraphStage::PreGrad: return "pre_grad";
    case GraphStage::PostGrad: return "post_grad";
    case GraphStage::Both: break;
    }
    return "pre_grad+post_grad";
}

std::vector<ScheduledPass> inductorSchedule(const PatternSet &patterns, PassStage stage,
                                            const std::vector<std::string> &order)
{
    // The stage's runnable patterns, named ones in the config's order first.
    std::vector<const Pattern *> ordered;
    auto runnable = [&](const Pattern *p) {
        return p && p->stage() == stage && p->unavailableReason().empty() && !inductorRegistersNoPattern(p->name())
               && std::find(ordered.begin(), ordered.end(), p) == ordered.end();
    };
    const std::vector<const Pattern *> enabled = patterns.enabled();
    for (const std::string &name : order) {
        const Pattern *p = patterns.find(name);
        if (runnable(p) && std::find(enabled.begin(), enabled.end(), p) != enabled.end())
            ordered.push_back(p);
    }
    for (const Pattern *p : enabled)
        if (runnable(p))
            ordered.push_back(p);

    std::vector<ScheduledPass> schedule;
    auto add = [&](const Pattern *p, bool honoursCounter) {
        schedule.push_back({p->name(), honoursCounter ? std::max<int64_t>(0, p->options().getInt("counter", 1)) : 1});
    };
    if (stage == PassStage::PreGrad) {
        // fuse_fx runs sink_cat_after_pointwise whatever the config says; the
        // permute fusions only under config.permute_fusion off the CPU, so
        // here only when enabled.
        const Pattern *sink = patterns.find("sink_cat_after_pointwise");
        if (sink && sink->stage() == stage && sink->unavailableReason().empty())
            add(sink, false);
        for (const Pattern *p : ordered)
            if (isFuseFxRule(p->name()) && p != sink)
                add(p, false);
        // pre_grad_passes runs normalization_pass first wherever the config
        // lists it, and once.
        for (const Pattern *p : ordered)
            if (p->name() == "normalization_pass")
                add(p, false);
    }
    for (const Pattern *p : ordered)
        if (p->family() == PatternFamily::Horizontal && !isFuseFxRule(p->name()))
            add(p, false);
    for (const Pattern *p : ordered)
        if (p->family() == PatternFamily::Vertical && !isFuseFxRule(p->name()) && p->name() != "normalization_pass")
            add(p, stage == PassStage::PreGrad);
    return schedule;
}

InductorScheduleDriver::InductorScheduleDriver(const PatternSet &patterns, std::vector<std::string> preGradOrder,
                                               std::vector<std::string> postGradOrder, DriverOptions options)
    : m_patterns(patterns), m_preGradOrder(std::move(preGradOrder)), m_postGradOrder(std::move(postGradOrder)),
      m_options(std::move(options))
{
}

namespace {

/// The device types of the graph's tensor inputs ("cuda" for "cuda:0"); a
/// tensor input without a recorded device adds "".
std::set<std::string> inputDeviceTypes(const Graph &graph)
{
    std::set<std::string> types;
    for (NodeId id : graph.inputs()) {
        const Node &n = *graph.node(id);
        if (n.type == "Tensor")
            types.insert(n.meta.device.substr(0, n.meta.device.find(':')));
    }
    return types;
}

std::string listed(const std::vector<std::string> &items)
{
    std::string s;
    for (const std::string &i : items)
        s += (s.empty() ? "" : ", ") + i;
    return "[" + s + "]";
}

} // namespace

std::string droppedForDevices(const Pattern &pattern, const Graph &graph)
{
    const auto &wanted = pattern.requiredDevices();
    if (wanted.empty())
        return {};
    const std::set<std::string> have = inputDeviceTypes(graph);
    for (const std::string &d : wanted)
        if (have.count(d))
            return {};
    std::string seen;
    for (const std::string &d : have)
        if (!d.empty())
            seen += (seen.empty() ? "" : ", ") + d;
    if (seen.empty() || have.count(""))
        return pattern.name() + " kept: its devices are " + listed(wanted) + " and the graph's inputs record "
               + (seen.empty() ? "no device" : "no device for some (others: " + seen + ")")
               + ", so Fusebox cannot tell whether Inductor drops it";
    return pattern.name() + " dropped: its devices are " + listed(wanted) + " and no input of the graph is on one ("
           + seen + "), as Inductor drops it (_resolve_pre_grad_fusion_options)";
}

std::vector<ScheduledPass> InductorScheduleDriver::schedule(GraphStage stage, const Graph *graph) const
{
    std::vector<PassStage> stages;
    if (stage != GraphStage::PostGrad)
        stages.push_back(PassStage::PreGrad);
    if (stage != GraphStage::PreGrad)
        stages.push_back(PassStage::PostGrad);
    std::vector<ScheduledPass> schedule;
    auto anyStage = [&](const std::string &name) {
        return std::find(m_anyStage.begin(), m_anyStage.end(), name) != m_anyStage.end();
    };
    auto dropped = [&](const std::string &name) {
        const Pattern *p = m_patterns.find(name);
        return graph && p && droppedForDevices(*p, *graph).find(" dropped: ") != std::string::npos;
    };
    for (PassStage s : stages)
        for (ScheduledPass &pass :
             inductorSchedule(m_patterns, s, s == PassStage::PreGrad ? m_preGradOrder : m_postGradOrder))
            if (!anyStage(pass.pattern) && !dropped(pass.pattern))
                schedule.push_back(std::move(pass));
    const std::vector<const Pattern *> enabled = m_patterns.enabled();
    for (const std::string &name : m_anyStage) {
        const Pattern *p = m_patterns.find(name);
        if (p && p->unavailableReason().empty() && std::find(enabled.begin(), enabled.end(), p) != enabled.end())
            schedule.push_back({name, 1});
    }
    return schedule;
}

DriverResult InductorScheduleDriver::run(Graph &graph, EditLog *log, DriverListener *listener) const
{
    return run(graph, graphStage(graph), log, listener);
}

DriverResult InductorScheduleDriver::run(Graph &graph, GraphStage stage, EditLog *log, DriverListener *listener) const
{
    DriverResult result;
    result.nodesBefore = graph.size();
    // A horizontal group that earlier fusions made dependent is taken back,
    // which needs the edits even when the caller keeps none.
    EditLog local;
    local.setRedoable(false); // kept only to take a pass back
    EditLog &edits = log ? *log : local;
    RewriteApplier applier(graph, m_patterns, m_options, &edits, listener, result);
    applier.setInductorMetadata(true);
    applier.setUndoCycles(false); // horizontal passes are checked whole (horizontalPass)
    auto stopRequested = [this] {
        return (m_options.shouldStop && m_options.shouldStop()) || (m_observer && m_observer->done());
    };
    auto restoreOrder = [&] {
        edits.beginGroup("restore topological order");
        const bool acyclic =
            PatternRewriter(graph, &edits).restoreTopologicalOrder(PatternRewriter::SortStyle::DelayReaders);
        edits.endGroup();
        return acyclic;
    };

    auto noteUndecided = [&](const Pattern &pattern, NodeId id) {
        result.undecided.push_back({pattern.name(), id, graph.node(id)->name});
    };

    auto addCounts = [&](const InductorCounts &counts) {
        for (const auto &[name, n] : counts.added)
            result.inductorCounters[name] += n;
        for (const auto &[name, n] : counts.assigned)
            result.inductorCounters[name] = n;
    };

    // A vertical pass is never taken back: it keeps edits only for whoever
    // else reads them (the caller's log, verification's undo, the listener).
    const bool verticalNeedsEdits = log || m_options.verifyRewrite || listener;
    auto verticalPass = [&](const VerticalPattern &pattern) {
        applier.setEdits(verticalNeedsEdits ? &edits : nullptr);
        struct KeepEdits {
            RewriteApplier &applier;
            EditLog &edits;
            ~KeepEdits() { applier.setEdits(&edits); }
        } keepEdits{applier, edits};
        // The nodes that exist now, last to first; each is matched on the
        // graph as the earlier rewrites of this pass left it.
        std::vector<NodeId> visit;
        for (const std::string &op : pattern.rootOps())
            for (NodeId id : graph.nodesWithOp(op))
                visit.push_back(id);
        if (visit.size() > 1) { // (most passes of a schedule find no root at all)
            const std::vector<uint32_t> position = programPositions(graph);
            std::sort(visit.begin(), visit.end(),
                      [&](NodeId a, NodeId b) { return position[a.value] > position[b.value]; });
            visit.erase(std::unique(visit.begin(), visit.end()), visit.end());
        }
        for (NodeId id : visit) {
            if (stopRequested())
                return;
            if (!graph.contains(id))
                continue;
            if (m_observer) {
                m_observer->visiting(graph, pattern, id);
                if (m_observer->done())
                    return;
            }
            MatchTrace trace;
            auto match = pattern.match(graph, id, trace);
            if (!match) {
                if (trace.dependsOnUnknownShape())
                    noteUndecided(pattern, id);
                addCounts(pattern.inductorCountsWithoutRewrite(graph, id));
                continue;
            }
            match->pattern = pattern.name();
            match->benefit = pattern.benefit();
            const size_t nodes = match->nodes.size();
            const InductorCounts counts = pattern.inductorCounts(graph, *match);
            TouchTracker tracker;
            // fuse_fx's rules are plain graph transforms in 2.6, not pattern
            // matcher passes: they move no counter.
            if (applier.apply(*match, tracker) && !isFuseFxRule(pattern.name())) {
                addCounts(counts);
                // The pattern matcher's own counts, unless the rule gives
                // them (its 2.6 pattern's nodes are not the rewrite's).
                if (!counts.added.contains("pattern_matcher_count")) {
                    ++result.inductorCounters["pattern_matcher_count"];
                    result.inductorCounters["pattern_matcher_nodes"] += nodes;
                }
            }
        }
    };

    // Fuses one group found by this pass's search; false when it was not
    // applied (a member gone, a reviewer's rejection, failed verification).
    auto groupMatch = [](const HorizontalPattern &pattern, const FusionGroup &group) {
        Match m;
        m.pattern = pattern.name();
        m.anchor = group.members.front();
        m.nodes = group.members;
        m.key = group.key;
        m.benefit = pattern.benefit();
        return m;
    };
    auto fuseGroup = [&](const HorizontalPattern &pattern, const FusionGroup &group,
                         std::vector<NodeId> *changed = nullptr) {
        for (NodeId id : group.members)
            if (!graph.contains(id))
                return false;
        TouchTracker tracker;
        if (!applier.apply(groupMatch(pattern, group), tracker))
            return false;
        ++result.inductorCounters[pattern.name()];
        if (changed)
            *changed = std::move(tracker.seeds);
        return true;
    };

    // The checked way, one group at a time: a group that the fusions before it
    // made dependent is taken back (sorting after each group is what finds it)
    // and reported undone, never applied.
    auto horizontalPassChecked = [&](const HorizontalPattern &pattern, const HorizontalSearchResult &found) {
        for (const FusionGroup &group : found.groups) {
            if (stopRequested())
                return;
            const size_t before = edits.appliedCount();
            const DriverResult saved = result;
            DeferredListener deferred(edits);
            applier.setListener(listener ? &deferred : nullptr);
            const bool fused = fuseGroup(pattern, group);
            applier.setListener(listener);
            if (!fused || restoreOrder()) {
                if (listener)
                    deferred.replay(graph, *listener);
                continue;
            }
            while (edits.appliedCount() > before)
                edits.undo(graph);
            result = saved;
            ++result.counters[pattern.name()].matched;
            if (listener)
                listener->rewriteUndone(graph, groupMatch(pattern, group),
                                        "its members became dependent through an earlier fusion; "
                                        "fusing them would close a cycle");
        }
    };

    // apply_group_batch_fusion: one stable_topological_sort (the pass before
    // left the order sorted), then every group fused the moment the search
    // yields it, with no sort in between (fuseHorizontalLive: later roots,
    // keys and dependency tests see the fused nodes, as in 2.6). The order
    // is mended once after the pass. The search's dependency tests keep
    // fusions from closing a cycle; should the mend find one all the same,
    // the pass is taken back and its groups, as a search on the graph at the
    // pass's start finds them, are fused one at a time, checked. The
    // listener hears the pass once it stays.
    auto horizontalPass = [&](const HorizontalPattern &pattern) {
        // The root ops the rule cannot key for an unknown shape, as the pass
        // meets the graph (the search keeps no trace of why a node has no key).
        for (const std::string &op : pattern.rootOps())
            for (NodeId id : graph.nodesWithOp(op)) {
                MatchTrace trace;
                if (!pattern.key(graph, id, trace) && trace.dependsOnUnknownShape())
                    noteUndecided(pattern, id);
            }
        const size_t passStart = edits.appliedCount();
        const DriverResult saved = result;
        const RewriteApplier::Memory memory = applier.memory();
        DeferredListener deferred(edits);
        applier.setListener(listener ? &deferred : nullptr);
        fuseHorizontalLive(
            graph, pattern,
            [&](const FusionGroup &group, std::vector<NodeId> &changed) { return fuseGroup(pattern, group, &changed); },
            stopRequested);
        applier.setListener(listener);
        if (restoreOrder()) {
            if (listener)
                deferred.replay(graph, *listener);
            return;
        }
        while (edits.appliedCount() > passStart)
            edits.undo(graph);
        result = saved;
        applier.restore(memory);
        horizontalPassChecked(pattern, searchHorizontal(graph, pattern, topologicalOrder(graph),
                                                         HorizontalSearchMode::GroupsOnly));
    };

    const std::vector<ScheduledPass> schedule = this->schedule(stage, &graph);
    if (m_observer)
        m_observer->inductorCounters = &result.inductorCounters;
    for (const Pattern *p : m_patterns.enabled())
        if (std::string why = droppedForDevices(*p, graph); !why.empty())
            result.notes.push_back(std::move(why));
    {
        for (size_t index = 0; index < schedule.size(); ++index) {
            const ScheduledPass &pass = schedule[index];
            const Pattern *p = m_patterns.find(pass.pattern);
            for (int64_t k = 0; k < pass.repeat && !stopRequested(); ++k) {
                if (m_observer) {
                    m_observer->passStarting(graph, schedule, index, k);
                    if (m_observer->done())
                        break;
                }
                ++result.rounds;
                if (p->family() == PatternFamily::Vertical)
                    verticalPass(static_cast<const VerticalPattern &>(*p));
                else
                    horizontalPass(static_cast<const HorizontalPattern &>(*p));
                if (!restoreOrder()) {
                    result.message = "a rewrite of " + pass.pattern + " created a cycle";
                    result.nodesAfter = graph.size();
                    return result;
                }
                // Edits kept only to take a pass back go once it stays.
                if (!log)
                    local.clear();
                if (m_observer)
                    m_observer->passFinished(graph, schedule, index, k);
            }
            if (stopRequested()) {
                result.message = "stopped on request after " + pass.pattern;
                result.nodesAfter = graph.size();
                return result;
            }
        }
    }
    result.converged = true; // a schedule runs to its end, not to a fixed point
    result.nodesAfter = graph.size();
    return result;
}

} // namespace fusebox
