// core/torch in fusebox-pass's light build: libtorch 1.13's schemas from the
// dump embedded at build time, and the libtorch-backed functions as stubs.
// app/pass/TorchDispatch.cpp hands every command that would reach a stub to
// fusebox-pass-torch before it starts, so a stub running is a bug in that
// dispatch: it says so and exits rather than give a wrong answer.
#include "core/pt2/Pt2Bridge.h"
#include "core/torch/TorchRuntime.h"
#include "core/torch/TorchSchemas.h"

#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

namespace fusebox {

extern const std::string_view kEmbeddedTorchSchemas[];

bool libtorchLinked()
{
    return false;
}

const char *libtorchVersion()
{
    return "";
}

const OpSchemaRegistry &torchSchemas()
{
    static const OpSchemaRegistry registry = [] {
        std::string text;
        for (size_t i = 0; !kEmbeddedTorchSchemas[i].empty(); ++i)
            text += kEmbeddedTorchSchemas[i];
        OpSchemaRegistry::TableResult read = OpSchemaRegistry::fromTable(text);
        if (!read.error.empty()) { // the build wrote it: a bug, not the user's input
            std::cerr << "fusebox-pass: internal error: the embedded schemas do not read: " << read.error << "\n";
            std::abort();
        }
        return std::move(read.registry);
    }();
    return registry;
}

/// Called by every stub: the dispatch should have handed this command over.
[[noreturn]] void libtorchNeeded(const char *what)
{
    std::cerr << "fusebox-pass: internal error: " << what
              << " needs libtorch, but this command ran in the light build; run it with fusebox-pass-torch\n";
    std::exit(70);
}

} // namespace fusebox

#include "core/torch/TorchScriptExporter.h"
#include "core/torch/TorchScriptImporter.h"

namespace fusebox {

Expected<LoadedModel> importTorchScript(const std::string &, const TorchScriptImportOptions &)
{
    libtorchNeeded("reading a TorchScript archive");
}

Status exportTorchScript(const Graph &, const std::string &)
{
    libtorchNeeded("writing a TorchScript archive");
}

} // namespace fusebox

#include "core/torch/NumericVerifier.h"
#include "core/torch/RewriteVerifier.h"

namespace fusebox {

Expected<RewriteVerifier> RewriteVerifier::create(const Graph &, double, bool)
{
    libtorchNeeded("numeric verification");
}

Expected<VerificationResult> RewriteVerifier::check(const Graph &) const
{
    libtorchNeeded("numeric verification");
}

} // namespace fusebox

#include "core/ir/GraphSource.h"
#include "core/torch/LatencyComparison.h"

namespace fusebox {

// PT2 graphs are timed in PyTorch 2 alone here (the dispatch hands a PT2
// graph to fusebox-pass-torch only when no PyTorch 2 is set up).
Expected<LatencyComparison> compareLatency(const Graph &original, const Graph &current, const LatencyOptions &options)
{
    if (!isPt2Graph(original) || !options.allowBridge)
        libtorchNeeded("measuring latency");
    return compareLatencyInPt2(original, current, options);
}

} // namespace fusebox
