#pragma once

#include "Executor.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusebox {

/// Inductor's numeric check knob (fx_passes_numeric_check: precision 1e-4,
/// num_iterations 1).
struct VerifyOptions {
    /// Elements match when |after - before| <= precision + precision * |before|.
    double precision = 1e-4;
    /// Random input sets to run; set i is randomInputs(before, seed + i).
    int iterations = 1;
    uint64_t seed = 0;
};

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

/// Runs `before` and `after` (Executor: libtorch's interpreter, no graph
/// optimizations) on the same random inputs (randomInputs(before, ...)) and
/// compares every output with compareOutputs(). NaN matches NaN and an
/// infinity the same infinity (unlike torch.allclose, so that a rewrite that
/// keeps NaNs passes). A failing comparison is a result with passed = false;
/// an Error means the graphs could not be run (lowering or runtime failure,
/// different input counts, inputs without static shapes), one line prefixed
/// "before: " or "after: ".
Expected<VerificationResult> verifyEquivalent(const Graph &before, const Graph &after,
                                              const VerifyOptions &options = {});

/// Compares `actual` against `expected` output by output (names: the
/// expected outputs' names, for the message; may be shorter). The tolerance
/// and the NaN rule are verifyEquivalent()'s; dtypes and shapes must be equal.
VerificationResult compareOutputs(const std::vector<HostTensor> &expected,
                                  const std::vector<HostTensor> &actual,
                                  const std::vector<std::string> &names, double precision = 1e-4);

} // namespace fusebox
