#pragma once
// Runs one pass config through Fusebox's Inductor schedule on a graph read
// from FX text: the shared harness of the tests whose expected graphs and
// counters come from Inductor's own run of the same graph and config.

#include "core/io/FxText.h"
#include "core/io/PassConfig.h"
#include "core/ir/ShapeInference.h"
#include "patterns/Catalog.h"
#include "patterns/InductorProfile.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"

#include <catch.hpp>

#include <map>
#include <string>
#include <string_view>

namespace fusebox::test {

/// The graph after the schedule and its non-zero counters["inductor"].
struct ScheduleRun {
    Graph graph;
    std::map<std::string, size_t> counters;
};

/// Reads `text` (as file `name`, with `schemas`), infers its shapes, and runs
/// the Inductor schedule of `version`'s profile under `configJson`.
inline ScheduleRun runInductorSchedule(const std::string &text, const OpSchemaRegistry &schemas,
                                       const std::string &configJson, std::string_view version, const std::string &name)
{
    auto config = readPassConfig(configJson, "config.json");
    REQUIRE(config.hasValue());
    PatternSet set = builtinCatalog();
    REQUIRE(configurePatterns(set, *config, *findInductorProfile(version)).isOk());
    auto loaded = readFxText(text, {&schemas, name});
    INFO((loaded ? "" : loaded.error().message));
    REQUIRE(loaded.hasValue());
    inferShapes(loaded->graph);
    ScheduleRun run{std::move(loaded->graph), {}};
    const DriverResult result = runPassSchedule(PassSchedule::Inductor, set, *config, run.graph);
    for (const auto &[counter, n] : result.inductorCounters)
        if (n)
            run.counters[counter] = n;
    return run;
}

/// "aten::slice(L_w_, 1, 0, 1024)": a call with its qualified op, arguments
/// and keywords, nodes by name.
inline std::string callText(const Graph &g, NodeId id)
{
    const Node &n = *g.node(id);
    auto nodeName = [&g](NodeId a) { return g.node(a)->name; };
    std::string s = n.op + "(";
    for (size_t i = 0; i < n.args().size(); ++i)
        s += (i ? ", " : "") + n.args()[i].toString(nodeName);
    for (const NamedArg &kw : n.kwargs())
        s += ", " + kw.name + "=" + kw.value.toString(nodeName);
    return s + ")";
}

} // namespace fusebox::test
