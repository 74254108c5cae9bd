// libFuzzer target: the pass config reader and writer (core/io/PassConfig.cpp).
// Checks the contract in PassConfig.h:
// - no input crashes them (ASan + UBSan watch every step);
// - a refusal is one line naming the file: "fuzz.json: /pre_grad_fusion_options/x: ..."
//   or "fuzz.json:line:column: ..." for a syntax error;
// - what it reads, written and read again, is the same config (rule order
//   included), and the second write equals the first.
// Seeds: scripts/fuzz-seeds.py pass_config.

#include "FuzzSupport.h"
#include "core/io/PassConfig.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace fusebox;
    constexpr const char *target = "pass_config_fuzz";
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto first = readPassConfig(text, "fuzz.json");
    if (!first) {
        if (!fuzz::isNamedError(first.error().message, "fuzz.json"))
            fuzz::contractBroken(target, "a refusal that is not one line naming fuzz.json", first.error().message);
        return 0;
    }
    const std::string written = writePassConfig(*first);
    auto second = readPassConfig(written, "written.json");
    if (!second)
        fuzz::contractBroken(target, "what the writer wrote does not read back",
                             second.error().message + "\n--- written:\n" + written);
    if (!(*second == *first))
        fuzz::contractBroken(target, "the config read back differs",
                             "--- written:\n" + written + "\n--- written again:\n" + writePassConfig(*second));
    if (writePassConfig(*second) != written)
        fuzz::contractBroken(target, "the second write differs from the first", written);
    return 0;
}
