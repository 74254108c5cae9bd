#include "DriverLoop.h"

namespace fusebox {

void runDriverLoop(const Graph &graph, RoundSource &source, const std::function<bool()> &stopRequested,
                   DriverResult &result)
{
    for (;;) {
        std::optional<DriverRound> round = source.nextRound();
        if (!round) {
            result.message = source.noRoundLeft();
            result.converged = result.message.empty();
            break;
        }
        if (stopRequested()) {
            result.message = "stopped on request after " + round->after;
            break;
        }
        ++result.rounds;
        const size_t applied = source.runRound();
        if (!source.restoreOrder()) {
            result.message = "a rewrite " + round->where + " created a cycle";
            break;
        }
        source.roundEnded(applied);
        if (stopRequested()) {
            result.message = "stopped on request after " + round->after;
            break;
        }
        if (source.fixedPoint(applied)) {
            result.converged = true;
            break;
        }
    }
    result.nodesAfter = graph.size();
}

} // namespace fusebox
