#include "InductorExplainer.h"

#include "HorizontalSearch.h"
#include "PatternRewriter.h"
#include "RewriteApplier.h"

#include <algorithm>
#include <map>

namespace fusebox {
namespace {

constexpr std::string_view kPreGradSource = "pre_grad.py:119-312 pre_grad_passes";
constexpr std::string_view kPostGradSource = "post_grad.py:68-170 post_grad_passes";
constexpr std::string_view kStageSource
    = "compile_fx.py: pre_grad_passes on the Dynamo graph, post_grad_passes on the AOT graph";
constexpr std::string_view kSweepSource = "pattern_matcher.py PatternMatcherPass.apply (last node to first)";

/// What the schedule showed of one node.
struct NodeState {
    /// The rule's checks when its pass met the node (empty: never met).
    std::vector<Check> checks;
    bool met = false;
    bool matched = false;
    /// The pass after which the node was gone, before the rule's pass ran.
    std::string removedBy;
    size_t removedAt = 0;
    /// The node that stands for it now: itself, or the node an earlier pass
    /// re-created it as (normalization_pass re-creates splits and cats).
    NodeId current;
    /// The passes that re-created it, and the names it had, in order.
    std::vector<std::string> recreatedBy;
    /// Users of `current` when the pass now running started.
    std::vector<NodeId> usersBefore;
};

/// Follows the schedule up to the end of the explained rule's pass,
/// explaining the rule where the pass meets each node.
class ExplainObserver final : public ScheduleObserver {
public:
    ExplainObserver(const Pattern &pattern, const std::vector<NodeId> &nodes, uint32_t originalIdBound)
        : m_pattern(pattern)
        , m_originalIdBound(originalIdBound)
    {
        for (NodeId id : nodes) {
            NodeState state;
            state.current = id;
            m_states.emplace(id, std::move(state));
            m_byCurrent[id] = id;
        }
    }

    void passStarting(const Graph &graph, const std::vector<ScheduledPass> &schedule, size_t index, int64_t) override
    {
        m_idBoundBefore = graph.idBound();
        for (auto &[id, state] : m_states)
            if (state.removedBy.empty() && graph.contains(state.current))
                state.usersBefore = graph.users(state.current);
        if (schedule[index].pattern != m_pattern.name())
            return;
        m_inPass = true;
        m_passIndex = index;
        if (m_pattern.family() != PatternFamily::Horizontal)
            return;
        const auto &h = static_cast<const HorizontalPattern &>(m_pattern);
        const HorizontalSearchResult search = liveOutcomes(graph, h);
        for (auto &[id, state] : m_states)
            if (state.removedBy.empty() && graph.contains(state.current) && !state.matched)
                record(graph, state, state.current, &search);
    }

    void visiting(const Graph &graph, const VerticalPattern &pattern, NodeId node) override
    {
        if (!m_inPass || &pattern != &m_pattern)
            return;
        auto it = m_byCurrent.find(node);
        if (it == m_byCurrent.end())
            return;
        NodeState &state = m_states.at(it->second);
        if (!state.matched)
            record(graph, state, node, nullptr);
    }

    void passFinished(const Graph &graph, const std::vector<ScheduledPass> &schedule, size_t index,
                      int64_t repetition) override
    {
        if (m_inPass) {
            m_inPass = false;
            m_done = repetition + 1 >= schedule[index].repeat;
            return;
        }
        for (auto &[id, state] : m_states) {
            if (!state.removedBy.empty() || graph.contains(state.current))
                continue;
            const NodeId replacement = recreated(graph, state.usersBefore);
            if (replacement.isValid()) {
                state.recreatedBy.push_back(schedule[index].pattern + " (pass " + std::to_string(index + 1) + ") as "
                                            + nodeRef(graph, replacement));
                state.current = replacement;
                continue;
            }
            state.removedBy = schedule[index].pattern;
            state.removedAt = index;
        }
        m_byCurrent.clear();
        for (const auto &[id, state] : m_states)
            if (state.removedBy.empty())
                m_byCurrent[state.current] = id;
    }

    bool done() const override { return m_done; }

    const std::map<NodeId, NodeState> &states() const { return m_states; }
    bool ranPass() const { return m_passIndex.has_value(); }

private:
    /// A node the pass created in the place of a node it erased: an input,
    /// with one of the rule's root ops, of one of the erased node's users.
    NodeId recreated(const Graph &graph, const std::vector<NodeId> &usersBefore) const
    {
        for (NodeId user : usersBefore) {
            if (!graph.contains(user))
                continue;
            NodeId found;
            graph.forEachInput(user, [&](NodeId input) {
                const Node *n = graph.node(input);
                if (!found.isValid() && input.value >= m_idBoundBefore && n && n->isOp() && m_pattern.isRootOp(n->op))
                    found = input;
            });
            if (found.isValid())
                return found;
        }
        return {};
    }

    /// What the pass's live search (fuseHorizontalLive) makes of each keyed
    /// node, run on a copy of the graph so that the fusions happen as they
    /// will: later roots and dependency tests see the nodes fused before.
    static HorizontalSearchResult liveOutcomes(const Graph &graph, const HorizontalPattern &pattern)
    {
        Graph copy = graph.clone();
        HorizontalSearchResult outcomes;
        size_t fused = 0;
        fuseHorizontalLive(
            copy, pattern,
            [&](const FusionGroup &group, std::vector<NodeId> &changed) {
                TouchTracker tracker;
                PatternRewriter rewriter(copy, nullptr, &tracker);
                rewriter.setCreatedBy(pattern.name() + "#" + std::to_string(++fused));
                rewriter.setInductorMetadata(true);
                const bool fusedIt = succeeded(pattern.fuse(rewriter, group.members));
                changed = std::move(tracker.seeds);
                return fusedIt;
            },
            {}, &outcomes);
        return outcomes;
    }

    /// Keeps what the pass saw. A node an earlier pass made is not in the
    /// explained graph: the check says which rewrite made it, and marks only
    /// the nodes the graph has.
    void record(const Graph &graph, NodeState &state, NodeId node, const HorizontalSearchResult *search) const
    {
        MatchTrace trace(MatchTrace::Mode::Explain);
        MatchTrace::Source source(trace, m_pattern.inductorSource());
        state.met = true;
        state.matched = traceRuleChecks(graph, m_pattern, node, search, trace);
        std::vector<Check> checks = trace.checks();
        for (Check &c : checks) {
            std::string made;
            std::erase_if(c.nodes, [&](NodeId id) {
                if (id.value < m_originalIdBound)
                    return false;
                const Node *n = graph.node(id);
                if (n && made.find(nodeRef(graph, id) + ":") == std::string::npos)
                    made += (made.empty() ? "" : "; ") + nodeRef(graph, id) + ": made by "
                            + (n->provenance.createdBy.empty() ? std::string("an earlier pass")
                                                               : n->provenance.createdBy);
                return true;
            });
            if (!made.empty())
                c.actual += c.actual.empty() ? made : " (" + made + ")";
        }
        state.checks = std::move(checks);
    }

    const Pattern &m_pattern;
    const uint32_t m_originalIdBound;
    std::map<NodeId, NodeState> m_states;
    /// The node each explained node stands as now (its own id, or the node
    /// re-created for it).
    std::map<NodeId, NodeId> m_byCurrent;
    uint32_t m_idBoundBefore = 0;
    bool m_inPass = false;
    bool m_done = false;
    std::optional<size_t> m_passIndex;
};

std::string passList(const std::vector<ScheduledPass> &schedule, size_t end)
{
    std::string text;
    for (size_t i = 0; i < end; ++i)
        text += (i ? ", " : "") + schedule[i].pattern;
    return text.empty() ? "none" : text;
}

} // namespace

namespace {

/// What every explanation of one rule in one schedule shares: where the rule
/// stands in the schedule, and what the watched run saw.
struct ScheduleContext {
    const Graph &graph;
    const Pattern &pattern;
    GraphStage stage;
    std::vector<ScheduledPass> schedule;
    /// The rule's pass, or schedule.end().
    std::vector<ScheduledPass>::const_iterator scheduled;
    size_t passIndex = 0;
    std::string position; ///< "pass 3 of 12"
    std::string context;  ///< "Inductor 2.14's pre_grad schedule, pass 3 of 12"
    bool enabled = false;
    std::string_view stageSource;
    const ExplainObserver &observer;

    bool isScheduled() const { return scheduled != schedule.end(); }
};

bool checkStage(MatchTrace &trace, const ScheduleContext &c)
{
    MatchTrace::Source source(trace, kStageSource);
    const std::string passStage(toString(c.pattern.stage()));
    return trace
        .check(runsOnStage(c.pattern.stage(), c.stage), "Inductor runs " + passStage + " passes on this graph", [&] {
            const std::string rule = c.pattern.name() + " is a " + passStage + " pass; ";
            switch (c.stage) {
            case GraphStage::PreGrad:
                return rule
                       + "this graph is pre_grad (a Dynamo graph: torch-level calls), which gets only pre_grad_passes";
            case GraphStage::PostGrad:
                return rule + "this graph is post_grad (an ATen graph), which gets only post_grad_passes";
            case GraphStage::Both: break;
            }
            return rule
                   + "Inductor never sees this graph (not from PT2); Fusebox runs the pre_grad passes on it, then the "
                     "post_grad ones";
        });
}

bool checkScheduled(MatchTrace &trace, const ScheduleContext &c)
{
    MatchTrace::Source source(trace, c.stageSource);
    const Pattern &pattern = c.pattern;
    return trace.check(c.isScheduled(), "the pass config runs " + pattern.name(), [&] {
        if (inductorRegistersNoPattern(pattern.name()))
            return "2.6 registers no pattern for " + pattern.name()
                   + " (split_cat.py names it, nothing fills its PatternMatcherPass): it changes nothing";
        if (c.isScheduled())
            return c.position
                   + (c.scheduled->repeat > 1 ? ", " + std::to_string(c.scheduled->repeat) + " times (counter)"
                                              : std::string());
        if (!c.enabled)
            return std::string("the config does not name it; Inductor runs only the passes "
                               "pre_grad_fusion_options / post_grad_fusion_options name");
        if (std::string why = droppedForDevices(pattern, c.graph); !why.empty())
            return why;
        if (pattern.options().getInt("counter", 1) < 1)
            return "its counter is " + std::to_string(pattern.options().getInt("counter", 1))
                   + ": range(counter) runs it no time";
        return std::string("it is not in this stage's schedule");
    });
}

bool checkStillThere(MatchTrace &trace, const ScheduleContext &c, const NodeState &state, NodeId node)
{
    MatchTrace::Source source(trace, c.stageSource);
    return trace.check(state.removedBy.empty(), "the node is still there when " + c.pattern.name() + " runs",
                       [&] {
                           std::string recreated;
                           for (const std::string &by : state.recreatedBy)
                               recreated += (recreated.empty() ? "" : ", then ") + by;
                           if (!recreated.empty())
                               recreated = "re-created by " + recreated + "; ";
                           if (!state.removedBy.empty())
                               return recreated + nodeRef(c.graph, node) + " was rewritten away by " + state.removedBy
                                      + " (pass " + std::to_string(state.removedAt + 1) + "), which runs first";
                           if (!recreated.empty())
                               return recreated + "explained as that node";
                           return "the passes before it: " + passList(c.schedule, c.passIndex);
                       },
                       {node});
}

bool checkReached(MatchTrace &trace, const ScheduleContext &c, const NodeState &state, NodeId node)
{
    const bool vertical = c.pattern.family() == PatternFamily::Vertical;
    MatchTrace::Source source(trace, vertical ? kSweepSource : c.stageSource);
    return trace.check(state.met, vertical ? "the pass's sweep reaches the node" : "the pass's search sees the node",
                       [&] {
                           if (state.met)
                               return std::string(vertical
                                                      ? "the sweep visits it on the graph its later nodes' "
                                                        "rewrites left"
                                                      : "the search runs on the graph as the passes before left it");
                           if (vertical && c.observer.ranPass())
                               return "a rewrite of this pass at a later node (the sweep goes last to first) removed "
                                      + nodeRef(c.graph, node) + " first";
                           return std::string("the schedule stopped before this pass");
                       },
                       {node});
}

/// The rule at `node`: the checks that place the node in the schedule, then
/// the rule's own as the watched run met them.
Explanation explainAt(const ScheduleContext &c, NodeId node)
{
    Explanation e;
    e.pattern = c.pattern.name();
    e.node = node;
    e.context = c.context;
    MatchTrace trace(MatchTrace::Mode::Explain);
    bool ok = false;
    {
        MatchTrace::Source source(trace, c.pattern.inductorSource());
        ok = checkCanStartAt(c.graph, c.pattern, node, trace);
    }
    ok = ok && checkStage(trace, c) && checkScheduled(trace, c);
    const auto state = c.observer.states().find(node);
    ok = ok && checkStillThere(trace, c, state->second, node) && checkReached(trace, c, state->second, node);
    e.checks = trace.checks();
    if (ok) {
        e.checks.insert(e.checks.end(), state->second.checks.begin(), state->second.checks.end());
        e.matched = state->second.matched;
    }
    if (e.matched)
        e.summary = c.pattern.name() + " fires at " + nodeRef(c.graph, node) + " when it runs (" + c.position + ")";
    else if (const Check *f = e.failure())
        e.summary = failureSummary(*f);
    return e;
}

} // namespace

std::vector<Explanation> explainInInductorSchedule(const Graph &graph, const InductorScheduleDriver &driver,
                                                   const Pattern &pattern, std::vector<NodeId> nodes)
{
    if (nodes.empty())
        nodes = rootNodes(graph, pattern);
    const GraphStage stage = graphStage(graph);
    ExplainObserver observer(pattern, nodes, graph.idBound());
    ScheduleContext c{graph, pattern, stage, driver.schedule(stage, &graph), {}, 0, {}, {}, false, {}, observer};
    c.scheduled = std::find_if(c.schedule.cbegin(), c.schedule.cend(),
                               [&](const ScheduledPass &p) { return p.pattern == pattern.name(); });
    c.passIndex = static_cast<size_t>(c.scheduled - c.schedule.cbegin());
    c.stageSource = pattern.stage() == PassStage::PreGrad ? kPreGradSource : kPostGradSource;
    // Watch the schedule only when the rule runs at all.
    if (c.isScheduled() && runsOnStage(pattern.stage(), stage)) {
        Graph copy = graph.clone();
        InductorScheduleDriver watched = driver;
        watched.setObserver(&observer);
        watched.run(copy, stage);
    }
    c.position = "pass " + std::to_string(c.passIndex + 1) + " of " + std::to_string(c.schedule.size());
    const std::string label = driver.patterns().inductorLabel().empty() ? "Inductor"
                                                                        : driver.patterns().inductorLabel();
    c.context = label + "'s " + std::string(toString(stage)) + " schedule, "
                + (c.isScheduled() ? c.position : std::string("not scheduled"));
    const auto &enabled = driver.patterns().enabled();
    c.enabled = std::find(enabled.begin(), enabled.end(), &pattern) != enabled.end();

    std::vector<Explanation> explanations;
    for (NodeId node : nodes)
        explanations.push_back(explainAt(c, node));
    return explanations;
}

NearMissSummary nearMissesInInductorSchedule(const Graph &graph, const InductorScheduleDriver &driver,
                                             const Pattern &pattern)
{
    return summarizeNearMisses(pattern.name(), explainInInductorSchedule(graph, driver, pattern));
}

} // namespace fusebox
