#pragma once
// The result of comparing two graphs' outputs, and the one interface of the
// verifiers that produce it: libtorch's (core/torch/RewriteVerifier.h) and
// PyTorch 2's through the bridge (core/pt2/BridgeVerifier.h), so that a
// caller (the driver's verifyRewrite hook, the IDE, fusebox-pass run) holds
// and reads either alike.

#include "core/ir/Expected.h"

#include <optional>
#include <string>

namespace fusebox {

/// What a comparison of two graphs' (or two runs') outputs found.
struct VerificationResult {
    /// Same output count, and every output with equal dtype and shape and all
    /// elements within tolerance (integer and bool outputs: exactly equal).
    bool passed = false;
    /// Largest |after - before| over all outputs and iterations.
    double maxAbsDiff = 0;
    /// Largest |after - before| / |before| over elements whose expected value
    /// is non-zero.
    double maxRelDiff = 0;
    /// The output that fails worst (largest |diff| among failing outputs), or
    /// the one with the largest |diff| when all pass; -1 when there are none.
    int worstOutput = -1;
    /// That output's name in the `before` graph ("cat"; "" for a literal).
    std::string worstOutputName;
    /// One line: "output 0 (%cat): max |diff| 3.2e-02 at index 17 [2, 1]
    /// (expected 0.5123, got 0.5443) > 1e-04 + 1e-04*|expected|", or a
    /// summary of the pass.
    std::string message;
};

/// A verifier's answer as the driver's verifyRewrite hook wants it: nullopt
/// when the check ran and passed, else why not (the check's message, or why
/// it could not run).
inline std::optional<std::string> failureOf(const Expected<VerificationResult> &checked)
{
    if (!checked)
        return checked.error().message;
    if (!checked->passed)
        return checked->message;
    return std::nullopt;
}

class Graph;

/// Checks rewritten graphs against one original's outputs. The original runs
/// once, when the verifier is made (each implementation's create()); each
/// check runs the rewritten graph on the same inputs.
class OutputVerifier {
public:
    virtual ~OutputVerifier() = default;

    /// The full comparison; an Error when the rewritten graph cannot run.
    virtual Expected<VerificationResult> check(const Graph &rewritten) const = 0;

    /// nullopt when the rewritten graph gives the original's outputs within
    /// precision(); else why not, one line (the driver's verifyRewrite hook).
    std::optional<std::string> operator()(const Graph &rewritten) const { return failureOf(check(rewritten)); }

    /// The tolerance: |after - before| <= p + p * |before|.
    virtual double precision() const = 0;
    /// Where the graphs run: "libtorch 1.13", "PyTorch 2.6.0+debian through the bridge".
    virtual const std::string &engine() const = 0;

protected:
    OutputVerifier() = default;
    OutputVerifier(const OutputVerifier &) = default;
    OutputVerifier &operator=(const OutputVerifier &) = default;
    OutputVerifier(OutputVerifier &&) = default;
    OutputVerifier &operator=(OutputVerifier &&) = default;
};

} // namespace fusebox
