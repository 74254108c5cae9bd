// libFuzzer target: the TorchScript importer (core/torch/TorchScriptImporter.cpp
// and the converter it drives) on raw bytes, through libtorch 1.13's loader.
// Only our code is instrumented; libtorch is the system's uninstrumented
// shared library, so a fault inside it shows as a crash in its frames.
// Checks the contract in TorchScriptImporter.h:
// - no input crashes the importer, libtorch's loader included: what libtorch
//   would fault on must be refused before it sees it;
// - a refusal is one line naming the file ("fuzz.pt: ..."), and never an
//   "importer bug" (an imported graph that fails the verifier);
// - warnings are one line each;
// - the graph survives the graph JSON writer and reader unchanged.
// The example forward pass for shapes is off: running a fuzzed model's code
// (torch.zeros of a mutated size) tests libtorch's kernels, not the importer.
// Seeds: scripts/fuzz-seeds.py torchscript (the torch tests' small fixtures).

#include "LoadedModelChecks.h"
#include "core/torch/TorchScriptImporter.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace fusebox;
    constexpr const char *target = "torchscript_fuzz";
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    TorchScriptImportOptions options;
    options.runExampleForShapes = false;
    auto model = importTorchScriptFromBytes(bytes, "fuzz.pt", options);
    if (!model) {
        const std::string &message = model.error().message;
        if (!fuzz::isNamedError(message, "fuzz.pt") || message.starts_with("fuzz.pt: importer bug"))
            fuzz::contractBroken(target, "a refusal that is not one line naming fuzz.pt, or an importer bug", message);
        return 0;
    }
    fuzz::checkLoadedModel(target, *model);
    return 0;
}
