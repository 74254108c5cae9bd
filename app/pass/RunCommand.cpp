#include "Commands.h"
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

int runRun(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass run: expected one MODEL argument (see --help)\n";
        return kExitUsage;
    }
    auto output = args.value("-o");
    if (!output || outputFormatOf(*output) == OutputFormat::Unknown) {
        std::cerr << "fusebox-pass run: -o OUT.pt (TorchScript), -o OUT.json (graph JSON), -o OUT.py (FX text), "
                     "-o OUT.pt2 (torch.export) or -o OUT.py --module is required\n";
        return kExitUsage;
    }
    // What stock PyTorch 2 runs: made in PyTorch 2 through the bridge.
    const bool asModule = args.has("--module");
    if (asModule && outputFormatOf(*output) != OutputFormat::FxText) {
        std::cerr << "fusebox-pass run: --module writes OUT.py (a torch.nn.Module source) and OUT.weights.pt; "
                  << *output << " is not a .py\n";
        return kExitUsage;
    }
    const bool forPyTorch2 = asModule || outputFormatOf(*output) == OutputFormat::Pt2Archive;
    double precision = 1e-4;
    if (auto p = args.value("--precision")) {
        try {
            precision = std::stod(*p);
        } catch (const std::exception &) {
            std::cerr << "fusebox-pass run: --precision '" << *p << "' is not a number\n";
            return kExitUsage;
        }
    }
    DriverOptions options;
    if (auto rounds = args.value("--max-rounds")) {
        auto n = parseShape(*rounds);
        if (!n || n->size() != 1) {
            std::cerr << "fusebox-pass run: --max-rounds '" << *rounds << "' is not a count\n";
            return kExitUsage;
        }
        options.maxRounds = static_cast<int>((*n)[0]);
    }
    PassConfig config;
    auto patterns = patternsForCommand(args, "run", &config);
    if (!patterns)
        return kExitFailure;
    // Wall seconds of each phase, for the report (the benchmarks read them).
    using Clock = std::chrono::steady_clock;
    auto secondsSince = [](Clock::time_point start) {
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    const Clock::time_point readStart = Clock::now();
    auto model = loadModelForCommand(args, "run");
    if (!model)
        return kExitFailure;
    const double readSeconds = secondsSince(readStart);
    Graph &graph = model->graph;
    const bool verify = args.has("--verify");
    const bool measure = args.has("--measure");
    LatencyOptions latencyOptions;
    for (auto [option, target] : {std::pair{"--measure-runs", &latencyOptions.iterations},
                                  std::pair{"--measure-warmup", &latencyOptions.warmup}}) {
        if (auto text = args.value(option)) {
            auto n = parseShape(*text);
            if (!n || n->size() != 1 || (*n)[0] < (std::string(option) == "--measure-runs" ? 1 : 0)) {
                std::cerr << "fusebox-pass run: " << option << " '" << *text << "' is not a count\n";
                return kExitUsage;
            }
            *target = static_cast<int>((*n)[0]);
        }
    }
    const bool greedy = args.value("--schedule").value_or("inductor") == "greedy";
    // The graph as read, for the verifier and for greedy's comparison with
    // Inductor's schedule (a copy of every node: only when one needs it).
    std::optional<Graph> original;
    if (verify || greedy || measure || forPyTorch2)
        original = graph.clone();

    // One bridge (one Python) for everything this run does in PyTorch 2.
    std::shared_ptr<pt2::Pt2Bridge> bridge;
    std::string noBridge;
    const bool keepFaster = args.has("--keep-faster");
    if (keepFaster && !isPt2Graph(graph)) {
        std::cerr << "fusebox-pass run: --keep-faster times rewrites compiled by torch.compile, in PyTorch 2: "
                  << args.positionals[0] << " is not a PT2 graph (a Dynamo or AOT dump, FX text, torch.export)\n";
        return kExitUsage;
    }
    if ((isPt2Graph(graph) && (verify || measure || keepFaster)) || forPyTorch2) {
        auto found = pt2::Pt2Bridge::find(args.value("--python").value_or(""));
        if (found)
            bridge = std::move(*found);
        else
            noBridge = found.error().message;
        if (forPyTorch2 && !bridge) {
            std::cerr << "fusebox-pass run: cannot write " << *output << ": " << noBridge << "\n";
            return kExitFailure;
        }
        if (keepFaster && !bridge) {
            std::cerr << "fusebox-pass run: --keep-faster: " << noBridge << "\n";
            return kExitFailure;
        }
    }

    std::optional<RunVerifier> verifier;
    if (verify) {
        auto created = RunVerifier::create(*original, precision, bridge, noBridge);
        if (!created) {
            std::cerr << "fusebox-pass run: cannot verify " << args.positionals[0] << ": " << created.error().message
                      << "\n";
            return kExitFailure;
        }
        verifier = std::move(*created);
        if (!verifier->note().empty())
            std::cerr << "fusebox-pass run: note: " << verifier->note() << "\n";
        options.verifyRewrite = [&verifier](const Graph &g) { return (*verifier)(g); };
    }
    // --keep-faster: after verification, each rewrite is timed compiled
    // against the graph before it and undone when it is not faster.
    UndoRecorder undone;
    std::optional<pt2::CompiledGate> gate;
    if (keepFaster) {
        LatencyOptions gateOptions = latencyOptions;
        if (!args.value("--measure-runs"))
            gateOptions.iterations = 20;
        if (!args.value("--measure-warmup"))
            gateOptions.warmup = 3;
        gateOptions.bridge = bridge.get();
        gate.emplace(*bridge, graph, gateOptions);
        auto verifyFirst = std::move(options.verifyRewrite);
        options.verifyRewrite = [verifyFirst, &gate, &undone](const Graph &g) -> std::optional<std::string> {
            if (verifyFirst)
                if (auto failure = verifyFirst(g))
                    return failure;
            auto refused = (*gate)(g);
            undone.gateRefused = refused.has_value();
            return refused;
        };
    }
    options.isRejected = rejectionFilter(config);

    const Clock::time_point passesStart = Clock::now();
    auto ran = runSchedule(args, "run", *patterns, config, graph, options, &undone);
    if (!ran)
        return kExitUsage;
    const double passesSeconds = secondsSince(passesStart);
    const DriverResult &result = *ran;

    // The report model the IDE's review report shares (counters, rewrites,
    // undone, nodes); this command's own sections are added to its JSON.
    RewriteReport summary = rewriteReport(args.positionals[0], result);
    summary.undone = undone.undone;
    summary.inductor = patterns->inductorLabel();
    nlohmann::json report = reportJson(summary);
    report["output"] = *output;
    report["converged"] = result.converged;
    report["rounds"] = result.rounds;
    if (!result.message.empty())
        report["message"] = result.message;
    report["nodes_added"] = result.nodesAdded;
    report["nodes_removed"] = result.nodesRemoved;
    report["schedule"] = greedy ? "greedy" : "inductor";
    std::string gateLine;
    if (gate) {
        int kept = 0;
        nlohmann::json decisions = nlohmann::json::array();
        for (const pt2::GateDecision &d : gate->decisions()) {
            kept += d.kept ? 1 : 0;
            decisions.push_back({{"kept", d.kept}, {"before_ms", d.keptMs}, {"after_ms", d.candidateMs},
                                 {"error", d.error}});
        }
        const int timed = int(gate->decisions().size());
        report["keep_faster"] = {{"timed", timed}, {"kept", kept}, {"undone", timed - kept},
                                 {"decisions", decisions}};
        gateLine = "keep-faster: " + std::to_string(timed) + " rewrites timed compiled (torch.compile, Inductor CPU), "
                   + std::to_string(kept) + " kept, " + std::to_string(timed - kept) + " undone as not faster";
    }
    if (!greedy)
        report["inductor_counters"] = result.inductorCounters;
    // Fusebox's own search goes beyond Inductor: say how far, against
    // Inductor's schedule run on the same graph under the same config.
    std::string beyondLine;
    if (greedy) {
        Graph theirs = original->clone();
        DriverOptions plain;
        plain.isRejected = options.isRejected;
        const DriverResult inductor = runPassSchedule(PassSchedule::Inductor, *patterns, config, theirs, plain);
        nlohmann::json ours = nlohmann::json::object(), inductorApplied = nlohmann::json::object();
        for (const auto &[name, c] : result.counters)
            if (c.applied)
                ours[name] = c.applied;
        for (const auto &[name, c] : inductor.counters)
            if (c.applied)
                inductorApplied[name] = c.applied;
        const auto difference = firstStructuralDifference(graph, theirs);
        report["beyond_inductor"] = {{"inductor_schedule_nodes_after", theirs.size()},
                                     {"inductor_schedule_applied", inductorApplied},
                                     {"greedy_applied", ours},
                                     {"same_graph", !difference.has_value()},
                                     {"first_difference", difference ? difference->description : ""}};
        beyondLine = "beyond Inductor's schedule: " + std::to_string(result.nodesAfter) + " nodes here, "
                     + std::to_string(theirs.size()) + " after Inductor's schedule ("
                     + std::to_string(inductor.rewrites.size())
                     + (inductor.rewrites.size() == 1 ? " rewrite)" : " rewrites)")
                     + (difference ? "; first difference: " + difference->description : "; the same graph");
    }

    int exitCode = kExitOk;
    if (!reportUndecided(args, result))
        exitCode = kExitFailure;
    if (verify) {
        auto final = verifier->check(graph);
        if (!final) {
            report["verification"] = {{"passed", false}, {"engine", verifier->engine()},
                                      {"message", final.error().message}};
            exitCode = kExitFailure;
        } else {
            report["verification"] = {{"passed", final->passed}, {"engine", verifier->engine()}, {"precision", precision},
                                      {"max_abs_diff", final->maxAbsDiff}, {"max_rel_diff", final->maxRelDiff},
                                      {"message", final->message}};
            if (!final->passed)
                exitCode = kExitFailure;
        }
    }

    // Measured, never modelled: both graphs run on the same inputs, timed runs alternating.
    std::string latencyLine;
    if (measure) {
        std::cerr << "measuring latency: " << latencyOptions.iterations << " runs of each graph after "
                  << latencyOptions.warmup << " warm-up\n";
        latencyOptions.bridge = bridge.get();
        latencyOptions.status = [](const std::string &text) { std::cerr << "  " << text << "\n"; };
        auto latency = compareLatency(*original, graph, latencyOptions);
        if (!latency) {
            std::cerr << "fusebox-pass run: cannot measure latency: " << latency.error().message << "\n";
            report["latency"] = {{"error", latency.error().message}};
            exitCode = kExitFailure;
        } else {
            auto summary = [](const LatencyResult &r) {
                return nlohmann::json{{"median_ms", r.medianMs}, {"mean_ms", r.meanMs}, {"min_ms", r.minMs},
                                      {"max_ms", r.maxMs}, {"p25_ms", r.p25Ms}, {"p75_ms", r.p75Ms},
                                      {"runs", r.iterations}, {"samples_ms", r.samplesMs}};
            };
            report["latency"] = {{"engine", latency->engine}, {"warmup", latency->warmup},
                                 {"before", summary(latency->before)}, {"after", summary(latency->after)},
                                 {"speedup", latency->speedup()}};
            latencyLine = "latency: " + latency->summary() + "\n  before " + spreadText(latency->before)
                          + "\n  after  " + spreadText(latency->after);
            // Where users run: torch.compile (Inductor, CPU), timed in the same rounds.
            if (const auto &c = latency->compiled) {
                auto stats = [](const CompiledStats &s) {
                    return nlohmann::json{{"compile_seconds", s.compileSeconds}, {"kernels", s.kernels},
                                          {"extern_calls", s.externCalls}};
                };
                report["latency"]["compiled"] = {{"backend", "inductor"}, {"isa", c->isa}, {"freezing", c->freezing},
                                                 {"before", summary(c->before)}, {"after", summary(c->after)},
                                                 {"before_compile", stats(c->beforeStats)},
                                                 {"after_compile", stats(c->afterStats)},
                                                 {"speedup", c->speedup()}, {"notes", c->notes}};
                latencyLine += "\n" + latency->compiledSummary() + "\n  before " + spreadText(c->before)
                               + "\n  after  " + spreadText(c->after);
                for (const std::string &note : c->notes)
                    latencyLine += "\n  note: " + note;
            } else if (!latency->compiledError.empty()) {
                report["latency"]["compiled"] = {{"error", latency->compiledError}};
                latencyLine += "\n" + latency->compiledSummary();
            }
        }
    }

    const Clock::time_point writeStart = Clock::now();
    // A .pt is for stock PyTorch: Fusebox's own ops go out as the ATen ops
    // they are defined by, unless asked to keep them.
    Graph decomposed;
    const Graph *toWrite = &graph;
    if (outputFormatOf(*output) == OutputFormat::TorchScript) {
        std::vector<std::string> ops;
        if (args.has("--keep-fusebox-ops")) {
            ops = fuseboxOpsIn(graph);
            if (!ops.empty())
                std::cerr << "fusebox-pass run: warning: " << *output << " keeps " << joinNames(ops)
                          << ", which stock PyTorch does not have: torch.jit.load needs them registered "
                             "(core/torch/FuseboxOps.h)\n";
            report["fusebox_ops_kept"] = ops;
        } else {
            decomposed = decomposeFuseboxOps(graph, &ops);
            toWrite = &decomposed;
            if (!ops.empty())
                std::cerr << "fusebox-pass run: note: wrote " << joinNames(ops)
                          << " as the ATen ops each is defined by, so that stock PyTorch loads " << *output
                          << " (--keep-fusebox-ops keeps them)\n";
            report["fusebox_ops_decomposed"] = ops;
        }
    }
    std::string exportLine;
    if (forPyTorch2) {
        const auto format = asModule ? pt2::Pt2ExportFormat::Module : pt2::Pt2ExportFormat::Archive;
        auto exported = pt2::exportForPyTorch2(*bridge, graph, *original, *output, format);
        if (!exported) {
            std::cerr << "fusebox-pass run: " << exported.error().message << "\n";
            return kExitFailure;
        }
        report["export"] = {{"format", asModule ? "module" : "torch.export"}, {"files", exported->files},
                            {"passed", exported->check.passed}, {"max_abs_diff", exported->check.maxAbsDiff},
                            {"message", exported->check.message}, {"notes", exported->notes}};
        for (const std::string &note : exported->notes)
            std::cerr << "fusebox-pass run: note: " << note << "\n";
        exportLine = "loaded back in PyTorch 2 and run against the original: " + exported->check.message;
        if (!exported->check.passed)
            exitCode = kExitFailure;
    } else if (Status written = saveModel(*toWrite, *output, /*embedWeights=*/true); !written) {
        std::cerr << "fusebox-pass run: " << written.error().message << "\n";
        return kExitFailure;
    }
    // passes: the schedule alone (under --schedule greedy, without the
    // comparison run of Inductor's schedule; with --verify, its checks included).
    report["seconds"] = {{"read", readSeconds}, {"passes", passesSeconds}, {"write", secondsSince(writeStart)}};
    if (auto reportPath = args.value("--report")) {
        // REPORT.md: the Markdown the IDE's Export Review Report writes, with
        // this command's own lines; anything else: the JSON.
        const bool markdown = reportPath->ends_with(".md");
        std::ofstream out(*reportPath);
        if (markdown) {
            for (const std::string &line : {beyondLine, verify ? "verification (" + verifier->engine() + "): "
                                                                     + report["verification"]["message"].get<std::string>()
                                                               : std::string(),
                                            latencyLine})
                if (!line.empty())
                    summary.notes.push_back(line);
            out << reportMarkdown(summary);
        } else {
            out << report.dump(2) << "\n";
        }
        if (!out) {
            std::cerr << "fusebox-pass run: " << *reportPath << ": cannot write the report\n";
            return kExitFailure;
        }
    }

    const char *unit = greedy ? " round" : " pass";
    std::cout << args.positionals[0] << ": " << result.rewrites.size() << " rewrite"
              << (result.rewrites.size() == 1 ? "" : "s") << " in " << result.rounds << unit
              << (result.rounds == 1 ? "" : greedy ? "s" : "es") << (result.converged ? "" : " (NOT converged: " + result.message + ")")
              << "; nodes " << result.nodesBefore << " -> " << result.nodesAfter << " (+" << result.nodesAdded << " -"
              << result.nodesRemoved << ")\n";
    for (const auto &[name, c] : result.counters) {
        std::cout << "  " << std::left << std::setw(34) << name << " matched " << c.matched << ", applied "
                  << c.applied;
        if (c.rejected)
            std::cout << ", rejected " << c.rejected;
        const int slower = undone.notFaster.count(name) ? undone.notFaster.at(name) : 0;
        if (c.failedVerification > slower)
            std::cout << ", failed verification " << c.failedVerification - slower;
        if (slower)
            std::cout << ", undone as not faster " << slower;
        std::cout << "\n";
    }
    if (!beyondLine.empty())
        std::cout << beyondLine << "\n";
    if (verify)
        std::cout << "verification (" << verifier->engine()
                  << "): " << report["verification"]["message"].get<std::string>() << "\n";
    if (!gateLine.empty())
        std::cout << gateLine << "\n";
    if (!latencyLine.empty())
        std::cout << latencyLine << "\n";
    std::cout << "wrote " << *output << (asModule ? " and its weights" : "") << "\n";
    if (!exportLine.empty())
        std::cout << exportLine << "\n";
    // The process ends now: freeing the graphs node by node would take longer
    // than a 100k-node run's passes (clang's -disable-free, for the same reason).
    leakAtExit(std::move(*model));
    if (original)
        leakAtExit(std::move(*original));
    return exitCode;
}

} // namespace

Command runCommand()
{
    return {"run",
            "run MODEL -o OUT.pt|OUT.json|OUT.py|OUT.pt2 [--module] [--config passes.json] [--patterns FILE] [--schedule inductor|greedy] [--verify] [--precision P] [--measure] [--keep-faster] [--report report.json|report.md]",
            "apply the rules as Inductor does (or greedily) and write the rewritten model",
            "Runs the enabled rules (all built-in rules, or those named by --config),\n"
            "skipping the config's rejected matches, and writes the rewritten model. By\n"
            "default they run as Inductor runs its passes (the --inductor-version profile,\n"
            "named on stderr): in the config's\n"
            "order, each over the whole graph, on the stage the graph is at (pre-grad for\n"
            "a Dynamo graph, post-grad for an ATen one, both for TorchScript); the report's\n"
            "inductor_counters read like counters[\"inductor\"]. --schedule greedy runs\n"
            "Fusebox's own search instead: every rule in benefit order, round after round,\n"
            "until no rule fires; it then also runs Inductor's schedule on the same graph\n"
            "and says how far it went beyond (the report's beyond_inductor).\n"
            "OUT.pt loads with torch.jit.load (Fusebox's own fused ops are written as the\n"
            "ATen ops they are defined by, unless --keep-fusebox-ops); OUT.json is graph\n"
            "JSON with weights; OUT.py is print_readable()-style FX text. For stock\n"
            "PyTorch 2, made in PyTorch 2 through the bridge: OUT.pt2 is a torch.export\n"
            "archive (torch.export.load(OUT).module()(*inputs)), and OUT.py --module a\n"
            "torch.nn.Module source with its constants in OUT.weights.pt (import OUT;\n"
            "OUT.load()(*inputs)); both are loaded back there and run against the\n"
            "original (exit status 1 when their outputs differ). MODEL may be\n"
            "TorchScript, a torch.export .pt2, an FX text dump or graph JSON.\n"
            "--verify runs the original and the graph after every rewrite on the same\n"
            "random inputs; a rewrite whose outputs differ by more than precision\n"
            "(absolute + relative) is undone and reported, naming its pattern, output,\n"
            "element and both values. A PT2 graph (FX text, torch.export) runs in\n"
            "PyTorch 2 through the bridge, as the IDE verifies it (libtorch 1.13 only\n"
            "when no PyTorch 2 is set up, with a note); any other graph in libtorch.\n"
            "The exit status is 1 when the final verification fails.\n"
            "--measure times the original and the rewritten graph on the same random\n"
            "inputs: warm-up runs of each, then timed rounds alternating between them;\n"
            "it prints medians, the middle half and the range of each, and the\n"
            "speed-up of the medians (the report's latency). A PT2 graph is timed in\n"
            "PyTorch 2 eagerly and compiled by torch.compile (Inductor, CPU, its own\n"
            "Optimus passes off), with the kernels and extern calls Inductor made of\n"
            "each; any other graph in libtorch 1.13's executor.\n"
            "--keep-faster (PT2 graphs) times every rewrite, once verified, compiled by\n"
            "torch.compile against the graph before it (--measure-runs rounds, default\n"
            "20) and undoes it unless the compiled median is within 3% of the one before\n"
            "or faster; an undone rewrite is not tried again. With --schedule greedy the\n"
            "search then goes on from the faster graph (the report's keep_faster).",
            {{"-o", "OUT", "where to write the rewritten model (.pt, .json, .py or .pt2; required)"},
             configOption(), inductorVersionOption(),
             patternsOption(),
             {"--verify", "", "verify every rewrite numerically (Inductor's fx_passes_numeric_check)"},
             {"--strict", "",
              "exit 1 when any rule's answer depends on a shape Fusebox does not know (the model is still "
              "written; the report lists them under undecided)"},
             {"--precision", "P", "verification tolerance, absolute and relative (default 1e-4)"},
             {"--measure", "", "time the original and the rewritten graph on the same inputs (medians and spread)"},
             {"--keep-faster", "", "PT2 graphs: keep a rewrite only when torch.compile runs the graph faster with it"},
             {"--measure-runs", "N", "--measure: timed runs of each graph (default 30; --keep-faster: 20 per rewrite)"},
             {"--measure-warmup", "N", "--measure: untimed runs of each graph first (default 5; --keep-faster: 3)"},
             {"--report", "report.json",
              "write a JSON report: counters per rule, nodes, verification, seconds per phase (report.md: Markdown, "
              "as the IDE's review report)"},
             scheduleOption(),
             {"--max-rounds", "N", "--schedule greedy: give up after N rounds (default 10)"},
             {"--module", "",
              "with -o OUT.py: write a torch.nn.Module source for stock PyTorch 2 (and OUT.weights.pt) instead of "
              "FX text"},
             pythonOption(),
             {"--keep-fusebox-ops", "",
              "OUT.pt: keep Fusebox's own ops (fusebox::linear_relu, ...) instead of writing each as its ATen "
              "ops; stock PyTorch cannot load such an archive (a warning names them)"},
             inputShapeOption(), warningsOption(), shapesOption(), shapesFromPytorchOption()},
            runRun};
}

} // namespace fusebox::cli
