// libFuzzer target: the Fusebox graph JSON reader and writer
// (core/io/GraphJson.cpp). Checks the contract in GraphJson.h:
// - no input crashes them (ASan + UBSan watch every step);
// - a refusal is one line naming the file: "fuzz.json: /nodes/3/op: ..." or
//   "fuzz.json:line:column: ..." for a syntax error;
// - the writer is lossless: what it writes (weights embedded) reads back as
//   the same graph, and the second write equals the first.
// Seeds: scripts/fuzz-seeds.py graph_json.

#include "FuzzSupport.h"
#include "core/io/GraphJson.h"
#include "core/ir/GraphCompare.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace fusebox;
    constexpr const char *target = "graph_json_fuzz";
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto first = readGraphJson(text, "fuzz.json");
    if (!first) {
        if (!fuzz::isNamedError(first.error().message, "fuzz.json"))
            fuzz::contractBroken(target, "a refusal that is not one line naming fuzz.json", first.error().message);
        return 0;
    }
    const GraphJsonWriteOptions options{.embedWeights = true, .indent = 1};
    const std::string written = writeGraphJson(first->graph, options);
    auto second = readGraphJson(written, "written.json");
    if (!second)
        fuzz::contractBroken(target, "what the writer wrote does not read back",
                             second.error().message + "\n--- written:\n" + written);
    if (auto difference = firstDifference(first->graph, second->graph))
        fuzz::contractBroken(target, "the graph read back differs", *difference + "\n--- written:\n" + written);
    if (writeGraphJson(second->graph, options) != written)
        fuzz::contractBroken(target, "the second write differs from the first", written);
    return 0;
}
