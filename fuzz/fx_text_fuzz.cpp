// libFuzzer target: the FX text reader (print_readable / str(graph) dumps,
// Dynamo's and AOT's forms). Checks the reader's contract in FxText.h:
// - no input crashes it (ASan + UBSan watch every step);
// - a refusal is one line, "fuzz.py:line:column: ...";
// - what it reads, written back and read again, is the same graph, and the
//   second write equals the first;
// - the shape rules (core/ir/ShapeInference.h) run on what it reads without
//   a crash: the dump's annotations, symbolic sizes included, are their input.
// Seeds: scripts/fuzz.sh builds them from the tests' fixtures and fuzz/seeds/fx.

#include "FxTestSchemas.h"
#include "core/io/FxText.h"
#include "core/ir/GraphCompare.h"
#include "core/ir/ShapeInference.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void contractBroken(const char *what, const std::string &detail)
{
    std::fprintf(stderr, "fx_text_fuzz: %s\n%s\n", what, detail.c_str());
    std::abort();
}

/// "fuzz.py:12:5: expected ..." — the source name, a line, a column, text.
bool isLocatedError(const std::string &message)
{
    const std::string prefix = "fuzz.py:";
    if (message.rfind(prefix, 0) != 0 || message.find('\n') != std::string::npos)
        return false;
    size_t at = prefix.size();
    for (int field = 0; field < 2; ++field) {
        const size_t digits = at;
        while (at < message.size() && std::isdigit(static_cast<unsigned char>(message[at])))
            ++at;
        if (at == digits || at >= message.size() || message[at] != ':')
            return false;
        ++at;
    }
    return message.compare(at, 1, " ") == 0 && message.size() > at + 1;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace fusebox;
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const FxReadOptions options{.schemas = &fxtest::testSchemas(), .sourceName = "fuzz.py"};
    auto first = readFxText(text, options);
    if (!first) {
        if (!isLocatedError(first.error().message))
            contractBroken("a refusal without fuzz.py:line:column", first.error().message);
        return 0;
    }
    const std::string written = writeFxText(first->graph);
    auto second = readFxText(written, options);
    if (!second)
        contractBroken("what the writer wrote does not read back",
                       second.error().message + "\n--- written:\n" + written);
    if (auto difference = firstDifference(first->graph, second->graph))
        contractBroken("the graph read back differs", *difference + "\n--- written:\n" + written);
    if (writeFxText(second->graph) != written)
        contractBroken("the second write differs from the first", written);
    Graph shaped = first->graph.clone();
    inferShapes(shaped);
    return 0;
}
