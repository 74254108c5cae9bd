#include "patterns/TraceReplay.h"

#include "core/io/TorchTraceGraphs.h"
#include "core/ir/GraphSignature.h"
#include "core/ir/SymbolValues.h"
#include "core/pt2/InductorComparison.h"
#include "core/rewrite/InductorExplainer.h"
#include "core/rewrite/InductorSchedule.h"
#include "patterns/Catalog.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace fusebox {
namespace {

/// The fusion classes of group_batch_fusion.py (@register_fusion(name) class
/// X), the same in 2.6 and 2.14: Inductor logs a fusion's graph as optimus_X.
const std::map<std::string, std::string, std::less<>> &fusionClasses()
{
    static const std::map<std::string, std::string, std::less<>> classes = {
        {"batch_linear_post_grad", "PostGradBatchLinearFusion"},
        {"group_linear", "GroupLinearFusion"},
        {"batch_linear_lhs", "BatchLinearLHSFusion"},
        {"batch_linear", "PreGradBatchLinearFusion"},
        {"cat_linear", "CatLinearFusion"},
        {"batch_layernorm", "BatchLayernormFusion"},
        {"batch_tanh", "BatchTanhPreGradFusion"},
        {"batch_sigmoid", "BatchSigmoidPreGradFusion"},
        {"batch_relu", "BatchReLuPreGradFusion"},
        {"batch_detach", "BatchDetachPreGradFusion"},
        {"batch_nan_to_num", "BatchNanToNumPreGradFusion"},
        {"batch_clamp", "BatchClampPreGradFusion"},
        {"batch_dropout", "BatchDropoutPreGradFusion"},
        {"batch_aten_tanh", "BatchTanhPostGradFusion"},
        {"batch_aten_sigmoid", "BatchSigmoidPostGradFusion"},
        {"batch_aten_relu", "BatchReLuPostGradFusion"},
        {"batch_aten_add", "BatchAddPostGradFusion"},
        {"batch_aten_sub", "BatchSubPostGradFusion"},
        {"batch_aten_div", "BatchDivPostGradFusion"},
        {"batch_aten_mul", "BatchMulPostGradFusion"},
    };
    return classes;
}

/// Passes Inductor applies outside the loop that logs a graph per pass.
bool passLogsNoGraph(std::string_view pass)
{
    return pass == "normalization_pass" || pass == "sink_cat_after_pointwise" || pass == "permute_linear_fusion"
           || pass == "permute_matmul_fusion" || pass == "linear_permute_fusion" || pass == "linear_transpose_linear"
           || pass == "transpose_linear" || pass == "transpose_matmul";
}

/// The graph payload of `compile` named `kind`, or nullptr.
const TracePayload *graphOf(const TraceCompile &compile, std::string_view kind)
{
    for (const TracePayload &payload : compile.payloads)
        if (payload.isGraph && payload.kind == kind)
            return &payload;
    return nullptr;
}

/// Fusebox's graph around each pass of its schedule.
class PassSnapshots : public ScheduleObserver {
public:
    struct Snapshot {
        std::string pass;
        /// The pass changed the graph.
        bool changed = false;
        /// Inductor would log its graph: a fusion that fused, a pattern pass
        /// whose own counter moved (pre_grad.py's is_same_dict check).
        bool logged = false;
        Graph after;
        size_t removed = 0, added = 0;
    };

    explicit PassSnapshots(const PatternSet &patterns)
        : m_patterns(patterns)
    {}

    void passStarting(const Graph &graph, const std::vector<ScheduledPass> &schedule, size_t index,
                      int64_t repetition) override
    {
        if (repetition != 0)
            return;
        m_before = graph.clone();
        m_counterBefore = counter(schedule[index].pattern);
    }
    void passFinished(const Graph &graph, const std::vector<ScheduledPass> &schedule, size_t index,
                      int64_t repetition) override
    {
        if (repetition + 1 < schedule[index].repeat)
            return;
        const std::string &name = schedule[index].pattern;
        Snapshot snapshot{name, false, false, graph.clone()};
        if (firstStructuralDifference(m_before, graph)) {
            snapshot.changed = true;
            const NamedDifference named = namedDifference(m_before, graph);
            snapshot.removed = named.onlyInA.size();
            snapshot.added = named.onlyInB.size();
        }
        const Pattern *pattern = m_patterns.find(name);
        const bool horizontal = pattern && pattern->family() == PatternFamily::Horizontal;
        snapshot.logged = horizontal ? snapshot.changed : counter(name) != m_counterBefore;
        snapshots.push_back(std::move(snapshot));
    }

    std::vector<Snapshot> snapshots;

private:
    size_t counter(const std::string &name) const
    {
        if (!inductorCounters)
            return 0;
        auto it = inductorCounters->find(name);
        return it == inductorCounters->end() ? 0 : it->second;
    }

    const PatternSet &m_patterns;
    Graph m_before;
    size_t m_counterBefore = 0;
};

std::string notComparedPostGrad(bool fuseboxFired)
{
    return std::string(fuseboxFired ? "Fusebox's pass fired; " : "")
           + "not compared: Inductor runs this pass after post-grad passes of its own (no-op removal, its pattern "
             "passes) that Fusebox does not model, and the log does not hold the graph it started from";
}

std::string describeDifference(const std::optional<StructuralDifference> &difference, const char *fuseboxSide)
{
    if (!difference)
        return "same";
    std::string text = difference->description;
    // firstStructuralDifference says "the first graph"/"the second graph".
    for (auto [from, to] : {std::pair{std::string("the first graph"), std::string(fuseboxSide)},
                            std::pair{std::string("the second graph"), std::string("production's graph")}}) {
        if (auto at = text.find(from); at != std::string::npos)
            text.replace(at, from.size(), to);
    }
    return text + " (" + std::to_string(difference->onlyInA.size()) + " nodes in Fusebox's only, "
           + std::to_string(difference->onlyInB.size()) + " in production's only)";
}

} // namespace

std::string traceArtifactForPass(std::string_view pass, PassStage stage, bool horizontal)
{
    if (passLogsNoGraph(pass))
        return {};
    if (horizontal) {
        auto it = fusionClasses().find(pass);
        return it == fusionClasses().end() ? std::string() : "optimus_" + it->second;
    }
    return std::string(pass) + (stage == PassStage::PreGrad ? "_pre_grad" : "_post_grad");
}

std::string passForTraceArtifact(std::string_view artifact)
{
    if (artifact.starts_with("optimus_")) {
        for (const auto &[pass, cls] : fusionClasses())
            if (artifact.substr(8) == cls)
                return pass;
        return {};
    }
    for (std::string_view suffix : {std::string_view("_pre_grad"), std::string_view("_post_grad")})
        if (artifact.ends_with(suffix) && !artifact.starts_with("before_") && !artifact.starts_with("after_"))
            return std::string(artifact.substr(0, artifact.size() - suffix.size()));
    return {};
}

namespace {

/// A production pass's logged graph, with the nodes it removed and added
/// against the graph logged before it in the same stage.
struct LoggedPass {
    const TracePayload *payload = nullptr;
    PassStage stage = PassStage::PreGrad;
    Graph graph;
    size_t removed = 0, added = 0;
    /// The graph logged before it is the stage's start (before_pre_grad_graph,
    /// before_post_grad_graph), not another pass's.
    bool firstOfStage = false;
    /// That graph's kind: what removed and added count against.
    std::string since;
};

/// One compile's replay, in stages (replayCompile runs them in order).
class Replayer {
public:
    Replayer(const TraceLog &log, const TraceCompile &compile, const TraceReplayOptions &options)
        : m_log(log)
        , m_compile(compile)
        , m_options(options)
    {}

    /// Why the compile cannot be replayed; empty when it can.
    std::string whyNotReplayable() const;
    /// The profile (the log's torch version, else the caller's) and the
    /// compile's options, made into the pattern set Fusebox runs.
    Status configure(CompileReplay &replay);
    /// Reads the before-graph and production's logged passes.
    Status loadGraphs();
    /// Runs Fusebox's schedule on the before-graph and compares it, pass by
    /// pass and at the end, with production's graphs.
    Status compare(CompileReplay &replay);

private:
    std::string address(const TracePayload &payload) const { return traceGraphPath(m_log, {&m_compile, &payload}); }
    /// Production logs its post-grad Optimus graphs with each symbol's size
    /// (core/ir/SymbolValues.h): Fusebox's graph is given the same sizes
    /// first, which `sized` names ("s37 = 16"; empty when none was needed).
    std::optional<StructuralDifference> difference(const Graph &ours, const Graph &theirs,
                                                   std::string *sized = nullptr) const
    {
        auto compare = [&](const Graph &a) {
            return m_options.schemas ? pt2::firstCanonicalDifference(a, theirs, *m_options.schemas)
                                     : firstStructuralDifference(a, theirs);
        };
        if (auto values = symbolValues(ours, theirs); values && !values->empty()) {
            if (sized)
                *sized = formatSymbolValues(*values);
            return compare(withSymbolValues(ours, *values));
        }
        return compare(ours);
    }
    /// The graph a stage's replay starts from.
    const Graph &originalOf(PassStage stage) const { return stage == PassStage::PreGrad ? m_original : m_postOriginal; }
    /// Runs Fusebox's schedule for `stage` on `graph`; the steps go to `replay`.
    void replayStage(Graph &graph, GraphStage stage, CompileReplay &replay);
    std::optional<ReplayStep> stepOf(const PassSnapshots::Snapshot &snapshot, PassStage stage);
    ReplayStep stepOnlyProductionRan(const std::string &artifact) const;
    /// Why Not at the nodes production's pass consumed (found by name in the before-graph).
    std::vector<std::string> whyNot(const Pattern &pattern, const std::string &artifact) const;
    /// The post-grad verdicts: what the replay covers there, and the first difference.
    void finishPostGrad(CompileReplay &replay) const;

    const TraceLog &m_log;
    const TraceCompile &m_compile;
    const TraceReplayOptions &m_options;
    PatternSet m_patterns;
    PassConfig m_config;
    Graph m_original;
    /// before_post_grad_graph, when production logged post-grad Optimus passes.
    Graph m_postOriginal;
    bool m_hasPostGrad = false;
    std::map<std::string, LoggedPass> m_logged;
    std::vector<std::string> m_loggedOrder;
    std::set<std::string> m_compared;
};

std::string Replayer::whyNotReplayable() const
{
    if (graphOf(m_compile, "before_pre_grad_graph"))
        return {};
    if (m_compile.ranNoPreGradPasses())
        return "served from the FX graph cache: no pre-grad (Optimus) pass ran in this compile";
    if (!m_compile.failure.empty() && m_compile.graphs().empty())
        return "the compile failed before Inductor: " + m_compile.failure;
    return "the log has no before_pre_grad_graph for this compile (torch before 2.8 logs none, and a compile "
           "Inductor did not run has none)";
}

Status Replayer::configure(CompileReplay &replay)
{
    const InductorProfile *profile = m_options.fallbackProfile;
    std::string source = (profile ? m_options.fallbackSource : std::string("the newest profile"))
                         + "; the log records no torch version";
    if (!m_log.torchVersion.empty()) {
        auto chosen = chooseInductorProfile(m_log.torchVersion);
        if (!chosen)
            return chosen.error();
        profile = chosen->profile;
        source = "the log's torch " + m_log.torchVersion + (chosen->note.empty() ? "" : "; " + chosen->note);
    }
    if (!profile)
        profile = &newestInductorProfile();
    replay.profile = profile->label() + " (" + source + ")";

    auto recorded = compileOptions(m_log, m_compile);
    if (!recorded)
        return recorded.error();
    if (*recorded) {
        m_config = std::move(**recorded);
        replay.optionsSource = "the compile's fx_graph_runnable (line "
                               + std::to_string(graphRunnableOf(m_compile)->line) + ")";
    } else {
        replay.optionsSource = "not recorded in the log: Inductor's defaults (no Optimus pass enabled)";
    }
    m_patterns = builtinCatalog();
    applyInductorProfile(m_patterns, *profile);
    if (Status s = configurePatterns(m_patterns, m_config, *profile); !s)
        return Error{"the compile's options: " + s.error().message};
    return {};
}

Status Replayer::loadGraphs()
{
    auto original = m_options.load(address(*graphOf(m_compile, "before_pre_grad_graph")));
    if (!original)
        return original.error();
    m_original = std::move(original->graph);
    // Each stage's passes, from its start: before_pre_grad_graph, then (when
    // production logged post-grad Optimus passes) before_post_grad_graph.
    PassStage stage = PassStage::PreGrad;
    Graph previous = m_original.clone();
    std::string previousKind = "before_pre_grad_graph";
    bool first = true;
    for (const TracePayload *payload : optimusStepsOf(m_compile)) {
        if (payload->kind == "before_post_grad_graph") {
            auto start = m_options.load(address(*payload));
            if (!start)
                return start.error();
            m_postOriginal = std::move(start->graph);
            m_hasPostGrad = true;
            stage = PassStage::PostGrad;
            previous = m_postOriginal.clone();
            previousKind = payload->kind;
            first = true;
            continue;
        }
        if (passForTraceArtifact(payload->kind).empty())
            continue;
        auto model = m_options.load(address(*payload));
        if (!model)
            return model.error();
        LoggedPass entry{payload, stage, std::move(model->graph)};
        const NamedDifference named = namedDifference(previous, entry.graph);
        entry.removed = named.onlyInA.size();
        entry.added = named.onlyInB.size();
        entry.firstOfStage = std::exchange(first, false);
        entry.since = std::exchange(previousKind, payload->kind);
        previous = entry.graph.clone();
        m_loggedOrder.push_back(payload->kind);
        m_logged.emplace(payload->kind, std::move(entry));
    }
    return {};
}

std::vector<std::string> Replayer::whyNot(const Pattern &pattern, const std::string &artifact) const
{
    auto at = std::find(m_loggedOrder.begin(), m_loggedOrder.end(), artifact);
    const LoggedPass &entry = m_logged.at(artifact);
    const Graph &original = originalOf(entry.stage);
    const Graph &before = entry.firstOfStage ? original : m_logged.at(*(at - 1)).graph;
    std::vector<NodeId> nodes;
    for (NodeId id : namedDifference(before, entry.graph).onlyInA)
        if (const Node *n = before.node(id); n && pattern.isRootOp(n->op))
            if (NodeId mine = original.findByName(n->name); mine.isValid())
                nodes.push_back(mine);
    std::vector<std::string> lines;
    if (!nodes.empty())
        for (const Explanation &e :
             explainForSchedule(PassSchedule::Inductor, m_patterns, m_config, original, pattern, nodes)) {
            std::string line = original.node(e.node)->name + ": " + e.summary;
            // Where Fusebox parts from production on a check Inductor does
            // not make, say so: that is the answer to "why not here?".
            if (const Check *failed = e.failure(); failed && failed->fuseboxOnly)
                line += " (" + failed->source + ")";
            lines.push_back(std::move(line));
        }
    return lines;
}

std::optional<ReplayStep> Replayer::stepOf(const PassSnapshots::Snapshot &snapshot, PassStage stage)
{
    const Pattern *pattern = m_patterns.find(snapshot.pass);
    if (!pattern)
        return std::nullopt;
    const bool horizontal = pattern->family() == PatternFamily::Horizontal;
    const std::string artifact = traceArtifactForPass(snapshot.pass, pattern->stage(), horizontal);
    auto logged = artifact.empty() ? m_logged.end() : m_logged.find(artifact);
    if (logged == m_logged.end() && !snapshot.changed)
        return std::nullopt;
    // What Inductor would have logged for Fusebox's run of the pass.
    const bool fuseboxLogs = snapshot.logged && !artifact.empty();
    ReplayStep step;
    step.pass = snapshot.pass;
    step.stage = stage;
    step.artifact = artifact;
    step.fusebox = fuseboxLogs;
    step.fuseboxRemoved = snapshot.removed;
    step.fuseboxAdded = snapshot.added;
    const LoggedPass *theirs = logged == m_logged.end() ? nullptr : &logged->second;
    if (theirs) {
        m_compared.insert(artifact);
        step.production = true;
        step.line = theirs->payload->line;
        step.address = traceGraphAddress(m_log, {&m_compile, theirs->payload}).str();
        step.productionRemoved = theirs->removed;
        step.productionAdded = theirs->added;
        step.productionSince = theirs->since;
    }
    if (stage == PassStage::PostGrad && !horizontal) {
        // A post-grad pattern pass: production's input is not in the log.
        step.compared = false;
        step.verdict = notComparedPostGrad(fuseboxLogs);
    } else if (theirs) {
        std::string sized;
        const auto differs = difference(snapshot.after, theirs->graph, &sized);
        step.same = !differs && fuseboxLogs;
        step.verdict = describeDifference(differs, "Fusebox's graph");
        if (!sized.empty())
            step.verdict += " (compared with " + sized + ", the sizes production's graph is logged with)";
        if (!fuseboxLogs) {
            step.verdict = "production's pass fired, Fusebox's did not; " + step.verdict;
            step.whyNot = whyNot(*pattern, artifact);
        }
    } else if (fuseboxLogs) {
        step.verdict = "Fusebox's pass fired, production's did not (the log has no " + artifact + ")";
    } else {
        // Inductor logs a pattern pass only when the counter named after it
        // moves (split_cat_pass counts as scmerge_*), and logs nothing for
        // normalization_pass or fuse_fx: what this pass did shows in the next
        // graph production logged, which is compared there.
        step.same = true;
        step.verdict = artifact.empty() ? "changed the graph; Inductor logs no graph for this pass: compared at "
                                          "the next logged graph"
                                        : "changed the graph without moving its own counter, so Inductor logs no "
                                          "graph for it: compared at the next logged graph";
    }
    return step;
}

ReplayStep Replayer::stepOnlyProductionRan(const std::string &artifact) const
{
    const LoggedPass &entry = m_logged.at(artifact);
    ReplayStep step;
    step.pass = passForTraceArtifact(artifact);
    step.stage = entry.stage;
    step.artifact = artifact;
    step.production = true;
    step.line = entry.payload->line;
    step.address = traceGraphAddress(m_log, {&m_compile, entry.payload}).str();
    step.productionRemoved = entry.removed;
    step.productionAdded = entry.added;
    step.productionSince = entry.since;
    const Pattern *pattern = m_patterns.find(step.pass);
    step.verdict = !pattern ? "production ran " + step.pass + ", which Fusebox does not have"
                            : "production's pass fired; Fusebox's schedule did not run it ("
                                  + whyScheduleSkips(PassSchedule::Inductor, m_patterns, m_config,
                                                     originalOf(entry.stage), *pattern)
                                  + ")";
    return step;
}

void Replayer::finishPostGrad(CompileReplay &replay) const
{
    size_t compared = 0, notCompared = 0;
    for (const ReplayStep &step : replay.steps)
        if (step.stage == PassStage::PostGrad)
            ++(step.compared ? compared : notCompared);
    if (!m_hasPostGrad) // no post-grad stage replayed: no post-grad step either
        return;
    std::vector<std::string> parts;
    if (compared)
        parts.push_back(std::to_string(compared) + (compared == 1 ? " batch-fusion step" : " batch-fusion steps")
                        + " replayed on before_post_grad_graph (Inductor runs those fusions first, after dead-code "
                          "elimination and a reordering)");
    if (notCompared)
        parts.push_back(std::to_string(notCompared) + (notCompared == 1 ? " pattern-pass step" : " pattern-pass steps")
                        + " listed, not compared: Inductor runs them after passes of its own (no-op removal, its "
                          "pattern passes) whose graph the log does not hold");
    if (parts.empty())
        parts.push_back("no post-grad Optimus pass changed the graph, in production or in Fusebox");
    replay.postGradNote = "post-grad: " + parts.front() + (parts.size() > 1 ? "; " + parts.back() : "");
}

void Replayer::replayStage(Graph &graph, GraphStage stage, CompileReplay &replay)
{
    InductorScheduleDriver driver(m_patterns, m_config.preGradOrder, m_config.postGradOrder);
    PassSnapshots snapshots(m_patterns);
    driver.setObserver(&snapshots);
    driver.run(graph, stage);
    const PassStage passStage = stage == GraphStage::PreGrad ? PassStage::PreGrad : PassStage::PostGrad;
    for (const PassSnapshots::Snapshot &snapshot : snapshots.snapshots)
        if (auto step = stepOf(snapshot, passStage))
            replay.steps.push_back(std::move(*step));
    for (const std::string &artifact : m_loggedOrder)
        if (m_logged.at(artifact).stage == passStage && !m_compared.count(artifact))
            replay.steps.push_back(stepOnlyProductionRan(artifact));
}

Status Replayer::compare(CompileReplay &replay)
{
    Graph fusebox = m_original.clone();
    replayStage(fusebox, GraphStage::PreGrad, replay);
    if (m_hasPostGrad) {
        Graph postGrad = m_postOriginal.clone();
        replayStage(postGrad, GraphStage::PostGrad, replay);
    }
    for (size_t i = 0; i < replay.steps.size() && !replay.firstDifference; ++i)
        if (replay.steps[i].compared && !replay.steps[i].same)
            replay.firstDifference = i;
    finishPostGrad(replay);

    const TracePayload *after = graphOf(m_compile, "after_pre_grad_graph");
    if (!after) {
        replay.verdict = "the log has no after_pre_grad_graph to compare with";
        return {};
    }
    auto result = m_options.load(address(*after));
    if (!result)
        return result.error();
    const auto differs = difference(fusebox, result->graph);
    replay.same = !differs;
    replay.verdict = differs ? "differs from after_pre_grad_graph: " + describeDifference(differs, "Fusebox's result")
                             : "same as after_pre_grad_graph";
    // A compared step that differs makes the compile differ too, pre-grad
    // or post-grad, even where the stage's end agrees: the replay answers
    // pass by pass.
    if (replay.same && replay.firstDifference) {
        const ReplayStep &step = replay.steps[*replay.firstDifference];
        replay.same = false;
        replay.verdict += std::string("; ") + (step.stage == PassStage::PostGrad ? "post-grad " : "") + step.pass
                          + " differs: " + step.verdict;
    }
    return {};
}

} // namespace

Expected<CompileReplay> replayCompile(const TraceLog &log, const TraceCompile &compile,
                                      const TraceReplayOptions &options)
{
    CompileReplay replay;
    replay.compile = compile.label();
    Replayer replayer(log, compile, options);
    replay.notReplayed = replayer.whyNotReplayable();
    if (!replay.notReplayed.empty())
        return replay;
    if (Status status = replayer.configure(replay); !status)
        return status.error();
    if (Status status = replayer.loadGraphs(); !status)
        return status.error();
    if (Status status = replayer.compare(replay); !status)
        return status.error();
    replay.replayed = true;
    return replay;
}

} // namespace fusebox
