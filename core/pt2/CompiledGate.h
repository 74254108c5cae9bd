#pragma once
// A rewrite kept only when it makes the graph faster where users run it:
// compiled by torch.compile (Inductor, CPU) in PyTorch 2. For the greedy
// driver's verifyRewrite hook (fusebox-pass run --keep-faster): a rewrite the
// gate refuses is undone and not tried again, like one that fails
// verification, and its reason says both times.

#include "core/ir/Graph.h"
#include "core/pt2/Latency.h"

#include <optional>
#include <string>
#include <vector>

namespace fusebox::pt2 {

class Pt2Bridge;

/// One rewrite the gate timed.
struct GateDecision {
    bool kept = false;
    double keptMs = 0;      ///< the graph before the rewrite, compiled median
    double candidateMs = 0; ///< the graph after it
    std::string error;      ///< why it could not be timed ("" when it was)
};

class CompiledGate {
public:
    /// `start` is the graph before the first rewrite. `options` says how each
    /// pair is timed (compiled is forced on); `tolerance`: a rewrite is kept
    /// when its compiled median is at most (1 + tolerance) times the kept
    /// graph's, so that a rewrite that changes nothing measurable (a
    /// normalization another rule needs) is not lost to noise.
    CompiledGate(Pt2Bridge &bridge, const Graph &start, LatencyOptions options, double tolerance = 0.03);

    /// nullopt keeps `candidate` (it becomes the graph later rewrites are
    /// timed against); else why not, one line: "not faster compiled:
    /// 0.073 ms after the rewrite, 0.066 ms before (median of 20,
    /// torch.compile, Inductor CPU)", or why it could not be timed.
    std::optional<std::string> operator()(const Graph &candidate);

    const std::vector<GateDecision> &decisions() const { return m_decisions; }
    /// The kept graph's compiled median, as last measured (0 before any).
    double keptMs() const { return m_keptMs; }

private:
    Pt2Bridge &m_bridge;
    Graph m_kept;
    LatencyOptions m_options;
    double m_tolerance;
    double m_keptMs = 0;
    std::vector<GateDecision> m_decisions;
};

} // namespace fusebox::pt2
