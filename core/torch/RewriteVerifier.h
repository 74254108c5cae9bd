#pragma once

#include "Executor.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// Checks rewrites of a graph against the original's outputs: the original
/// runs once, at creation, on fixed random inputs (randomInputs(original, 0));
/// each check runs the rewritten graph on the same inputs and compares with
/// compareOutputs() (NumericVerifier.h). What `fusebox-pass run --verify` and
/// the IDE's verification after each apply use.
class RewriteVerifier {
public:
    /// Runs the original; an Error when it cannot run (no static input
    /// shapes, an op the executor lacks...), one line.
    static Expected<RewriteVerifier> create(const Graph &original, double precision = 1e-4);

    /// nullopt when the rewritten graph gives the original's outputs within
    /// precision (absolute + relative); else why not, one line.
    std::optional<std::string> operator()(const Graph &rewritten) const;

    double precision() const { return m_precision; }

private:
    RewriteVerifier(std::vector<HostTensor> inputs, std::vector<HostTensor> expected, std::vector<std::string> names,
                    double precision);

    std::vector<HostTensor> m_inputs, m_expected;
    std::vector<std::string> m_names;
    double m_precision;
};

} // namespace fusebox
