#pragma once
// The typed operations of the PyTorch 2 bridge (docs/pt2-bridge.md). No
// libtorch, no Qt: the CLI, the IDE and the verifier share it.

#include "BridgeProcess.h"

#include "core/ir/Expected.h"
#include "core/ir/OpSchema.h"
#include "core/ir/VerificationResult.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fusebox::pt2 {

/// What `check` found about the bridge's Python.
struct Pt2Info {
    PythonCommand command;
    std::string python;                    ///< "3.13.3"
    std::string executable;                ///< "/usr/bin/python3" (as the Python sees it)
    std::string torch;                     ///< "2.6.0+debian"
    std::string torchvision;               ///< "" when absent
    std::vector<std::string> capabilities; ///< "schemas", "capture", "inductor", ...
};

/// Counters in the order Inductor reports them (sorted by name, as the bridge sends them).
using Counters = std::vector<std::pair<std::string, int64_t>>;

/// What `capture` wrote.
struct CaptureResult {
    std::string outputDir;
    /// File names written into outputDir, in the order the bridge listed them.
    std::vector<std::string> files;
    /// Per file: {target name as PyTorch prints it: count}, from PyTorch's own GraphModule.
    std::map<std::string, std::map<std::string, int64_t>> histograms;
    /// Why torch.export failed (then exported.pt2 is not written); empty when it succeeded.
    std::string exportError;
    std::vector<std::string> notes;
    double seconds = 0;
};

/// What Inductor's own passes made of a graph.
struct InductorResult {
    std::string graphText; ///< the rewritten graph, print_readable() with shapes
    Counters counters;     ///< counters["inductor"]
    std::string stage;     ///< "pre_grad" or "post_grad"
    double seconds = 0;    ///< inside Python, the passes alone
    int64_t nodesBefore = 0, nodesAfter = 0;
    std::map<std::string, int64_t> histogramBefore, histogramAfter;
    std::string torchVersion;
};

/// A verification through the bridge: the same result the libtorch verifier gives.
using BridgeVerification = VerificationResult;

/// What an exported Inductor pattern module did to a graph in PyTorch 2.
struct PatternApplyResult {
    int64_t replacements = 0;
    std::string graphText;
    bool outputsEqual = false;
    double maxAbsDiff = 0;
    std::string message;
};

/// A connection to one Python with torch >= 2.4. The process starts on the
/// first request and is reused; after a timeout, cancel or crash the next
/// request starts a fresh one. Requests from several threads are served one
/// at a time, in turn (a document's verifier and its latency measurement
/// share one bridge).
class Pt2Bridge {
public:
    explicit Pt2Bridge(PythonCommand command, std::string pythonDir = bridgePythonDir());

    /// The bridge to the Python findPythonCommand(explicitCommand) chooses, or
    /// an Error saying none is configured (noPythonMessage()).
    static Expected<std::unique_ptr<Pt2Bridge>> find(const std::string &explicitCommand = {});

    const PythonCommand &command() const { return m_command; }

    /// The Python's versions and capabilities. Errors: no torch, torch < 2.4
    /// (one line naming the Python and the version found).
    Expected<Pt2Info> check(const RequestControl &control = shortRequest());

    /// Every op schema of that torch, cached per torch version in
    /// schemaCacheDir() (one JSON file), so that only the first call per
    /// version costs a schema dump. `higherOrderOps` receives the names of the
    /// higher-order ops (cond, while_loop, auto_functionalized, ...) when non-null.
    Expected<OpSchemaRegistry> schemas(std::vector<std::string> *higherOrderOps = nullptr,
                                       const RequestControl &control = shortRequest());

    /// Runs a model script (docs/pt2-bridge.md, capture) and writes its graphs
    /// into outputDir (created when missing). Nothing is written when any step
    /// fails: the files are made in a temporary folder inside outputDir and
    /// moved in at the end. Errors name the script's file:line when it raised.
    Expected<CaptureResult> capture(const std::string &scriptPath, const std::string &outputDir,
                                    const RequestControl &control = {});

    /// Inductor's own Optimus passes on fxText under configJson, a pass config's
    /// JSON text in Inductor's shape ({"pre_grad_fusion_options": {...},
    /// "post_grad_fusion_options": {...}}; other keys ignored). It travels as
    /// text so that the passes keep the file's order, which Inductor runs them in. stage: "pre_grad", "post_grad" or "auto" (post-grad
    /// when every op is a torch.ops overload). inputs: [{name, shape, dtype}]
    /// for placeholders without annotations; may be null.
    Expected<InductorResult> runInductor(const std::string &fxText, const std::string &configJson,
                                         const std::string &stage = "auto", const nlohmann::json &inputs = nullptr,
                                         const RequestControl &control = {});

    /// Starts a verification: runs `before` on `iterations` random input sets
    /// (seeds seed, seed+1, ...) and keeps its outputs in the Python; returns a handle.
    Expected<int64_t> verifyBegin(const std::string &beforeFxText, double precision, int iterations = 1,
                                  uint64_t seed = 0, const RequestControl &control = {});
    /// Runs `after` on the same inputs and compares (NumericVerifier's tolerance and report).
    Expected<BridgeVerification> verifyCheck(int64_t handle, const std::string &afterFxText,
                                             const RequestControl &control = {});
    /// Handles live in the Python process: after a timeout or crash restarted
    /// it, verifyCheck() reports the handle unknown and the caller begins again
    /// (BridgeVerifier does).

    /// Runs an `export-patterns --to inductor` module's apply(gm) on fxText.
    Expected<PatternApplyResult> applyPatterns(const std::string &moduleText, const std::string &fxText,
                                               const RequestControl &control = {});

    /// Any operation: the raw result object.
    Expected<nlohmann::json> request(const std::string &op, const nlohmann::json &args,
                                     const RequestControl &control = {});

    /// The last lines the Python wrote on stderr (noise filtered), for diagnostics.
    std::string stderrTail() const;
    /// True while its Python process runs (started and not yet exited or killed).
    bool running() const;

    /// A control with a 120 s timeout, for the quick operations.
    static RequestControl shortRequest();

private:
    PythonCommand m_command;
    std::string m_pythonDir;
    mutable std::mutex m_mutex; // guards m_process
    std::shared_ptr<BridgeProcess> m_process;
};

/// ${XDG_CACHE_HOME:-$HOME/.cache}/fusebox/schemas.
std::string schemaCacheDir();

/// The schemas the bridge `command` gave on an earlier schemas() call, read
/// from the cache without starting its Python (schemas() records which torch
/// each command has in schemaCacheDir()/commands.json); nullopt when the
/// command never gave any. `torchVersion` receives the version ("2.6.0+debian").
std::optional<OpSchemaRegistry> cachedSchemas(const PythonCommand &command, std::string *torchVersion = nullptr);

/// The torch version ("2.14.1+debian") the bridge `command` reported on an
/// earlier schemas() call, read from schemaCacheDir()/commands.json without
/// starting its Python or reading the schemas; nullopt when it never did.
std::optional<std::string> cachedTorchVersion(const PythonCommand &command);

/// Schemas in the bridge's JSON form ([{name, overload, arguments, returns, mutable}]) as a registry.
OpSchemaRegistry schemasFromJson(const nlohmann::json &schemas);

/// Inductor's counters as the bridge returns them ({"batch_linear": 1, ...}).
Counters countersFromJson(const nlohmann::json &counters);

} // namespace fusebox::pt2
