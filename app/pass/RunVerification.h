#pragma once
// `fusebox-pass run`'s numeric verification and its PyTorch 2 outputs: where
// each graph is verified (a PT2 graph in PyTorch 2 through the bridge, as the
// IDE does; any other in libtorch), and the exports stock PyTorch 2 runs.

#include "CommandLine.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"
#include "core/pt2/BridgeVerifier.h"
#include "core/torch/RewriteVerifier.h"

#include <memory>
#include <optional>
#include <string>

namespace fusebox::cli {

/// The verification one run uses for every rewrite and for the final graph.
class RunVerifier {
public:
    /// A PT2 graph (isPt2Graph) is verified in PyTorch 2 through `bridge`
    /// (the --python one; may be null when none is set up); in the libtorch
    /// build, such a graph without PyTorch 2 falls back to libtorch 1.13 and
    /// note() says so. Any other graph runs in libtorch (RewriteVerifier).
    static Expected<RunVerifier> create(const Graph &original, double precision, std::shared_ptr<pt2::Pt2Bridge> bridge,
                                        const std::string &noBridgeReason);

    /// nullopt when `rewritten` gives the original's outputs; else why not (one line).
    std::optional<std::string> operator()(const Graph &rewritten) const { return (*m_verifier)(rewritten); }
    /// The final comparison (passed, max diffs, message); an Error when it cannot run.
    Expected<VerificationResult> check(const Graph &rewritten) const { return m_verifier->check(rewritten); }

    /// "PyTorch 2.6.0+debian through the bridge" or "libtorch 1.13".
    const std::string &engine() const { return m_verifier->engine(); }
    /// Why a PT2 graph is verified in libtorch, or "".
    const std::string &note() const { return m_note; }

private:
    /// PyTorch 2's (pt2::BridgeVerifier) or libtorch's (RewriteVerifier).
    std::shared_ptr<const OutputVerifier> m_verifier;
    std::string m_note;
};

} // namespace fusebox::cli
