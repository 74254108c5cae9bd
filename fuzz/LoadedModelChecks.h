#pragma once
// The contract a reader's loaded model keeps, checked the same way by every
// target that loads one (export_json, pt2_archive, torchscript).

#include "FuzzSupport.h"

#include "core/io/GraphJson.h"
#include "core/io/LoadedModel.h"
#include "core/ir/GraphCompare.h"

namespace fusebox::fuzz {

/// Every warning is one line, and the graph survives a graph JSON round
/// trip (weights embedded) unchanged, and with `stableWrite` the graph read
/// back writes the same text again; aborts through contractBroken otherwise.
inline void checkLoadedModel(const char *target, const LoadedModel &model, bool stableWrite = false)
{
    for (const std::string &warning : model.warnings)
        if (!isOneLine(warning))
            contractBroken(target, "a warning of more than one line", warning);
    const GraphJsonWriteOptions options{.embedWeights = true, .indent = -1};
    const std::string written = writeGraphJson(model.graph, options);
    auto again = readGraphJson(written, "written.json");
    if (!again)
        contractBroken(target, "the graph JSON written of it does not read back",
                       again.error().message + "\n--- written:\n" + written);
    if (auto difference = firstDifference(model.graph, again->graph))
        contractBroken(target, "the graph read back from graph JSON differs",
                       *difference + "\n--- written:\n" + written);
    if (stableWrite && writeGraphJson(again->graph, options) != written)
        contractBroken(target, "the graph JSON written again differs (weights?)", written);
}

} // namespace fusebox::fuzz
