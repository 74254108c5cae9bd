// libFuzzer target: the torch.export ExportedProgram JSON reader
// (core/io/ExportedProgramJson.cpp and its cursor, argument decoder and node
// metadata). Checks the contract in ExportedProgram.h:
// - no input crashes it (ASan + UBSan watch every step), with schemas to
//   normalise calls against (inputs of odd length) and without (even: half
//   the time each, for twice the inputs of reading every one both ways);
// - a refusal is one line naming the document and the JSON path
//   ("model.json: graph_module.graph.nodes[3].target: ..."), never an
//   exception of nlohmann's that the guarded accessors let through;
// - warnings are one line each;
// - the graph it builds survives the graph JSON writer and reader unchanged
//   (GraphJson.h promises a lossless round trip for any graph).
// Seeds: scripts/fuzz-seeds.py export_json.

#include "LoadedModelChecks.h"
#include "FxTestSchemas.h"
#include "core/io/ExportedProgram.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace fusebox;
    constexpr const char *target = "export_json_fuzz";
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    {
        const OpSchemaRegistry *schemas = size % 2 ? &fxtest::testSchemas() : nullptr;
        auto model = readExportedProgramJson(text, {.schemas = schemas, .sourceName = "model.json"});
        if (!model) {
            const std::string &message = model.error().message;
            if (!fuzz::isNamedError(message, "model.json") || fuzz::isEscapedJsonException(message, "model.json"))
                fuzz::contractBroken(target, "a refusal that is not one line naming model.json and a JSON path",
                                     message);
            return 0;
        }
        fuzz::checkLoadedModel(target, *model);
    }
    return 0;
}
