#pragma once
// The one driver loop (MLIR's GreedyPatternRewriteDriver keeps one loop and
// lets its drivers differ in how work is seeded and ordered): GreedyDriver's
// rounds to a fixed point and InductorSchedule's passes run on it. Internal
// to core/rewrite.

#include "GreedyDriver.h"
#include "RewriteApplier.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// One round of a driver, as the loop's messages name it.
struct DriverRound {
    /// "in round 3", "of batch_linear": "a rewrite <where> created a cycle".
    std::string where;
    /// "round 3", "batch_linear": "stopped on request after <after>".
    std::string after;
};

/// How a driver seeds and orders its work, one round at a time. The loop
/// (runDriverLoop) does the rest: counting rounds, the order after each,
/// stopping, and what the result says.
class RoundSource {
public:
    virtual ~RoundSource() = default;
    /// The next round, or nullopt when the driver has none left.
    virtual std::optional<DriverRound> nextRound() = 0;
    /// The round's work, each rewrite through the one apply path
    /// (RewriteApplier); returns the rewrites that stayed.
    virtual size_t runRound() = 0;
    /// Puts the graph back in topological order after a round; false when
    /// the graph has a cycle.
    virtual bool restoreOrder() = 0;
    /// After a round that left the graph in order: what the driver keeps for
    /// the next (the greedy driver's search focus, the schedule's observer).
    virtual void roundEnded(size_t applied) { (void)applied; }
    /// Whether a round that applied `applied` rewrites ends the run at a
    /// fixed point (the greedy driver's end; a schedule has none).
    virtual bool fixedPoint(size_t applied) const
    {
        (void)applied;
        return false;
    }
    /// What the result says when nextRound() has none left: "" when that is
    /// the run's end (a schedule's), else why the run did not converge (the
    /// greedy driver's round limit).
    virtual std::string noRoundLeft() const { return {}; }
};

/// Runs `source`'s rounds until it has none left, a round reaches a fixed
/// point, `stopRequested` says so (checked before each round and after it;
/// the source checks between rewrites), or a round leaves a cycle. Sets the
/// result's rounds, converged, message and nodesAfter.
void runDriverLoop(const Graph &graph, RoundSource &source, const std::function<bool()> &stopRequested,
                   DriverResult &result);

/// A round's work in the driver's order: each item is made a match on the
/// graph as the round's earlier rewrites left it (`matchNow` returns a
/// pointer to it that stays valid until the next call, or null to skip the
/// item) and applied through `applier`; `applied` hears each that stayed.
/// Stops between items when asked. Returns how many stayed.
template<class Item, class MatchNow, class Applied>
size_t applyInOrder(std::vector<Item> &items, MatchNow &&matchNow, RewriteApplier &applier, TouchTracker &tracker,
                    const std::function<bool()> &stopRequested, Applied &&applied)
{
    size_t stayed = 0;
    for (Item &item : items) {
        if (stopRequested())
            break;
        const Match *match = matchNow(item);
        if (match && applier.apply(*match, tracker)) {
            ++stayed;
            applied(*match);
        }
    }
    return stayed;
}

} // namespace fusebox
