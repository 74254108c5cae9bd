#include "patterns/TraceReplay.h"

#include "core/io/TorchTraceGraphs.h"
#include "core/ir/GraphSignature.h"
#include "core/pt2/InductorComparison.h"
#include "core/rewrite/InductorExplainer.h"
#include "core/rewrite/InductorSchedule.h"
#include "patterns/Catalog.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"

#include <algorithm>
#include <map>
#include <set>

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

/// A Python literal (dict/list/str/number/True/False/None, as repr writes a
/// config dict) as JSON text; nullopt for anything else.
std::optional<std::string> pythonLiteralAsJson(std::string_view text)
{
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\'' || c == '"') {
            out += '"';
            for (++i; i < text.size() && text[i] != c; ++i) {
                if (text[i] == '\\' && i + 1 < text.size()) {
                    if (text[i + 1] == '\'') {
                        out += '\'';
                    } else {
                        out += text[i];
                        out += text[i + 1];
                    }
                    ++i;
                } else if (text[i] == '"') {
                    out += "\\\"";
                } else {
                    out += text[i];
                }
            }
            if (i >= text.size())
                return std::nullopt;
            out += '"';
        } else if (std::isalpha(static_cast<unsigned char>(c))) {
            size_t end = i;
            while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end])))
                ++end;
            const std::string_view word = text.substr(i, end - i);
            if (word == "True")
                out += "true";
            else if (word == "False")
                out += "false";
            else if (word == "None")
                out += "null";
            else
                return std::nullopt;
            i = end - 1;
        } else if (c == '(' || c == ')') {
            out += c == '(' ? '[' : ']'; // a tuple reads as a list
        } else {
            out += c;
        }
    }
    return out;
}

/// `torch._inductor.config.NAME = VALUE` in fx_graph_runnable's text.
std::optional<std::string> runnableSetting(std::string_view text, std::string_view name)
{
    const std::string key = "torch._inductor.config." + std::string(name) + " = ";
    size_t at = text.find(key);
    if (at == std::string_view::npos)
        return std::nullopt;
    at += key.size();
    const size_t end = text.find('\n', at);
    return std::string(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
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

    explicit PassSnapshots(const PatternSet &patterns) : m_patterns(patterns) {}

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

Expected<std::optional<PassConfig>> compileOptions(const TraceLog &log, const TraceCompile &compile)
{
    const TracePayload *runnable = nullptr;
    for (const TracePayload &payload : compile.payloads)
        if (payload.kind == "fx_graph_runnable")
            runnable = &payload;
    if (!runnable)
        return std::optional<PassConfig>();
    auto text = readTracePayload(log, *runnable);
    if (!text)
        return text.error();
    std::string json = "{";
    for (const char *name : {"pre_grad_fusion_options", "post_grad_fusion_options"}) {
        auto value = runnableSetting(*text, name);
        if (!value)
            continue;
        auto asJson = pythonLiteralAsJson(*value);
        if (!asJson)
            return Error{log.path + ":" + std::to_string(runnable->line) + ": fx_graph_runnable sets " + name
                         + " to something Fusebox cannot read: " + value->substr(0, 120)};
        json += std::string(json.size() > 1 ? ", " : "") + "\"" + name + "\": " + *asJson;
    }
    json += "}";
    auto config = readPassConfig(json, log.path + ":" + std::to_string(runnable->line) + " (fx_graph_runnable)");
    if (!config)
        return config.error();
    return std::optional<PassConfig>(std::move(*config));
}

Expected<CompileReplay> replayCompile(const TraceLog &log, const TraceCompile &compile, const TraceReplayOptions &options)
{
    CompileReplay replay;
    replay.compile = compile.label();
    const TracePayload *before = graphOf(compile, "before_pre_grad_graph");
    const TracePayload *after = graphOf(compile, "after_pre_grad_graph");
    if (!before) {
        if (compile.ranNoPreGradPasses())
            replay.notReplayed = "served from the FX graph cache: no pre-grad (Optimus) pass ran in this compile";
        else if (!compile.failure.empty() && compile.graphs().empty())
            replay.notReplayed = "the compile failed before Inductor: " + compile.failure;
        else
            replay.notReplayed = "the log has no before_pre_grad_graph for this compile (torch before 2.8 logs "
                                 "none, and a compile Inductor did not run has none)";
        return replay;
    }

    // Whose answers: the log's torch version, else the caller's choice.
    const InductorProfile *profile = options.fallbackProfile;
    std::string profileSource = "chosen by the user; the log records no torch version";
    if (!log.torchVersion.empty()) {
        auto chosen = chooseInductorProfile(log.torchVersion);
        if (!chosen)
            return chosen.error();
        profile = chosen->profile;
        profileSource = "the log's torch " + log.torchVersion + (chosen->note.empty() ? "" : "; " + chosen->note);
    }
    if (!profile)
        profile = &newestInductorProfile();
    replay.profile = profile->label() + " (" + profileSource + ")";

    auto options_ = compileOptions(log, compile);
    if (!options_)
        return options_.error();
    PassConfig config;
    if (*options_) {
        config = std::move(**options_);
        replay.optionsSource = "the compile's fx_graph_runnable (line "
                               + std::to_string([&] {
                                     for (const TracePayload &p : compile.payloads)
                                         if (p.kind == "fx_graph_runnable")
                                             return p.line;
                                     return 0;
                                 }())
                               + ")";
    } else {
        replay.optionsSource = "not recorded in the log: Inductor's defaults (no Optimus pass enabled)";
    }
    PatternSet patterns = builtinCatalog();
    applyInductorProfile(patterns, *profile);
    if (Status s = configurePatterns(patterns, config, *profile); !s)
        return Error{"the compile's options: " + s.error().message};

    auto address = [&](const TracePayload &payload) {
        return log.path + "#" + traceGraphAddress(log, {&compile, &payload}).str();
    };
    auto original = options.load(address(*before));
    if (!original)
        return original.error();

    // Fusebox's schedule, watched pass by pass.
    Graph fusebox = original->graph.clone();
    InductorScheduleDriver driver(patterns, config.preGradOrder, config.postGradOrder);
    PassSnapshots snapshots(patterns);
    driver.setObserver(&snapshots);
    driver.run(fusebox, GraphStage::PreGrad);

    // Production's logged passes, in log order between before and after.
    struct Logged {
        const TracePayload *payload;
        Graph graph;
        size_t removed = 0, added = 0;
    };
    std::map<std::string, Logged> logged;
    std::vector<std::string> loggedOrder;
    Graph previous = original->graph.clone();
    // The pre-grad stages between before_ and after_pre_grad_graph (post-grad
    // fusions log optimus_* too, later in the compile).
    for (const TracePayload *stage : optimusStepsOf(compile)) {
        const TracePayload &payload = *stage;
        if (passForTraceArtifact(payload.kind).empty())
            continue;
        auto model = options.load(address(payload));
        if (!model)
            return model.error();
        Logged entry{&payload, std::move(model->graph)};
        const NamedDifference named = namedDifference(previous, entry.graph);
        entry.removed = named.onlyInA.size();
        entry.added = named.onlyInB.size();
        previous = entry.graph.clone();
        loggedOrder.push_back(payload.kind);
        logged.emplace(payload.kind, std::move(entry));
    }

    auto compare = [&](const Graph &ours, const Graph &theirs) {
        return options.schemas ? pt2::firstCanonicalDifference(ours, theirs, *options.schemas)
                               : firstStructuralDifference(ours, theirs);
    };
    std::set<std::string> seen;
    for (const PassSnapshots::Snapshot &snapshot : snapshots.snapshots) {
        const Pattern *pattern = patterns.find(snapshot.pass);
        if (!pattern)
            continue;
        const std::string artifact = traceArtifactForPass(snapshot.pass, pattern->stage(),
                                                          pattern->family() == PatternFamily::Horizontal);
        auto log_ = artifact.empty() ? logged.end() : logged.find(artifact);
        if (log_ == logged.end() && !snapshot.changed)
            continue;
        // What Inductor would have logged for Fusebox's run of the pass.
        const bool fuseboxLogs = snapshot.logged && !artifact.empty();
        ReplayStep step;
        step.pass = snapshot.pass;
        step.artifact = artifact.empty() ? "(Inductor logs no graph for this pass)" : artifact;
        step.fusebox = fuseboxLogs;
        step.fuseboxRemoved = snapshot.removed;
        step.fuseboxAdded = snapshot.added;
        if (log_ != logged.end()) {
            seen.insert(artifact);
            step.production = true;
            step.line = log_->second.payload->line;
            step.address = traceGraphAddress(log, {&compile, log_->second.payload}).str();
            step.productionRemoved = log_->second.removed;
            step.productionAdded = log_->second.added;
            const auto difference = compare(snapshot.after, log_->second.graph);
            step.same = !difference && fuseboxLogs;
            step.verdict = describeDifference(difference, "Fusebox's graph");
            if (!fuseboxLogs) {
                step.verdict = "production's pass fired, Fusebox's did not; " + step.verdict;
                // Why Not at the nodes production's pass consumed, by name in the original graph.
                std::vector<NodeId> nodes;
                const Graph &loggedBefore = [&]() -> const Graph & {
                    auto at = std::find(loggedOrder.begin(), loggedOrder.end(), artifact);
                    return at == loggedOrder.begin() ? original->graph : logged.at(*(at - 1)).graph;
                }();
                for (NodeId id : namedDifference(loggedBefore, log_->second.graph).onlyInA)
                    if (const Node *n = loggedBefore.node(id); n && pattern->isRootOp(n->op))
                        if (NodeId mine = original->graph.findByName(n->name); mine.isValid())
                            nodes.push_back(mine);
                if (!nodes.empty())
                    for (const Explanation &e : explainForSchedule(PassSchedule::Inductor, patterns, config,
                                                                   original->graph, *pattern, nodes))
                        step.whyNot.push_back(original->graph.node(e.node)->name + ": " + e.summary);
            }
        } else if (fuseboxLogs) {
            step.verdict = "Fusebox's pass fired, production's did not (the log has no " + artifact + ")";
        } else {
            // Inductor logs a pattern pass only when the counter named after
            // it moves (split_cat_pass counts as scmerge_*), and logs nothing
            // for normalization_pass or fuse_fx: what this pass did shows in
            // the next graph production logged, which is compared there.
            step.same = true;
            step.verdict = artifact.empty() ? "changed the graph; Inductor logs no graph for this pass: compared "
                                              "at the next logged graph"
                                            : "changed the graph without moving its own counter, so Inductor "
                                              "logs no graph for it: compared at the next logged graph";
        }
        replay.steps.push_back(std::move(step));
    }
    for (const std::string &artifact : loggedOrder) {
        if (seen.count(artifact))
            continue;
        const Logged &entry = logged.at(artifact);
        ReplayStep step;
        step.pass = passForTraceArtifact(artifact);
        step.artifact = artifact;
        step.production = true;
        step.line = entry.payload->line;
        step.address = traceGraphAddress(log, {&compile, entry.payload}).str();
        step.productionRemoved = entry.removed;
        step.productionAdded = entry.added;
        const Pattern *pattern = patterns.find(step.pass);
        step.verdict = !pattern ? "production ran " + step.pass + ", which Fusebox does not have"
                                : "production's pass fired; Fusebox's schedule did not run it ("
                                      + whyScheduleSkips(PassSchedule::Inductor, patterns, config, original->graph,
                                                         *pattern)
                                      + ")";
        replay.steps.push_back(std::move(step));
    }
    for (size_t i = 0; i < replay.steps.size(); ++i)
        if (!replay.steps[i].same && !replay.firstDifference)
            replay.firstDifference = i;

    replay.replayed = true;
    size_t postGrad = 0;
    for (const TracePayload &payload : compile.payloads)
        postGrad += payload.isGraph && payload.kind.ends_with("_post_grad");
    for (const TracePayload &payload : compile.payloads)
        if (payload.isGraph && payload.kind.starts_with("optimus_"))
            if (const Pattern *p = patterns.find(passForTraceArtifact(payload.kind)); p && p->stage() == PassStage::PostGrad)
                ++postGrad;
    if (postGrad)
        replay.postGradNote = std::to_string(postGrad) + " post-grad Optimus pass graphs are listed, not replayed: "
                              "Inductor runs passes of its own between before_post_grad_graph and them "
                              "(decompositions, no-op removal, reinplacing) that Fusebox does not model";
    if (after) {
        auto result = options.load(address(*after));
        if (!result)
            return result.error();
        const auto difference = compare(fusebox, result->graph);
        replay.same = !difference;
        replay.verdict = difference ? "differs from after_pre_grad_graph: " + describeDifference(difference, "Fusebox's result")
                                    : "same as after_pre_grad_graph";
    } else {
        replay.verdict = "the log has no after_pre_grad_graph to compare with";
    }
    return replay;
}

} // namespace fusebox
