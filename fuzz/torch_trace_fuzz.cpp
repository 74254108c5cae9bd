// libFuzzer target: the TORCH_TRACE log reader (core/io/TorchTrace.h). Checks
// its contract:
// - no input crashes it (ASan + UBSan watch every step);
// - a log that can be read is indexed, never refused: what does not parse is
//   a warning of one line, "fuzz.log:LINE: ...";
// - every payload's byte range lies in the file and reads back;
// - every graph's address, written and parsed again, finds that graph;
// - a graph payload opens as FX text or is refused in one line.
// Seeds: scripts/fuzz-seeds.py (fuzz/seeds/torch_trace, the sample logs of
// ../shared/pt2-samples/trace and the logs the pt2 tests make, cut to 64 KiB).

#include "FxTestSchemas.h"
#include "core/io/TorchTrace.h"
#include "core/io/TorchTraceGraphs.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

[[noreturn]] void contractBroken(const char *what, const std::string &detail)
{
    std::fprintf(stderr, "torch_trace_fuzz: %s\n%s\n", what, detail.c_str());
    std::abort();
}

bool isOneLineAt(const std::string &message, const std::string &prefix)
{
    return message.rfind(prefix, 0) == 0 && message.find('\n') == std::string::npos;
}

/// The input as a file: the reader streams files, as it does a 100 MB log.
const std::string &scratchPath()
{
    static const std::string path = [] {
        const char *dir = std::getenv("TMPDIR");
        return std::string(dir && *dir ? dir : "/tmp") + "/torch_trace_fuzz_" + std::to_string(getpid()) + "_fuzz.log";
    }();
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace fusebox;
    const std::string &path = scratchPath();
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
    }
    auto log = indexTorchTrace(path);
    if (!log)
        contractBroken("a readable log was refused", log.error().message);
    const std::string name = path.substr(path.rfind('/') + 1);
    for (const std::string &warning : log->warnings)
        if (!isOneLineAt(warning, name + ":"))
            contractBroken("a warning that is not one located line", warning);
    auto checkPayload = [&](const TracePayload &payload) {
        if (payload.begin > payload.end || payload.end > size)
            contractBroken("a payload range outside the file", payload.kind);
        std::vector<std::string> warnings;
        auto text = readTracePayload(*log, payload, &warnings);
        if (!text)
            contractBroken("a listed payload does not read back", text.error().message);
        for (const std::string &warning : warnings)
            if (!isOneLineAt(warning, name + ":"))
                contractBroken("a payload warning that is not one located line", warning);
    };
    for (const TracePayload &payload : log->unattached)
        checkPayload(payload);
    for (const TraceCompile &compile : log->compiles)
        for (const TracePayload &payload : compile.payloads)
            checkPayload(payload);
    const FxReadOptions options{.schemas = &fxtest::testSchemas()};
    for (const TraceLog::GraphRef &graph : log->graphs()) {
        const TraceGraphAddress address = traceGraphAddress(*log, graph);
        auto parsed = TraceGraphAddress::parse(address.str());
        if (!parsed || parsed->str() != address.str())
            contractBroken("an address that does not parse back", address.str());
        auto found = findTraceGraph(*log, *parsed);
        if (!found || found->payload != graph.payload)
            contractBroken("an address that finds another graph", address.str());
        auto model = readTraceGraph(*log, graph, options);
        if (!model && model.error().message.find('\n') != std::string::npos)
            contractBroken("a graph refused in more than one line", model.error().message);
    }
    return 0;
}
