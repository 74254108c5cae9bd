#pragma once
// The order PyTorch 2.6's Inductor runs its Optimus passes in, and a driver
// that runs Fusebox's patterns in that order (fusebox-pass's default; the
// benefit-ordered GreedyDriver is `--schedule greedy`). The 2.6 sources it
// follows: torch/_inductor/fx_passes/pre_grad.py (pre_grad_passes),
// post_grad.py (post_grad_passes), group_batch_fusion.py
// (apply_group_batch_fusion), pattern_matcher.py (PatternMatcherPass.apply).

#include "GreedyDriver.h"

#include <map>
#include <string>
#include <vector>

namespace fusebox {

/// The pipelines of Inductor's a graph goes through.
enum class GraphStage {
    PreGrad,  ///< a torch-level (Dynamo) graph: pre_grad_passes
    PostGrad, ///< an ATen graph from PT2 (AOT, torch.export): post_grad_passes
    Both,     ///< a graph Inductor never sees (TorchScript, graph JSON): pre-grad passes, then post-grad ones
};

/// The stage of a graph: PreGrad when a node keeps a torch-level spelling
/// (F.linear, x.view, torch.cat; not torch.ops.* or operator.*), PostGrad for
/// other graphs read from PT2's formats (FX text, torch.export), Both for the
/// rest. Mirrors the bridge's graph_stage (python/fusebox_bridge/inductor.py).
GraphStage graphStage(const Graph &graph);

/// Whether Inductor runs a pass of stage `pass` on a graph of stage `graph`
/// (a graph Inductor never sees gets both stages, as Fusebox runs them).
bool runsOnStage(PassStage pass, GraphStage graph);

/// "pre_grad", "post_grad", "pre_grad+post_grad".
std::string_view toString(GraphStage stage);

/// True for a pass 2.6 names but registers no pattern for
/// (merge_stack_tahn_unbind_pass): Inductor's schedule leaves it out, as its
/// pass changes nothing; Fusebox's greedy search still runs Fusebox's rule.
bool inductorRegistersNoPattern(std::string_view pass);

/// Why Inductor's schedule drops `pattern` on `graph` for its devices
/// (Pattern::requiredDevices, 2.14's _resolve_pre_grad_fusion_options: no
/// example input is on one of them), in one line; empty when it runs. A graph
/// whose inputs record no device keeps the pass and the line says that it
/// cannot tell (Inductor, which has the example inputs, would know).
std::string droppedForDevices(const Pattern &pattern, const Graph &graph);

/// One pass of a schedule: a pattern and how many times in a row it runs.
struct ScheduledPass {
    std::string pattern;
    /// Inductor's `counter` option: back-to-back applications of a pre-grad
    /// split/cat pass (1 for everything else, as in 2.6).
    int64_t repeat = 1;
};

/// The enabled, available patterns of `stage` in the order Inductor 2.6 runs
/// them. `order` is the config's order of rule names (PassConfig's
/// preGradOrder / postGradOrder); enabled patterns it does not name follow in
/// the set's order. Pre-grad: the rules of fuse_fx (sink_cat_after_pointwise
/// whenever the set has it, enabled or not, as 2.6 runs it whatever the
/// config says; the permute fusions when enabled), then normalization_pass,
/// (passes 2.6 registers no pattern for are left out)
/// then every horizontal rule,
/// then every other vertical rule, `counter` times each. Post-grad: every
/// horizontal rule, then every vertical rule, once each.
std::vector<ScheduledPass> inductorSchedule(const PatternSet &patterns, PassStage stage,
                                            const std::vector<std::string> &order);

/// Watches a schedule as it runs, to explain a rule in the state Inductor's
/// pass meets the graph in (explainInInductorSchedule). Each callback sees the
/// graph at that moment; none may change it.
class ScheduleObserver {
public:
    virtual ~ScheduleObserver() = default;
    /// Before repetition `repetition` (from 0) of `schedule[index]`.
    virtual void passStarting(const Graph &, const std::vector<ScheduledPass> &schedule, size_t index,
                              int64_t repetition)
    {
        (void)schedule, (void)index, (void)repetition;
    }
    /// After that repetition, the graph back in topological order.
    virtual void passFinished(const Graph &, const std::vector<ScheduledPass> &schedule, size_t index,
                              int64_t repetition)
    {
        (void)schedule, (void)index, (void)repetition;
    }
    /// A vertical pass is about to match at `node`, on the graph as the pass's
    /// earlier rewrites left it.
    virtual void visiting(const Graph &, const VerticalPattern &, NodeId node) { (void)node; }
    /// True once the observer has seen what it needs: the run stops there
    /// (checked after each callback; the result's message says so).
    virtual bool done() const { return false; }

    /// While a run is watched, counters["inductor"] as the run has counted
    /// them so far (DriverResult::inductorCounters): set by the driver before
    /// the first callback, null otherwise. Inductor logs a pattern pass's graph
    /// to TORCH_TRACE only when the counter named after the pass moved.
    const std::map<std::string, size_t> *inductorCounters = nullptr;
};

/// Runs patterns pass by pass, as Inductor does, instead of GreedyDriver's
/// benefit-ordered rounds to a fixed point:
/// - a vertical pass visits the nodes that existed when it started, last to
///   first (PatternMatcherPass.apply), and rewrites each match at once, so
///   later visits see the rewritten graph; nodes it creates wait for the next
///   repetition (`counter`);
/// - a horizontal pass is Inductor's greedy search over the whole graph, each
///   group fused in the order found (a group that later fusions made
///   dependent is taken back: it would close a cycle);
/// - the graph is put back in topological order after every pass.
/// Counters: DriverResult::counters per pattern as GreedyDriver keeps them,
/// and DriverResult::inductorCounters named as counters["inductor"] names
/// them. Not yet modelled (issue 13): the pattern matcher's mutation-region
/// guard and the re-keying of fused outputs within one horizontal pass.
class InductorScheduleDriver {
public:
    InductorScheduleDriver(const PatternSet &patterns, std::vector<std::string> preGradOrder = {},
                           std::vector<std::string> postGradOrder = {}, DriverOptions options = {});

    /// Patterns that run on a graph of any stage, once each and in this order
    /// after the stage's passes: custom patterns, which a user gives for the
    /// graph at hand (an exported pattern module's apply(gm) runs wherever it
    /// is called).
    void setAnyStagePatterns(std::vector<std::string> names) { m_anyStage = std::move(names); }

    const PatternSet &patterns() const { return m_patterns; }

    /// Set while a run should be watched (nullptr: none). Not owned.
    void setObserver(ScheduleObserver *observer) { m_observer = observer; }

    /// The passes run() runs on a graph of `stage`, in order: the stages'
    /// passes (inductorSchedule), then the any-stage patterns.
    /// With a graph, the passes its input devices drop are left out
    /// (droppedForDevices).
    std::vector<ScheduledPass> schedule(GraphStage stage, const Graph *graph = nullptr) const;

    /// Runs the schedule of `stage` (graphStage(graph) when not given).
    DriverResult run(Graph &graph, EditLog *log = nullptr, DriverListener *listener = nullptr) const;
    DriverResult run(Graph &graph, GraphStage stage, EditLog *log = nullptr, DriverListener *listener = nullptr) const;

private:
    const PatternSet &m_patterns;
    std::vector<std::string> m_preGradOrder, m_postGradOrder, m_anyStage;
    DriverOptions m_options;
    ScheduleObserver *m_observer = nullptr;
};

} // namespace fusebox
