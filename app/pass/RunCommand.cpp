// `fusebox-pass run`: its options and help, read into a RunRequest before
// anything is loaded; RunJob.cpp does the work.
#include "Commands.h"
#include "RunRequest.h"

#include <iostream>
#include <tuple>
#include <utility>

namespace fusebox::cli {
namespace {

/// A count option's value ("--max-rounds 3"), at least `minimum`; nullopt
/// after a one-line error when it is not one.
std::optional<int> countOption(const ParsedArgs &args, const std::string &option, int64_t minimum)
{
    auto text = args.value(option);
    auto n = text ? parseShape(*text) : std::nullopt;
    if (!n || n->size() != 1 || (*n)[0] < minimum) {
        std::cerr << "fusebox-pass run: " << option << " '" << text.value_or("") << "' is not a count\n";
        return std::nullopt;
    }
    return static_cast<int>((*n)[0]);
}

/// The request, or nullopt after a one-line usage error.
std::optional<RunRequest> parseRunRequest(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass run: expected one MODEL argument (see --help)\n";
        return std::nullopt;
    }
    RunRequest r;
    r.model = args.positionals[0];
    auto output = args.value("-o");
    if (!output || outputFormatOf(*output) == OutputFormat::Unknown) {
        std::cerr << "fusebox-pass run: -o OUT.pt (TorchScript), -o OUT.json (graph JSON), -o OUT.py (FX text), "
                     "-o OUT.pt2 (torch.export) or -o OUT.py --module is required\n";
        return std::nullopt;
    }
    r.output = *output;
    r.asModule = args.has("--module");
    if (r.asModule && outputFormatOf(r.output) != OutputFormat::FxText) {
        std::cerr << "fusebox-pass run: --module writes OUT.py (a torch.nn.Module source) and OUT.weights.pt; "
                  << r.output << " is not a .py\n";
        return std::nullopt;
    }
    r.forPyTorch2 = r.asModule || outputFormatOf(r.output) == OutputFormat::Pt2Archive;
    for (auto [option, target] :
         {std::pair{"--precision", &r.precision}, std::pair{"--keep-faster-tolerance", &r.keepFasterTolerance}}) {
        auto text = args.value(option);
        if (!text)
            continue;
        try {
            *target = std::stod(*text);
        } catch (const std::exception &) {
            std::cerr << "fusebox-pass run: " << option << " '" << *text << "' is not a number\n";
            return std::nullopt;
        }
    }
    if (r.keepFasterTolerance <= -1) {
        std::cerr << "fusebox-pass run: --keep-faster-tolerance must be above -1 (-0.5: keep only what runs in half "
                     "the time)\n";
        return std::nullopt;
    }
    for (auto [option, target, minimum] :
         {std::tuple{"--max-rounds", &r.options.maxRounds, 0}, std::tuple{"--measure-runs", &r.latency.iterations, 1},
          std::tuple{"--measure-warmup", &r.latency.warmup, 0}}) {
        if (!args.value(option))
            continue;
        auto n = countOption(args, option, minimum);
        if (!n)
            return std::nullopt;
        *target = *n;
    }
    r.verify = args.has("--verify");
    r.measure = args.has("--measure");
    r.keepFaster = args.has("--keep-faster");
    r.greedy = args.value("--schedule").value_or("inductor") == "greedy";
    return r;
}

int runRun(const ParsedArgs &args)
{
    auto request = parseRunRequest(args);
    if (!request)
        return kExitUsage;
    return runJob(args, std::move(*request));
}

} // namespace

Command runCommand()
{
    return {
        "run",
        "run MODEL -o OUT.pt|OUT.json|OUT.py|OUT.pt2 [--module] [--config passes.json] [--patterns FILE] [--schedule "
        "inductor|greedy] [--verify] [--precision P] [--measure] [--keep-faster] [--report report.json|report.md]",
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
        "or faster (--keep-faster-tolerance); an undone rewrite is not tried again. With --schedule greedy the\n"
        "search then goes on from the faster graph (the report's keep_faster).",
        {{"-o", "OUT", "where to write the rewritten model (.pt, .json, .py or .pt2; required)"},
         configOption(),
         inductorVersionOption(),
         patternsOption(),
         {"--verify", "", "verify every rewrite numerically (Inductor's fx_passes_numeric_check)"},
         {"--strict", "",
          "exit 1 when any rule's answer depends on a shape Fusebox does not know (the model is still "
          "written; the report lists them under undecided)"},
         {"--precision", "P", "verification tolerance, absolute and relative (default 1e-4)"},
         {"--measure", "", "time the original and the rewritten graph on the same inputs (medians and spread)"},
         {"--keep-faster", "", "PT2 graphs: keep a rewrite only when torch.compile runs the graph faster with it"},
         {"--keep-faster-tolerance", "T",
          "--keep-faster keeps a rewrite whose compiled median is at most (1 + T) times the one before "
          "(default 0.03; -0.5 keeps only what halves it)"},
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
         inputShapeOption(),
         warningsOption(),
         shapesOption(),
         shapesFromPytorchOption()},
        runRun};
}

} // namespace fusebox::cli
