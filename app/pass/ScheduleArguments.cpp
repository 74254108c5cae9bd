// --schedule: which driver runs the patterns.
#include "Commands.h"

#include "core/rewrite/InductorSchedule.h"
#include "patterns/Catalog.h"

#include <iostream>

namespace fusebox::cli {

OptionSpec scheduleOption()
{
    return {"--schedule", "inductor|greedy",
            "inductor (the default): the passes in Inductor 2.6's order, each over the whole graph once "
            "(pre-grad split/cat passes `counter` times), on the stage the graph is at; greedy: Fusebox's "
            "own search, every rule of both stages in benefit order, round after round to a fixed point"};
}

std::optional<DriverResult> runSchedule(const ParsedArgs &args, const std::string &commandName,
                                        const PatternSet &patterns, const PassConfig &config, Graph &graph,
                                        DriverOptions options, DriverListener *listener)
{
    const std::string schedule = args.value("--schedule").value_or("inductor");
    if (schedule == "greedy")
        return GreedyDriver(patterns, std::move(options)).run(graph, nullptr, listener);
    if (schedule == "inductor") {
        InductorScheduleDriver driver(patterns, config.preGradOrder, config.postGradOrder, std::move(options));
        // Custom patterns (--patterns, the config's custom_patterns) run on
        // the graph given, whatever its stage.
        const PatternSet builtins = builtinCatalog();
        std::vector<std::string> custom;
        for (const Pattern *p : patterns.all())
            if (!builtins.find(p->name()))
                custom.push_back(p->name());
        driver.setAnyStagePatterns(std::move(custom));
        return driver.run(graph, nullptr, listener);
    }
    std::cerr << "fusebox-pass " << commandName << ": --schedule '" << schedule
              << "': expected inductor or greedy\n";
    return std::nullopt;
}

} // namespace fusebox::cli
