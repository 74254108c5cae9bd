#pragma once
// Which driver runs a pass config's rules: Inductor 2.6's schedule (the
// default everywhere) or Fusebox's own benefit-ordered search. The CLI's
// --schedule, the IDE's Rewrite ▸ Schedule and the oracle suite choose here.

#include "core/io/PassConfig.h"
#include "core/rewrite/Explainer.h"
#include "core/rewrite/GreedyDriver.h"

#include <optional>
#include <string_view>

namespace fusebox {

enum class PassSchedule {
    Inductor, ///< InductorScheduleDriver: the passes as Inductor 2.6 runs them
    Greedy,   ///< GreedyDriver: every rule of both stages, benefit order, to a fixed point
};

/// "inductor" / "greedy"; nullopt for anything else.
std::optional<PassSchedule> parsePassSchedule(std::string_view text);
const char *passScheduleName(PassSchedule schedule);

/// The names of `patterns` that are not built-in rules (custom patterns from
/// pattern files or a config's custom_patterns), in the set's order.
std::vector<std::string> customPatternNames(const PatternSet &patterns);

/// Runs the enabled patterns on `graph` under `schedule`. Inductor's schedule
/// takes the passes' order from config (preGradOrder/postGradOrder) and runs
/// custom patterns after the stage's passes, on a graph of any stage.
DriverResult runPassSchedule(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config, Graph &graph,
                             DriverOptions options = {}, EditLog *log = nullptr, DriverListener *listener = nullptr);

/// Why `schedule` leaves `pattern` out on `graph`, in one line; empty when it
/// runs it. The greedy search runs every enabled pattern; Inductor's schedule
/// runs a stage's passes only on a graph of that stage, only those the config
/// names and the graph's devices keep, and custom patterns on any graph.
/// Find Matches marks a candidate with it: Apply All will not apply it.
std::string whyScheduleSkips(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config,
                             const Graph &graph, const Pattern &pattern);

/// Explains `pattern` at `nodes` (every node with one of its root ops when
/// empty) for `schedule`: Inductor's answers in the state its schedule meets
/// the graph in (explainInInductorSchedule), or the greedy search's on the
/// graph as it is (explain).
std::vector<Explanation> explainForSchedule(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config,
                                            const Graph &graph, const Pattern &pattern, std::vector<NodeId> nodes = {});

/// The near-miss summary of `pattern` for `schedule` (see explainForSchedule).
NearMissSummary nearMissesForSchedule(PassSchedule schedule, const PatternSet &patterns, const PassConfig &config,
                                      const Graph &graph, const Pattern &pattern);

} // namespace fusebox
