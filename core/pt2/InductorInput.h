#pragma once
// What the bridge's `inductor` op is given for a graph Fusebox has open: the
// CLI's compare-inductor and the IDE's Compare with Inductor send the same.

#include "core/io/PassConfig.h"
#include "core/ir/Graph.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fusebox::pt2 {

/// The FX text to send to Inductor for `graph`: the file's own text when the
/// graph was read from FX text (metadata "source.format" starts with
/// "fx-text") and the file (`path`, else metadata "source.path") can be read,
/// else writeFxText(graph).
std::string graphTextForInductor(const Graph &graph, const std::string &path = {});

/// The tensor placeholders as runInductor's `inputs`, [{name, shape, dtype}],
/// or null when one has no static shape or no dtype. SymInt placeholders are
/// left out: the bridge gives them their hint.
nlohmann::json inductorInputsOf(const Graph &graph);

/// `config` narrowed to the passes the bridge's Inductor has (`passes`: the
/// `inductor_passes` op's result, {"pre_grad": [...], "post_grad": [...]}):
/// Fusebox's catalog has rules newer than some torch versions, and the
/// `inductor` op refuses a config naming a pass it lacks. The names left out
/// go to `leftOut` (in config order) when non-null.
PassConfig passesInductorHas(PassConfig config, const nlohmann::json &passes,
                             std::vector<std::string> *leftOut = nullptr);

} // namespace fusebox::pt2
