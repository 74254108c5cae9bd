#pragma once
// The result of comparing two graphs' outputs, as both verifiers report it:
// libtorch's (core/torch/NumericVerifier.h) and PyTorch 2's through the
// bridge (core/pt2/BridgeVerifier.h), so that a caller reads either alike.

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

} // namespace fusebox
