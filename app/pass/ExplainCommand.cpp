#include "Commands.h"

#include "core/rewrite/Explainer.h"
#include "patterns/PassSchedule.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <variant>

namespace fusebox::cli {
namespace {

nlohmann::json checksJson(const Graph &g, const Explanation &e)
{
    nlohmann::json checks = nlohmann::json::array();
    for (const Check &c : e.checks) {
        nlohmann::json nodes = nlohmann::json::array();
        for (NodeId id : c.nodes)
            if (const Node *n = g.node(id))
                nodes.push_back(n->name);
        checks.push_back({{"check", c.description},
                          {"passed", c.passed},
                          {"actual", c.actual},
                          {"nodes", nodes},
                          {"source", c.source},
                          {"fusebox_only", c.fuseboxOnly},
                          {"undecided", c.undecided}});
    }
    return checks;
}

void printTrace(const Explanation &e)
{
    // Each check's source once, where it changes: "in <2.6 code>" or
    // "Fusebox only: why".
    std::string lastSource;
    for (const Check &c : e.checks) {
        if (c.source != lastSource && !c.source.empty())
            std::cout << "        " << (c.fuseboxOnly ? "" : "in ") << c.source << "\n";
        lastSource = c.source;
        std::cout << "  " << (c.passed ? "pass  " : (c.undecided ? "?     " : "FAIL  ")) << c.description
                  << (c.actual.empty() ? "" : "  — " + c.actual) << "\n";
    }
    std::cout << (e.matched ? "=> fires" : (e.undecided() ? "=> cannot tell: " : "=> does not fire: ") + e.summary)
              << "\n";
}

std::string patternList(const PatternSet &patterns)
{
    std::string list;
    for (const Pattern *p : patterns.all())
        list += (list.empty() ? "" : ", ") + p->name();
    return list;
}

/// What explain is asked about: the rule, in which schedule, on which graph.
struct ExplainRequest {
    PassSchedule schedule;
    PassConfig config;
    PatternSet patterns;
    const Pattern *pattern;
    bool json;
};

/// --node: the rule at one node, every check with its values.
int explainNode(const ExplainRequest &r, const Graph &g, const std::string &nodeName, const std::string &path)
{
    NodeId id = g.findByName(nodeName);
    if (!id.isValid() && !nodeName.empty() && nodeName[0] == '%')
        id = g.findByName(nodeName.substr(1));
    if (!id.isValid()) {
        std::cerr << "fusebox-pass explain: no node named '" << nodeName << "' in " << path << "\n";
        return kExitFailure;
    }
    Explanation e = explainForSchedule(r.schedule, r.patterns, r.config, g, *r.pattern, {id}).front();
    if (r.json) {
        std::cout << nlohmann::json{{"pattern", e.pattern},
                                    {"node", g.node(id)->name},
                                    {"matched", e.matched},
                                    {"undecided", e.undecided()},
                                    {"schedule", passScheduleName(r.schedule)},
                                    {"context", e.context},
                                    {"summary", e.summary},
                                    {"checks", checksJson(g, e)}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << r.pattern->name() << " at %" << g.node(id)->name << " (" << e.context << "):\n";
        printTrace(e);
    }
    return kExitOk;
}

void printNearMissesJson(const ExplainRequest &r, const Graph &g, const NearMissSummary &summary)
{
    nlohmann::json groups = nlohmann::json::array();
    for (const NearMissGroup &group : summary.groups) {
        nlohmann::json nodes = nlohmann::json::array();
        for (const Explanation &e : group.nodes)
            nodes.push_back({{"node", g.node(e.node)->name}, {"summary", e.summary}});
        groups.push_back({{"check", group.check}, {"best_progress", group.bestProgress}, {"nodes", nodes}});
    }
    std::cout << nlohmann::json{{"pattern", summary.pattern},
                                {"schedule", passScheduleName(r.schedule)},
                                {"attempted", summary.attempted},
                                {"matched", summary.matched},
                                {"near_misses", groups}}
                     .dump(2)
              << "\n";
}

void printNearMisses(const ExplainRequest &r, const Graph &g, const NearMissSummary &summary)
{
    std::cout << summary.pattern
              << (r.schedule == PassSchedule::Inductor ? " in " + r.patterns.inductorLabel() + "'s schedule"
                                                       : std::string(" in Fusebox's greedy search"))
              << ": attempted at " << summary.attempted << " node" << (summary.attempted == 1 ? "" : "s")
              << ", fires at " << summary.matched << "\n";
    if (!r.pattern->unavailableReason().empty())
        std::cout << "  unavailable: " << r.pattern->unavailableReason() << "\n";
    for (const NearMissGroup &group : summary.groups) {
        std::cout << "\n  failed \"" << group.check << "\" at " << group.nodes.size() << " node"
                  << (group.nodes.size() == 1 ? "" : "s") << " (furthest got " << group.bestProgress
                  << " checks in):\n";
        size_t shown = 0;
        for (const Explanation &e : group.nodes) {
            if (++shown > 8) {
                std::cout << "    ... " << group.nodes.size() - 8 << " more\n";
                break;
            }
            const Check *f = e.failure();
            std::cout << "    %" << g.node(e.node)->name << ": " << (f && !f->actual.empty() ? f->actual : e.summary)
                      << "\n";
        }
    }
}

/// The request, or the exit status after a one-line error.
std::variant<ExplainRequest, int> parseExplainRequest(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass explain: expected one MODEL argument (see --help)\n";
        return kExitUsage;
    }
    auto patternName = args.value("--pattern");
    if (!patternName) {
        std::cerr << "fusebox-pass explain: --pattern NAME is required\n";
        return kExitUsage;
    }
    const std::string scheduleName = args.value("--schedule").value_or("inductor");
    const std::optional<PassSchedule> schedule = parsePassSchedule(scheduleName);
    if (!schedule) {
        std::cerr << "fusebox-pass explain: --schedule '" << scheduleName << "': expected inductor or greedy\n";
        return kExitUsage;
    }
    PassConfig config;
    auto patterns = patternsForCommand(args, "explain", &config);
    if (!patterns)
        return kExitFailure;
    if (!patterns->find(*patternName)) {
        std::cerr << "fusebox-pass explain: unknown pattern '" << *patternName << "'; known: " << patternList(*patterns)
                  << "\n";
        return kExitUsage;
    }
    ExplainRequest request{*schedule, std::move(config), std::move(*patterns), nullptr, args.has("--json")};
    request.pattern = request.patterns.find(*patternName); // found in the set's final home
    return request;
}

int runExplain(const ParsedArgs &args)
{
    auto parsed = parseExplainRequest(args);
    if (const int *exit = std::get_if<int>(&parsed))
        return *exit;
    const ExplainRequest &r = std::get<ExplainRequest>(parsed);
    auto model = loadModelForCommand(args, "explain");
    if (!model)
        return kExitFailure;
    const Graph &g = model->graph;
    if (auto nodeName = args.value("--node"))
        return explainNode(r, g, *nodeName, args.positionals[0]);
    const NearMissSummary summary = nearMissesForSchedule(r.schedule, r.patterns, r.config, g, *r.pattern);
    if (r.json)
        printNearMissesJson(r, g, summary);
    else
        printNearMisses(r, g, summary);
    return kExitOk;
}

} // namespace

Command explainCommand()
{
    return {"explain",
            "explain MODEL --pattern NAME [--node NODE] [--schedule inductor|greedy] [--config passes.json] "
            "[--patterns FILE] [--json]",
            "say why a rule fires or not: a node's check trace, or the near-miss summary",
            "With --node, prints the ordered checks the rule makes at that node, each with\n"
            "pass/fail and the values seen (the same code path the engine runs), and\n"
            "where each check is made: the Inductor code that applies it (file:line as\n"
            "PyTorch 2.6.0 has it), or \"Fusebox only\" and why for a check Inductor does\n"
            "not make. Without --node, prints the\n"
            "near-miss summary: every node where the rule was tried and failed, grouped by\n"
            "the failed check, furthest attempts first.\n"
            "\n"
            "By default the answer is Inductor's: the schedule of `run` goes up to the\n"
            "rule's pass, and the rule is explained on the graph as that pass meets it,\n"
            "after the graph's stage, the config and the passes before it had their say.\n"
            "--schedule greedy explains Fusebox's own search on the graph as it is.",
            {{"--pattern", "NAME", "the rule to explain (required)"},
             {"--node", "NODE", "the node's name (as `inspect`/the app shows it)"},
             {"--schedule", "inductor|greedy",
              "whose answer: Inductor's schedule, as the --inductor-version profile has it (the default), or "
              "Fusebox's greedy search"},
             configOption(),
             inductorVersionOption(),
             patternsOption(),
             {"--json", "", "print as JSON"},
             inputShapeOption(),
             warningsOption(),
             shapesOption(),
             shapesFromPytorchOption()},
            runExplain};
}

} // namespace fusebox::cli
