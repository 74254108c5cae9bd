#pragma once

#include "Pt2Bridge.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"
#include "core/ir/VerificationResult.h"

#include <memory>
#include <optional>
#include <string>

namespace fusebox::pt2 {

/// Checks rewrites of a PT2 graph in PyTorch 2 itself, through one bridge
/// (docs/pt2-bridge.md, verify_begin / verify_check): the original runs once,
/// at creation, on fixed random inputs with its constants' real values, and
/// keeps its outputs in the Python; each check runs the rewritten graph on the
/// same inputs and compares with NumericVerifier's tolerance and report
/// (|after - before| <= p + p*|before|; the failing output, element and both
/// values in one line). What the IDE's applies, its Apply All and `fusebox-pass
/// run --verify` use for PT2 graphs (isPt2Graph). Fusebox's own ops are
/// written as their ATen decompositions.
///
/// Thread-safety: one check at a time; the bridge may be shared with other
/// users of the same Python (Pt2Bridge serialises requests). When the Python
/// was restarted meanwhile (a cancel, a timeout), the next check runs the
/// original again first.
class BridgeVerifier final : public OutputVerifier {
public:
    /// Starts the bridge's Python if needed and runs the original. Errors: no
    /// Python, torch too old, or the original does not run in PyTorch 2 (one
    /// line, "before: RuntimeError: ...").
    static Expected<BridgeVerifier> create(std::shared_ptr<Pt2Bridge> bridge, const Graph &original,
                                           double precision = 1e-4, const RequestControl &control = {});

    /// The full comparison; an Error when the rewritten graph does not run in
    /// PyTorch 2 ("the rewritten graph does not run in PyTorch 2: ...").
    Expected<BridgeVerification> check(const Graph &rewritten, const RequestControl &control) const;
    Expected<VerificationResult> check(const Graph &rewritten) const override { return check(rewritten, {}); }

    double precision() const override { return m_precision; }
    /// "PyTorch 2.6.0+debian through the bridge".
    const std::string &engine() const override { return m_engine; }
    const std::shared_ptr<Pt2Bridge> &bridge() const { return m_bridge; }

private:
    BridgeVerifier() = default;
    Status begin(const RequestControl &control) const;

    std::shared_ptr<Pt2Bridge> m_bridge;
    std::string m_originalText;
    nlohmann::json m_weights;
    double m_precision = 1e-4;
    std::string m_engine;
    mutable int64_t m_handle = -1;
};

} // namespace fusebox::pt2
