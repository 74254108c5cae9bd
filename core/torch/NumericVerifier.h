#pragma once

#include "Executor.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"
#include "core/ir/VerificationResult.h"

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
VerificationResult compareOutputs(const std::vector<HostTensor> &expected, const std::vector<HostTensor> &actual,
                                  const std::vector<std::string> &names, double precision = 1e-4);

} // namespace fusebox
