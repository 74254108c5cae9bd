#include "CompiledGate.h"

#include "core/pt2/Pt2Bridge.h"

namespace fusebox::pt2 {

CompiledGate::CompiledGate(Pt2Bridge &bridge, const Graph &start, LatencyOptions options, double tolerance)
    : m_bridge(bridge)
    , m_kept(start.clone())
    , m_options(std::move(options))
    , m_tolerance(tolerance)
{
    m_options.compiled = true;
}

std::optional<std::string> CompiledGate::operator()(const Graph &candidate)
{
    GateDecision decision;
    auto timed = compareLatencyInPt2(m_bridge, m_kept, candidate, m_options);
    std::string why;
    if (!timed)
        why = decision.error = "cannot time it compiled: " + timed.error().message;
    else if (!timed->compiled)
        why = decision.error = "cannot time it compiled: " + timed->compiledError;
    if (!why.empty()) {
        m_decisions.push_back(decision);
        return why;
    }
    const CompiledLatency &c = *timed->compiled;
    decision.keptMs = c.before.medianMs;
    decision.candidateMs = c.after.medianMs;
    decision.kept = c.after.medianMs <= c.before.medianMs * (1 + m_tolerance);
    m_decisions.push_back(decision);
    if (!decision.kept)
        return "not faster compiled: " + formatMilliseconds(c.after.medianMs) + " after the rewrite, "
               + formatMilliseconds(c.before.medianMs) + " before (median of " + std::to_string(c.after.iterations)
               + ", torch.compile, Inductor CPU" + (c.freezing ? ", freezing" : "") + ")";
    m_kept = candidate.clone();
    m_keptMs = c.after.medianMs;
    return std::nullopt;
}

} // namespace fusebox::pt2
