#include "Commands.h"

#include "core/rewrite/GreedyDriver.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>

namespace fusebox::cli {
namespace {

int runMatches(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass matches: expected one MODEL argument (see --help)\n";
        return kExitUsage;
    }
    auto patterns = patternsForCommand(args, "matches");
    if (!patterns)
        return kExitFailure;
    if (auto only = args.value("--pattern")) {
        if (!patterns->find(*only)) {
            std::cerr << "fusebox-pass matches: unknown pattern '" << *only
                      << "' (see `fusebox-pass explain --help` for the list)\n";
            return kExitUsage;
        }
        patterns->disableAll();
        patterns->setEnabled(*only, true);
    }
    auto model = loadModelForCommand(args, "matches");
    if (!model)
        return kExitFailure;
    const Graph &g = model->graph;
    std::vector<Match> matches = GreedyDriver(*patterns).findMatches(g);

    if (args.has("--json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const Match &m : matches) {
            nlohmann::json nodes = nlohmann::json::array();
            for (NodeId id : m.nodes)
                nodes.push_back(g.node(id)->name);
            list.push_back({{"pattern", m.pattern},
                            {"anchor", g.node(m.anchor)->name},
                            {"benefit", m.benefit},
                            {"nodes", nodes},
                            {"key", m.key},
                            {"signature", matchSignature(g, m)}});
        }
        std::cout << list.dump(2) << "\n";
        return kExitOk;
    }
    std::cout << matches.size() << " candidate match" << (matches.size() == 1 ? "" : "es") << " in "
              << args.positionals[0] << " (the first round, in the order the driver applies them)\n";
    for (const Match &m : matches) {
        std::cout << "  " << std::left << std::setw(34) << m.pattern << " at %" << std::setw(20)
                  << g.node(m.anchor)->name << " " << std::right << std::setw(3) << m.nodes.size() << " nodes";
        if (!m.key.empty())
            std::cout << "  key: " << m.key;
        std::cout << "\n";
    }
    return kExitOk;
}

} // namespace

Command matchesCommand()
{
    return {"matches",
            "matches MODEL [--pattern NAME] [--config passes.json] [--patterns FILE] [--json]",
            "list the candidate matches the greedy engine finds",
            "Finds every candidate match of the enabled rules on MODEL without rewriting:\n"
            "vertical matches at each anchor node and horizontal groups from Inductor's\n"
            "greedy search, in the order the driver would apply them (benefit first).",
            {{"--pattern", "NAME", "only this rule"},
             configOption(),
             inductorVersionOption(),
             patternsOption(),
             {"--json", "", "print the matches as JSON"},
             inputShapeOption(),
             warningsOption(),
             shapesOption(),
             shapesFromPytorchOption()},
            runMatches};
}

} // namespace fusebox::cli
