// fusebox-pass compare-inductor GRAPH --config passes.json: Fusebox's rewrite
// beside the one Inductor's own passes make, through the PyTorch 2 bridge.
#include "Commands.h"

#include "core/io/FxText.h"
#include "core/io/JsonSupport.h"
#include "core/ir/GraphSignature.h"
#include "core/ir/GraphSummary.h"
#include "core/pt2/InductorComparison.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/PassConfiguration.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <set>

namespace fusebox::cli {
namespace {

using OpCounts = std::map<std::string, size_t>;

void printHistograms(const OpCounts &before, const OpCounts &fusebox, const OpCounts &inductor)
{
    std::set<std::string> ops;
    for (const auto *h : {&before, &fusebox, &inductor})
        for (const auto &[op, n] : *h)
            ops.insert(op);
    auto count = [](const OpCounts &h, const std::string &op) {
        auto it = h.find(op);
        return it == h.end() ? size_t{0} : it->second;
    };
    std::cout << "  " << std::left << std::setw(36) << "op" << std::right << std::setw(8) << "before" << std::setw(9)
              << "fusebox" << std::setw(10) << "inductor"
              << "\n";
    for (const std::string &op : ops) {
        const size_t b = count(before, op), f = count(fusebox, op), i = count(inductor, op);
        std::cout << (f == i ? "  " : "≠ ") << std::left << std::setw(36) << op << std::right << std::setw(8) << b
                  << std::setw(9) << f << std::setw(10) << i << "\n";
    }
}

/// Both sides of one comparison, for the report.
struct CompareReport {
    const std::string &path;
    const std::string &configPath;
    bool inductorSchedule;
    const Graph &before;
    const Graph &fusebox;
    const pt2::InductorComparison &compared;
    /// Fusebox's counters: counters["inductor"]'s names under Inductor's
    /// schedule, else rewrites applied per rule.
    nlohmann::json fuseboxCounters;
};

nlohmann::json fuseboxCountersOf(const DriverResult &fused, bool inductorSchedule)
{
    nlohmann::json counters = nlohmann::json::object();
    if (inductorSchedule)
        return nlohmann::json(fused.inductorCounters);
    for (const auto &[name, c] : fused.counters)
        if (c.applied)
            counters[name] = c.applied;
    return counters;
}

/// --save-inductor and --save-fusebox: false after a one-line error.
bool saveGraphs(const ParsedArgs &args, const pt2::InductorResult &inductor, const Graph &fusebox)
{
    for (auto [option, text] :
         {std::pair{"--save-inductor", inductor.graphText}, std::pair{"--save-fusebox", writeFxText(fusebox)}})
        if (auto out = args.value(option)) {
            if (Status s = json_support::writeTextFile(*out, text); !s) {
                std::cerr << "fusebox-pass compare-inductor: " << s.error().message << "\n";
                return false;
            }
        }
    return true;
}

void printCompareJson(const CompareReport &r)
{
    const pt2::InductorResult &inductor = r.compared.inductor;
    const auto &difference = r.compared.difference;
    nlohmann::json inductorCounters = nlohmann::json::object();
    for (const auto &[name, n] : inductor.counters)
        inductorCounters[name] = n;
    nlohmann::json report = {{"model", r.path},
                             {"config", r.configPath},
                             {"same", !difference.has_value()},
                             {"schedule", r.inductorSchedule ? "inductor" : "greedy"},
                             {"difference", difference ? difference->description : ""},
                             {"ops_before", summarize(r.before).opCounts},
                             {"fusebox",
                              {{"counters", r.fuseboxCounters},
                               {"nodes_after", r.fusebox.size()},
                               {"ops_after", summarize(r.fusebox).opCounts}}},
                             {"inductor",
                              {{"counters", inductorCounters},
                               {"nodes_after", r.compared.inductorGraph.size()},
                               {"ops_after", summarize(r.compared.inductorGraph).opCounts},
                               {"stage", inductor.stage},
                               {"seconds", inductor.seconds},
                               {"torch", inductor.torchVersion}}}};
    std::cout << report.dump(2) << "\n";
}

void printCompareText(const CompareReport &r)
{
    const pt2::InductorResult &inductor = r.compared.inductor;
    const Graph &inductorGraph = r.compared.inductorGraph;
    std::cout << r.path << " under " << r.configPath << " (Inductor " << inductor.torchVersion << ", " << inductor.stage
              << ")\n";
    std::cout << (r.inductorSchedule ? "counters (both as counters[\"inductor\"] names them):\n"
                                     : "counters (Fusebox: rewrites applied per rule; Inductor: "
                                       "counters[\"inductor\"]):\n");
    for (const auto &[name, n] : r.fuseboxCounters.items())
        std::cout << "  fusebox   " << std::left << std::setw(34) << name << " " << n << "\n";
    for (const auto &[name, n] : inductor.counters)
        std::cout << "  inductor  " << std::left << std::setw(34) << name << " " << n << "\n";
    std::cout << "nodes: " << r.before.size() << " before, " << r.fusebox.size() << " after Fusebox, "
              << inductorGraph.size() << " after Inductor\n";
    printHistograms(summarize(r.before).opCounts, summarize(r.fusebox).opCounts, summarize(inductorGraph).opCounts);
    std::printf("Inductor's passes took %.3f s (inside Python)\n", inductor.seconds);
    if (const auto &difference = r.compared.difference)
        std::cout << "DIFFERENT: " << difference->description << " (" << difference->onlyInA.size()
                  << " Fusebox nodes and " << difference->onlyInB.size() << " Inductor nodes without a counterpart)\n";
    else
        std::cout << "SAME: Fusebox's result is Inductor's, up to node names\n";
}

int runCompare(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass compare-inductor: expected one GRAPH argument (see --help)\n";
        return kExitUsage;
    }
    auto configPath = args.value("--config");
    if (!configPath) {
        std::cerr << "fusebox-pass compare-inductor: --config passes.json is required (the passes both run)\n";
        return kExitUsage;
    }
    auto control = requestControlFor(args, "compare-inductor");
    if (!control)
        return kExitUsage;
    auto configText = json_support::readTextFile(*configPath);
    if (!configText) {
        std::cerr << "fusebox-pass compare-inductor: " << configText.error().message << "\n";
        return kExitFailure;
    }
    PassConfig config;
    auto patterns = patternsForCommand(args, "compare-inductor", &config);
    if (!patterns)
        return kExitFailure;
    auto model = loadModelForCommand(args, "compare-inductor");
    if (!model)
        return kExitFailure;
    auto bridge = bridgeForCommand(args, "compare-inductor");
    if (!bridge)
        return kExitFailure;

    const std::string &path = args.positionals[0];
    Graph fusebox = model->graph.clone();
    DriverOptions options;
    options.isRejected = rejectionFilter(config);
    auto ran = runSchedule(args, "compare-inductor", *patterns, config, fusebox, options);
    if (!ran)
        return kExitUsage;
    auto compared = pt2::compareWithInductor(*bridge, model->graph, path, fusebox, *configText,
                                             pt2GraphSchemas().registry, *control);
    if (!compared) {
        std::cerr << "fusebox-pass compare-inductor: " << compared.error().message << "\n";
        return kExitFailure;
    }
    if (!saveGraphs(args, compared->inductor, fusebox))
        return kExitFailure;
    const bool inductorSchedule = args.value("--schedule").value_or("inductor") == "inductor";
    const CompareReport report{path,
                               *configPath,
                               inductorSchedule,
                               model->graph,
                               fusebox,
                               *compared,
                               fuseboxCountersOf(*ran, inductorSchedule)};
    if (args.has("--json"))
        printCompareJson(report);
    else
        printCompareText(report);
    return compared->difference ? kExitFailure : kExitOk;
}

} // namespace

Command compareInductorCommand()
{
    return {"compare-inductor",
            "compare-inductor GRAPH --config passes.json [--schedule inductor|greedy] [--json] [--python CMD] "
            "[--timeout SECONDS]",
            "run Fusebox's rules and Inductor's own passes on a graph and compare the results",
            "Rewrites GRAPH with Fusebox's rules under the pass config, and has PyTorch 2's\n"
            "Inductor run its own Optimus passes under the same config through the bridge\n"
            "(docs/pt2-bridge.md): pre_grad_passes on a torch-level (Dynamo) graph, the\n"
            "Optimus part of the post-grad passes on an ATen (AOT) graph. Prints both\n"
            "sides' counters (Inductor's exactly as counters[\"inductor\"] has them), the op\n"
            "histograms before and after, Inductor's time, and the first structural\n"
            "difference (graphs are compared up to node names). Exit status: 0 when the two\n"
            "results are the same graph, 1 when not (or on error), 2 bad usage.",
            {configOption(),
             inductorVersionOption(),
             patternsOption(),
             scheduleOption(),
             {"--json", "", "print the comparison as JSON"},
             {"--save-inductor", "OUT.py", "write Inductor's result graph as FX text"},
             {"--save-fusebox", "OUT.py", "write Fusebox's result graph as FX text"},
             pythonOption(),
             timeoutOption(),
             inputShapeOption(),
             warningsOption(),
             shapesOption(),
             shapesFromPytorchOption()},
            runCompare};
}

} // namespace fusebox::cli
