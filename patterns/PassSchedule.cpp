#include "patterns/PassSchedule.h"

#include "core/rewrite/InductorExplainer.h"
#include "core/rewrite/InductorSchedule.h"
#include "patterns/Catalog.h"

#include <algorithm>
#include <set>

namespace fusebox {

std::optional<PassSchedule> parsePassSchedule(std::string_view text)
{
    if (text == "inductor")
        return PassSchedule::Inductor;
    if (text == "greedy")
        return PassSchedule::Greedy;
    return std::nullopt;
}

const char *passScheduleName(PassSchedule schedule)
{
    return schedule == PassSchedule::Inductor ? "inductor" : "greedy";
}

std::vector<std::string> customPatternNames(const PatternSet &patterns)
{
    static const std::set<std::string> builtins = [] {
        std::set<std::string> names;
        const PatternSet catalog = builtinCatalog(); // all() points into it
        for (const Pattern *p : catalog.all())
            names.insert(p->name());
        return names;
    }();
    std::vector<std::string> custom;
    for (const Pattern *p : patterns.all())
        if (!builtins.count(p->name()))
            custom.push_back(p->name());
    return custom;
}

namespace {

InductorScheduleDriver inductorDriver(const PatternSet &patterns, const PassConfig &config, DriverOptions options)
{
    InductorScheduleDriver driver(patterns, config.preGradOrder, config.postGradOrder, std::move(options));
    driver.setAnyStagePatterns(customPatternNames(patterns));
    return driver;
}

} // namespace

std::string whyScheduleSkips(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config,
                             const Graph &graph, const Pattern &pattern)
{
    if (schedule == PassSchedule::Greedy)
        return {};
    const GraphStage stage = graphStage(graph);
    const std::vector<ScheduledPass> passes = inductorDriver(patterns, config, {}).schedule(stage, &graph);
    if (std::any_of(passes.begin(), passes.end(), [&](const ScheduledPass &p) { return p.pattern == pattern.name(); }))
        return {};
    const std::string passStage(toString(pattern.stage()));
    if (!runsOnStage(pattern.stage(), stage))
        return "a " + passStage + " pass: Inductor's schedule runs only " + std::string(toString(stage))
               + " passes on this " + (stage == GraphStage::PreGrad ? "Dynamo (torch-level)" : "ATen") + " graph";
    if (inductorRegistersNoPattern(pattern.name()))
        return "Inductor registers no pattern for " + pattern.name() + ": its pass changes nothing";
    if (std::string why = droppedForDevices(pattern, graph); !why.empty())
        return why;
    return "not in Inductor's " + std::string(toString(stage)) + " schedule under this pass config";
}

DriverResult runPassSchedule(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config, Graph &graph,
                             DriverOptions options, EditLog *log, DriverListener *listener)
{
    if (schedule == PassSchedule::Greedy)
        return GreedyDriver(patterns, std::move(options)).run(graph, log, listener);
    return inductorDriver(patterns, config, std::move(options)).run(graph, log, listener);
}

std::vector<Explanation> explainForSchedule(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config,
                                            const Graph &graph, const Pattern &pattern, std::vector<NodeId> nodes)
{
    if (schedule == PassSchedule::Inductor)
        return explainInInductorSchedule(graph, inductorDriver(patterns, config, {}), pattern, std::move(nodes));
    if (nodes.empty())
        nodes = rootNodes(graph, pattern);
    HorizontalSearchResult search; // one search serves every node
    const bool horizontal = pattern.family() == PatternFamily::Horizontal && pattern.unavailableReason().empty();
    if (horizontal && nodes.size() > 1)
        search = searchHorizontal(graph, static_cast<const HorizontalPattern &>(pattern));
    std::vector<Explanation> explanations;
    for (NodeId id : nodes)
        explanations.push_back(explain(graph, pattern, id, horizontal && nodes.size() > 1 ? &search : nullptr));
    return explanations;
}

NearMissSummary nearMissesForSchedule(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config,
                                      const Graph &graph, const Pattern &pattern)
{
    if (schedule == PassSchedule::Greedy)
        return nearMisses(graph, pattern);
    return summarizeNearMisses(pattern.name(), explainForSchedule(schedule, patterns, config, graph, pattern));
}

} // namespace fusebox
