// --schedule: which driver runs the patterns.
#include "Commands.h"

#include "patterns/PassSchedule.h"

#include <iostream>

namespace fusebox::cli {

OptionSpec scheduleOption()
{
    return {"--schedule", "inductor|greedy",
            "inductor (the default): the passes in Inductor's order (of the --inductor-version profile), each over the "
            "whole graph once "
            "(pre-grad split/cat passes `counter` times), on the stage the graph is at; greedy: Fusebox's "
            "own search, every rule of both stages in benefit order, round after round to a fixed point"};
}

std::optional<DriverResult> runSchedule(const ParsedArgs &args, const std::string &commandName,
                                        const PatternSet &patterns, const PassConfig &config, Graph &graph,
                                        DriverOptions options, DriverListener *listener)
{
    const std::string name = args.value("--schedule").value_or("inductor");
    const std::optional<PassSchedule> schedule = parsePassSchedule(name);
    if (!schedule) {
        std::cerr << "fusebox-pass " << commandName << ": --schedule '" << name << "': expected inductor or greedy\n";
        return std::nullopt;
    }
    DriverResult result = runPassSchedule(*schedule, patterns, config, graph, std::move(options), nullptr, listener);
    for (const std::string &note : result.notes)
        std::cerr << "note: " << note << "\n";
    return result;
}

} // namespace fusebox::cli
