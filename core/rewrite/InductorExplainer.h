#pragma once
// "Why did batch_linear not fire here?" answered for the Inductor a user runs:
// the rule explained in the state PyTorch 2.6's schedule meets the graph in,
// with the checks of 2.6's code (Check::source) and the schedule's own
// reasons (the graph's stage, the config, an earlier pass that rewrote the
// node away, the sweep of a pattern pass).

#include "Explainer.h"
#include "InductorSchedule.h"

#include <vector>

namespace fusebox {

/// Explains `pattern` at each of `nodes` (every node of `graph` with one of
/// the pattern's root ops when empty) as `driver`'s schedule meets them: the
/// schedule runs on a copy of `graph` up to the end of `pattern`'s pass. For
/// each node, in order: the schedule's checks (the rule runs on a graph of
/// this stage, the config runs it, the node is still there when its pass
/// starts, a pattern pass's sweep reaches it before its own rewrites remove
/// it), then the rule's checks on the graph as the pass saw it (a vertical
/// rule: at the sweep's visit of the node; a horizontal one: the pass's
/// search). Explanation::context names the pass ("Inductor 2.6's pre_grad
/// schedule, pass 3 of 7"). `graph` is not changed.
std::vector<Explanation> explainInInductorSchedule(const Graph &graph, const InductorScheduleDriver &driver,
                                                   const Pattern &pattern, std::vector<NodeId> nodes = {});

/// The near-miss summary of `pattern` over `graph`, in Inductor's schedule.
NearMissSummary nearMissesInInductorSchedule(const Graph &graph, const InductorScheduleDriver &driver,
                                             const Pattern &pattern);

} // namespace fusebox
