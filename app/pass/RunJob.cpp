// `fusebox-pass run`'s job: one method per stage of a run (RunJob), and what
// it reports on the way.
#include "Commands.h"
#include "RunRequest.h"
#include "RunVerification.h"

#include "core/io/GraphJson.h"
#include "core/ir/GraphSignature.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/torch/Executor.h"
#include "core/torch/LatencyComparison.h"
#include "core/ir/GraphSource.h"
#include "core/pt2/CompiledGate.h"
#include "core/pt2/Pt2Export.h"
#include "core/rewrite/FuseboxOpDecomposition.h"
#include "core/torch/TorchScriptExporter.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"
#include "patterns/RewriteReport.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

namespace fusebox::cli {
namespace {

/// "fusebox::linear_relu and fusebox::linear_gelu".
std::string joinNames(const std::vector<std::string> &names)
{
    std::string text;
    for (size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    return text;
}

/// Collects undone rewrites for the report.
class UndoRecorder final : public DriverListener {
public:
    std::vector<ReportEntry> undone;
    std::map<std::string, int> notFaster; // --keep-faster's, per pattern
    /// Set by run's verifyRewrite hook: the rewrite it just refused was
    /// --keep-faster's (right, not faster), not a failed verification.
    bool gateRefused = false;
    void rewriteUndone(const Graph &g, const Match &m, const std::string &reason) override
    {
        ReportEntry e;
        e.pattern = m.pattern;
        e.anchor = g.node(m.anchor) ? g.node(m.anchor)->name : "";
        e.status = ReportStatus::FailedVerification;
        e.verification = reason;
        undone.push_back(std::move(e));
        const bool slower = std::exchange(gateRefused, false);
        if (slower)
            ++notFaster[m.pattern];
        std::cerr << (slower ? "note: " : "warning: ") << m.pattern << " at %"
                  << (g.node(m.anchor) ? g.node(m.anchor)->name : "?")
                  << (slower ? " was undone (--keep-faster): " : " failed verification and was undone: ") << reason
                  << "\n";
    }
};

/// "median 1.92 ms, middle half 1.90-1.95 ms, range 1.85-2.40 ms".
std::string spreadText(const LatencyResult &r)
{
    auto ms = [](double v) {
        std::ostringstream out;
        out << std::fixed << std::setprecision(v < 10 ? 3 : 2) << v;
        return out.str();
    };
    return "median " + ms(r.medianMs) + " ms, middle half " + ms(r.p25Ms) + "-" + ms(r.p75Ms) + " ms, range "
           + ms(r.minMs) + "-" + ms(r.maxMs) + " ms";
}

/// No silent wrong answer: a rule a missing shape stopped is neither a match
/// nor a refusal, and the answer says so where the user looks. False when
/// --strict makes that an error.
bool reportUndecided(const ParsedArgs &args, const DriverResult &result)
{
    if (result.undecided.empty())
        return true;
    const bool strict = args.has("--strict");
    const UndecidedAttempt &first = result.undecided.front();
    std::cerr << "fusebox-pass run: " << (strict ? "error: " : "warning: ") << result.undecided.size()
              << (result.undecided.size() == 1 ? " attempt" : " attempts")
              << " could not be decided because a value's shape is unknown (first: " << first.pattern << " at %"
              << first.nodeName << "; `fusebox-pass explain " << args.positionals[0] << " --pattern " << first.pattern
              << " --node " << first.nodeName << "` shows which); the result may miss rewrites Inductor makes"
              << (strict ? "" : " (--strict makes this an error)") << "\n";
    return !strict;
}

/// One `fusebox-pass run`: its stages in the order they run, sharing what
/// the earlier ones made. A stage that ends the command returns its exit code.
class RunJob {
public:
    RunJob(const ParsedArgs &args, RunRequest request)
        : m_args(args)
        , m_request(std::move(request))
    {}

    int run();

private:
    std::optional<int> load();
    std::optional<int> connectPyTorch2();
    std::optional<int> setUpVerification();
    void setUpKeepFaster();
    std::optional<int> runPasses();
    void reportKeepFaster();
    void compareWithInductorSchedule();
    void checkFinalGraph();
    void measureLatency();
    std::optional<int> write();
    std::optional<int> writeReport();
    void printSummary() const;

    const ParsedArgs &m_args;
    RunRequest m_request;
    PassConfig m_config;
    std::optional<PatternSet> m_patterns;
    std::optional<LoadedModel> m_model;
    /// The graph as read, for the verifier and for greedy's comparison with
    /// Inductor's schedule (a copy of every node: only when one needs it).
    std::optional<Graph> m_original;
    /// One bridge (one Python) for everything this run does in PyTorch 2.
    std::shared_ptr<pt2::Pt2Bridge> m_bridge;
    std::string m_noBridge;
    std::optional<RunVerifier> m_verifier;
    UndoRecorder m_undone;
    std::optional<pt2::CompiledGate> m_gate;
    DriverResult m_result;
    RewriteReport m_summary;
    nlohmann::json m_report;
    double m_readSeconds = 0, m_passesSeconds = 0;
    std::string m_gateLine, m_beyondLine, m_latencyLine, m_exportLine;
    int m_exitCode = kExitOk;
};

int RunJob::run()
{
    for (auto stage : {&RunJob::load, &RunJob::connectPyTorch2, &RunJob::setUpVerification})
        if (auto exit = (this->*stage)())
            return *exit;
    setUpKeepFaster();
    if (auto exit = runPasses())
        return *exit;
    reportKeepFaster();
    if (m_request.greedy)
        compareWithInductorSchedule();
    if (!reportUndecided(m_args, m_result))
        m_exitCode = kExitFailure;
    if (m_request.verify)
        checkFinalGraph();
    if (m_request.measure)
        measureLatency();
    for (auto stage : {&RunJob::write, &RunJob::writeReport})
        if (auto exit = (this->*stage)())
            return *exit;
    printSummary();
    // The process ends now: freeing the graphs node by node would take longer
    // than a 100k-node run's passes (clang's -disable-free, for the same reason).
    leakAtExit(std::move(*m_model));
    if (m_original)
        leakAtExit(std::move(*m_original));
    return m_exitCode;
}

std::optional<int> RunJob::load()
{
    m_patterns = patternsForCommand(m_args, "run", &m_config);
    if (!m_patterns)
        return kExitFailure;
    const auto readStart = std::chrono::steady_clock::now();
    m_model = loadModelForCommand(m_args, "run");
    if (!m_model)
        return kExitFailure;
    m_readSeconds = secondsSince(readStart);
    const RunRequest &r = m_request;
    if (r.verify || r.greedy || r.measure || r.forPyTorch2)
        m_original = m_model->graph.clone();
    return std::nullopt;
}

std::optional<int> RunJob::connectPyTorch2()
{
    const RunRequest &r = m_request;
    const bool pt2Graph = isPt2Graph(m_model->graph);
    if (r.keepFaster && !pt2Graph) {
        std::cerr << "fusebox-pass run: --keep-faster times rewrites compiled by torch.compile, in PyTorch 2: "
                  << r.model << " is not a PT2 graph (a Dynamo or AOT dump, FX text, torch.export)\n";
        return kExitUsage;
    }
    if (!(pt2Graph && (r.verify || r.measure || r.keepFaster)) && !r.forPyTorch2)
        return std::nullopt;
    auto found = pt2::Pt2Bridge::find(m_args.value("--python").value_or(""));
    if (found)
        m_bridge = std::move(*found);
    else
        m_noBridge = found.error().message;
    if (r.forPyTorch2 && !m_bridge) {
        std::cerr << "fusebox-pass run: cannot write " << r.output << ": " << m_noBridge << "\n";
        return kExitFailure;
    }
    if (r.keepFaster && !m_bridge) {
        std::cerr << "fusebox-pass run: --keep-faster: " << m_noBridge << "\n";
        return kExitFailure;
    }
    return std::nullopt;
}

std::optional<int> RunJob::setUpVerification()
{
    if (!m_request.verify)
        return std::nullopt;
    auto created = RunVerifier::create(*m_original, m_request.precision, m_bridge, m_noBridge);
    if (!created) {
        std::cerr << "fusebox-pass run: cannot verify " << m_request.model << ": " << created.error().message << "\n";
        return kExitFailure;
    }
    m_verifier = std::move(*created);
    if (!m_verifier->note().empty())
        std::cerr << "fusebox-pass run: note: " << m_verifier->note() << "\n";
    m_request.options.verifyRewrite = [this](const Graph &g) { return (*m_verifier)(g); };
    return std::nullopt;
}

// --keep-faster: after verification, each rewrite is timed compiled against
// the graph before it and undone when it is not faster.
void RunJob::setUpKeepFaster()
{
    if (!m_request.keepFaster)
        return;
    LatencyOptions gateOptions = m_request.latency;
    if (!m_args.value("--measure-runs"))
        gateOptions.iterations = 20;
    if (!m_args.value("--measure-warmup"))
        gateOptions.warmup = 3;
    gateOptions.bridge = m_bridge.get();
    m_gate.emplace(*m_bridge, m_model->graph, gateOptions, m_request.keepFasterTolerance);
    auto verifyFirst = std::move(m_request.options.verifyRewrite);
    m_request.options.verifyRewrite = [this, verifyFirst](const Graph &g) -> std::optional<std::string> {
        if (verifyFirst)
            if (auto failure = verifyFirst(g))
                return failure;
        auto refused = (*m_gate)(g);
        m_undone.gateRefused = refused.has_value();
        return refused;
    };
}

std::optional<int> RunJob::runPasses()
{
    m_request.options.isRejected = rejectionFilter(m_config);
    const auto passesStart = std::chrono::steady_clock::now();
    auto ran = runSchedule(m_args, "run", *m_patterns, m_config, m_model->graph, m_request.options, &m_undone);
    if (!ran)
        return kExitUsage;
    m_passesSeconds = secondsSince(passesStart);
    m_result = std::move(*ran);
    // The report model the IDE's review report shares (counters, rewrites,
    // undone, nodes); this command's own sections are added to its JSON.
    m_summary = rewriteReport(m_request.model, m_result);
    m_summary.undone = m_undone.undone;
    m_summary.inductor = m_patterns->inductorLabel();
    m_report = reportJson(m_summary);
    m_report["output"] = m_request.output;
    m_report["converged"] = m_result.converged;
    m_report["rounds"] = m_result.rounds;
    if (!m_result.message.empty())
        m_report["message"] = m_result.message;
    m_report["nodes_added"] = m_result.nodesAdded;
    m_report["nodes_removed"] = m_result.nodesRemoved;
    m_report["schedule"] = m_request.greedy ? "greedy" : "inductor";
    if (!m_request.greedy)
        m_report["inductor_counters"] = m_result.inductorCounters;
    return std::nullopt;
}

void RunJob::reportKeepFaster()
{
    if (!m_gate)
        return;
    int kept = 0;
    nlohmann::json decisions = nlohmann::json::array();
    for (const pt2::GateDecision &d : m_gate->decisions()) {
        kept += d.kept ? 1 : 0;
        decisions.push_back(
            {{"kept", d.kept}, {"before_ms", d.keptMs}, {"after_ms", d.candidateMs}, {"error", d.error}});
    }
    const int timed = int(m_gate->decisions().size());
    m_report["keep_faster"] = {{"timed", timed}, {"kept", kept}, {"undone", timed - kept}, {"decisions", decisions}};
    m_gateLine = "keep-faster: " + std::to_string(timed) + " rewrites timed compiled (torch.compile, Inductor CPU), "
                 + std::to_string(kept) + " kept, " + std::to_string(timed - kept) + " undone as not faster";
}

// Fusebox's own search goes beyond Inductor: say how far, against Inductor's
// schedule run on the same graph under the same config.
void RunJob::compareWithInductorSchedule()
{
    Graph theirs = m_original->clone();
    DriverOptions plain;
    plain.isRejected = m_request.options.isRejected;
    const DriverResult inductor = runPassSchedule(PassSchedule::Inductor, *m_patterns, m_config, theirs, plain);
    nlohmann::json ours = nlohmann::json::object(), inductorApplied = nlohmann::json::object();
    for (const auto &[name, c] : m_result.counters)
        if (c.applied)
            ours[name] = c.applied;
    for (const auto &[name, c] : inductor.counters)
        if (c.applied)
            inductorApplied[name] = c.applied;
    const auto difference = firstStructuralDifference(m_model->graph, theirs);
    m_report["beyond_inductor"] = {{"inductor_schedule_nodes_after", theirs.size()},
                                   {"inductor_schedule_applied", inductorApplied},
                                   {"greedy_applied", ours},
                                   {"same_graph", !difference.has_value()},
                                   {"first_difference", difference ? difference->description : ""}};
    m_beyondLine = "beyond Inductor's schedule: " + std::to_string(m_result.nodesAfter) + " nodes here, "
                   + std::to_string(theirs.size()) + " after Inductor's schedule ("
                   + std::to_string(inductor.rewrites.size())
                   + (inductor.rewrites.size() == 1 ? " rewrite)" : " rewrites)")
                   + (difference ? "; first difference: " + difference->description : "; the same graph");
}

void RunJob::checkFinalGraph()
{
    auto final = m_verifier->check(m_model->graph);
    if (!final) {
        m_report["verification"] = {{"passed", false},
                                    {"engine", m_verifier->engine()},
                                    {"message", final.error().message}};
        m_exitCode = kExitFailure;
        return;
    }
    m_report["verification"] = {{"passed", final->passed},           {"engine", m_verifier->engine()},
                                {"precision", m_request.precision},  {"max_abs_diff", final->maxAbsDiff},
                                {"max_rel_diff", final->maxRelDiff}, {"message", final->message}};
    if (!final->passed)
        m_exitCode = kExitFailure;
}

nlohmann::json latencyJson(const LatencyResult &r)
{
    return nlohmann::json{{"median_ms", r.medianMs}, {"mean_ms", r.meanMs},      {"min_ms", r.minMs},
                          {"max_ms", r.maxMs},       {"p25_ms", r.p25Ms},        {"p75_ms", r.p75Ms},
                          {"runs", r.iterations},    {"samples_ms", r.samplesMs}};
}

/// torch.compile's timings of both graphs, or why there are none, into the
/// report's latency and the printed lines.
void addCompiledLatency(const LatencyComparison &latency, nlohmann::json &report, std::string &lines)
{
    if (const auto &c = latency.compiled) {
        auto stats = [](const CompiledStats &s) {
            return nlohmann::json{{"compile_seconds", s.compileSeconds},
                                  {"kernels", s.kernels},
                                  {"extern_calls", s.externCalls}};
        };
        report["compiled"] = {{"backend", "inductor"},
                              {"isa", c->isa},
                              {"freezing", c->freezing},
                              {"before", latencyJson(c->before)},
                              {"after", latencyJson(c->after)},
                              {"before_compile", stats(c->beforeStats)},
                              {"after_compile", stats(c->afterStats)},
                              {"speedup", c->speedup()},
                              {"notes", c->notes}};
        lines += "\n" + latency.compiledSummary() + "\n  before " + spreadText(c->before) + "\n  after  "
                 + spreadText(c->after);
        for (const std::string &note : c->notes)
            lines += "\n  note: " + note;
    } else if (!latency.compiledError.empty()) {
        report["compiled"] = {{"error", latency.compiledError}};
        lines += "\n" + latency.compiledSummary();
    }
}

// Measured, never modelled: both graphs run on the same inputs, timed runs
// alternating; a PT2 graph also where users run it, under torch.compile
// (Inductor, CPU), in the same rounds.
void RunJob::measureLatency()
{
    LatencyOptions &options = m_request.latency;
    std::cerr << "measuring latency: " << options.iterations << " runs of each graph after " << options.warmup
              << " warm-up\n";
    options.bridge = m_bridge.get();
    options.status = [](const std::string &text) { std::cerr << "  " << text << "\n"; };
    auto latency = compareLatency(*m_original, m_model->graph, options);
    if (!latency) {
        std::cerr << "fusebox-pass run: cannot measure latency: " << latency.error().message << "\n";
        m_report["latency"] = {{"error", latency.error().message}};
        m_exitCode = kExitFailure;
        return;
    }
    m_report["latency"] = {{"engine", latency->engine},
                           {"warmup", latency->warmup},
                           {"before", latencyJson(latency->before)},
                           {"after", latencyJson(latency->after)},
                           {"speedup", latency->speedup()}};
    m_latencyLine = "latency: " + latency->summary() + "\n  before " + spreadText(latency->before) + "\n  after  "
                    + spreadText(latency->after);
    addCompiledLatency(*latency, m_report["latency"], m_latencyLine);
}

std::optional<int> RunJob::write()
{
    const auto writeStart = std::chrono::steady_clock::now();
    const Graph &graph = m_model->graph;
    const std::string &output = m_request.output;
    // A .pt is for stock PyTorch: Fusebox's own ops go out as the ATen ops
    // they are defined by, unless asked to keep them.
    Graph decomposed;
    const Graph *toWrite = &graph;
    if (outputFormatOf(output) == OutputFormat::TorchScript) {
        std::vector<std::string> ops;
        if (m_args.has("--keep-fusebox-ops")) {
            ops = fuseboxOpsIn(graph);
            if (!ops.empty())
                std::cerr << "fusebox-pass run: warning: " << output << " keeps " << joinNames(ops)
                          << ", which stock PyTorch does not have: torch.jit.load needs them registered "
                             "(core/torch/FuseboxOps.h)\n";
            m_report["fusebox_ops_kept"] = ops;
        } else {
            decomposed = decomposeFuseboxOps(graph, &ops);
            toWrite = &decomposed;
            if (!ops.empty())
                std::cerr << "fusebox-pass run: note: wrote " << joinNames(ops)
                          << " as the ATen ops each is defined by, so that stock PyTorch loads " << output
                          << " (--keep-fusebox-ops keeps them)\n";
            m_report["fusebox_ops_decomposed"] = ops;
        }
    }
    if (m_request.forPyTorch2) {
        const auto format = m_request.asModule ? pt2::Pt2ExportFormat::Module : pt2::Pt2ExportFormat::Archive;
        auto exported = pt2::exportForPyTorch2(*m_bridge, graph, *m_original, output, format);
        if (!exported) {
            std::cerr << "fusebox-pass run: " << exported.error().message << "\n";
            return kExitFailure;
        }
        m_report["export"] = {{"format", m_request.asModule ? "module" : "torch.export"},
                              {"files", exported->files},
                              {"passed", exported->check.passed},
                              {"max_abs_diff", exported->check.maxAbsDiff},
                              {"message", exported->check.message},
                              {"notes", exported->notes}};
        for (const std::string &note : exported->notes)
            std::cerr << "fusebox-pass run: note: " << note << "\n";
        m_exportLine = "loaded back in PyTorch 2 and run against the original: " + exported->check.message;
        if (!exported->check.passed)
            m_exitCode = kExitFailure;
    } else if (Status written = saveModel(*toWrite, output, /*embedWeights=*/true); !written) {
        std::cerr << "fusebox-pass run: " << written.error().message << "\n";
        return kExitFailure;
    }
    // passes: the schedule alone (under --schedule greedy, without the
    // comparison run of Inductor's schedule; with --verify, its checks included).
    m_report["seconds"] = {{"read", m_readSeconds}, {"passes", m_passesSeconds}, {"write", secondsSince(writeStart)}};
    return std::nullopt;
}

// REPORT.md: the Markdown the IDE's Export Review Report writes, with this
// command's own lines; anything else: the JSON.
std::optional<int> RunJob::writeReport()
{
    auto reportPath = m_args.value("--report");
    if (!reportPath)
        return std::nullopt;
    std::ofstream out(*reportPath);
    if (reportPath->ends_with(".md")) {
        const std::string verification = m_request.verify ? "verification (" + m_verifier->engine() + "): "
                                                                + m_report["verification"]["message"].get<std::string>()
                                                          : std::string();
        for (const std::string &line : {m_beyondLine, verification, m_latencyLine})
            if (!line.empty())
                m_summary.notes.push_back(line);
        out << reportMarkdown(m_summary);
    } else {
        out << m_report.dump(2) << "\n";
    }
    if (!out) {
        std::cerr << "fusebox-pass run: " << *reportPath << ": cannot write the report\n";
        return kExitFailure;
    }
    return std::nullopt;
}

void RunJob::printSummary() const
{
    const DriverResult &result = m_result;
    const bool greedy = m_request.greedy;
    const char *unit = greedy ? " round" : " pass";
    std::cout << m_request.model << ": " << result.rewrites.size() << " rewrite"
              << (result.rewrites.size() == 1 ? "" : "s") << " in " << result.rounds << unit
              << (result.rounds == 1 ? ""
                  : greedy           ? "s"
                                     : "es")
              << (result.converged ? "" : " (NOT converged: " + result.message + ")") << "; nodes "
              << result.nodesBefore << " -> " << result.nodesAfter << " (+" << result.nodesAdded << " -"
              << result.nodesRemoved << ")\n";
    for (const auto &[name, c] : result.counters) {
        std::cout << "  " << std::left << std::setw(34) << name << " matched " << c.matched << ", applied "
                  << c.applied;
        if (c.rejected)
            std::cout << ", rejected " << c.rejected;
        const int slower = m_undone.notFaster.count(name) ? m_undone.notFaster.at(name) : 0;
        if (c.failedVerification > size_t(slower))
            std::cout << ", failed verification " << c.failedVerification - slower;
        if (slower)
            std::cout << ", undone as not faster " << slower;
        std::cout << "\n";
    }
    if (!m_beyondLine.empty())
        std::cout << m_beyondLine << "\n";
    if (m_request.verify)
        std::cout << "verification (" << m_verifier->engine()
                  << "): " << m_report.at("verification").at("message").get<std::string>() << "\n";
    for (const std::string &line : {m_gateLine, m_latencyLine})
        if (!line.empty())
            std::cout << line << "\n";
    std::cout << "wrote " << m_request.output << (m_request.asModule ? " and its weights" : "") << "\n";
    if (!m_exportLine.empty())
        std::cout << m_exportLine << "\n";
}

} // namespace

int runJob(const ParsedArgs &args, RunRequest request)
{
    return RunJob(args, std::move(request)).run();
}

} // namespace fusebox::cli
