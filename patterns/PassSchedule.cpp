#include "patterns/PassSchedule.h"

#include "core/rewrite/InductorSchedule.h"
#include "patterns/Catalog.h"

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

DriverResult runPassSchedule(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config,
                             Graph &graph, DriverOptions options, EditLog *log, DriverListener *listener)
{
    if (schedule == PassSchedule::Greedy)
        return GreedyDriver(patterns, std::move(options)).run(graph, log, listener);
    InductorScheduleDriver driver(patterns, config.preGradOrder, config.postGradOrder, std::move(options));
    driver.setAnyStagePatterns(customPatternNames(patterns));
    return driver.run(graph, log, listener);
}

} // namespace fusebox
