#pragma once

#include "Executor.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"
#include "core/ir/VerificationResult.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

namespace pt2 {
class BridgeVerifier;
}

/// Checks rewrites of a graph against the original's outputs: the original
/// runs once, at creation, on fixed random inputs (randomInputs(original, 0));
/// each check runs the rewritten graph on the same inputs and compares with
/// compareOutputs() (NumericVerifier.h). What `fusebox-pass run --verify` and
/// the IDE's verification after each apply use.
///
/// When libtorch 1.13 cannot run the original (an op it lacks, such as
/// prims:: ops or aten::_scaled_dot_product_flash_attention_for_cpu), the
/// graphs run in PyTorch 2 through the bridge instead (docs/pt2-bridge.md):
/// the checks are pt2::BridgeVerifier's, with the same tolerance and report;
/// engine() says which was used.
class RewriteVerifier final : public OutputVerifier {
public:
    /// Runs the original; an Error when it cannot run (no static input
    /// shapes, an op neither libtorch nor the bridge's PyTorch runs, no
    /// bridge...), one line naming both reasons. allowBridge = false keeps to
    /// libtorch (for callers that must not wait seconds for a Python to start).
    static Expected<RewriteVerifier> create(const Graph &original, double precision = 1e-4, bool allowBridge = true);

    /// The full comparison (VerificationResult of NumericVerifier.h); an Error
    /// when the rewritten graph cannot run.
    Expected<VerificationResult> check(const Graph &rewritten) const override;

    double precision() const override { return m_precision; }
    /// "libtorch 1.13" or "PyTorch 2.6.0+debian through the bridge".
    const std::string &engine() const override { return m_engine; }

private:
    RewriteVerifier(std::vector<HostTensor> inputs, std::vector<HostTensor> expected, std::vector<std::string> names,
                    double precision);

    std::vector<HostTensor> m_inputs, m_expected;
    std::vector<std::string> m_names;
    double m_precision;
    std::string m_engine = "libtorch 1.13";
    /// The bridge path, when libtorch cannot run the original.
    std::shared_ptr<const pt2::BridgeVerifier> m_bridge;
};

} // namespace fusebox
