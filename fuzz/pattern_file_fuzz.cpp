// libFuzzer target: the pattern language's parser and checker
// (core/io/PatternParser.cpp, PatternChecker.cpp) and its canonical writer.
// Checks the contract in PatternFile.h:
// - no input crashes them (ASan + UBSan watch every step);
// - a refusal is one line, "fuzz.patterns:line:column: ...", both when ops
//   are only checked for form and when they are checked against schemas;
// - parsePatternFile(writePatternFile(f)) == f, and the second write equals
//   the first.
// Seeds: scripts/fuzz-seeds.py pattern_file.

#include "FuzzSupport.h"
#include "FxTestSchemas.h"
#include "core/io/PatternFile.h"

#include <cstdint>
#include <string>

namespace {

using namespace fusebox;

constexpr const char *kTarget = "pattern_file_fuzz";

void checkRoundTrip(const PatternFile &first, const PatternFileReadOptions &options)
{
    const std::string written = writePatternFile(first);
    auto second = parsePatternFile(written, options);
    if (!second)
        fuzz::contractBroken(kTarget, "what the writer wrote does not read back",
                             second.error().message + "\n--- written:\n" + written);
    if (!(*second == first))
        fuzz::contractBroken(kTarget, "the patterns read back differ",
                             "--- written:\n" + written + "\n--- written again:\n" + writePatternFile(*second));
    if (writePatternFile(*second) != written)
        fuzz::contractBroken(kTarget, "the second write differs from the first", written);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    for (const OpSchemaRegistry *schemas : {static_cast<const OpSchemaRegistry *>(nullptr), &fxtest::testSchemas()}) {
        const PatternFileReadOptions options{.schemas = schemas, .sourceName = "fuzz.patterns"};
        auto file = parsePatternFile(text, options);
        if (!file) {
            if (!fuzz::isLineColumnError(file.error().message, "fuzz.patterns"))
                fuzz::contractBroken(kTarget, "a refusal without fuzz.patterns:line:column", file.error().message);
            continue;
        }
        checkRoundTrip(*file, options);
    }
    return 0;
}
