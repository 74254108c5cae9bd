#pragma once

#include "EditLog.h"
#include "HorizontalSearch.h"
#include "Pattern.h"
#include "PatternSet.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox {

class RewriteApplier;
class TouchTracker;

/// Hears what the driver decides (the GUI's match table and the report both
/// listen). Every callback is optional.
class DriverListener {
public:
    virtual ~DriverListener() = default;
    /// A candidate match was found (before any decision on it).
    virtual void matchFound(const Graph &, const Match &) {}
    /// A match was skipped because a reviewer rejected it.
    virtual void matchRejected(const Graph &, const Match &) {}
    /// A match was rewritten; `group` holds the edits.
    virtual void rewriteApplied(const Graph &, const Match &, const EditGroup &) {}
    /// A rewrite failed verification and was undone.
    virtual void rewriteUndone(const Graph &, const Match &, const std::string &reason) {}
};

/// Per-pattern counters, like Inductor's `pattern_matcher_count`.
struct PatternCounters {
    size_t matched = 0;
    size_t applied = 0;
    size_t rejected = 0;
    size_t failedVerification = 0;
    /// Fusions undone because they closed a cycle (an earlier rewrite of the
    /// round made the group's members dependent).
    size_t closedCycle = 0;
};

/// What one rewrite did.
struct AppliedRewrite {
    std::string label; ///< "merge_getitem_cat_pass#2"
    std::string pattern;
    std::string anchor; ///< the anchor's name before the rewrite
    size_t nodesRemoved = 0;
    size_t nodesAdded = 0;
};

/// What one round of the driver did, and how long it took.
struct RoundStats {
    /// Nodes the round's first search was limited to (vertical anchors near
    /// the previous round's changes); 0 when it searched the whole graph.
    size_t searchedNodes = 0;
    /// True when the limited search found nothing to apply and the round
    /// searched the whole graph after it.
    bool fullSearch = false;
    size_t candidates = 0;
    size_t applied = 0;
    double searchMs = 0, applyMs = 0, reorderMs = 0;
};

/// The outcome of a run.
/// A rule's attempt at a node that a check needing an unknown shape stopped
/// (MatchTrace::requireShape): neither a match nor a refusal, since the
/// answer depends on that shape.
struct UndecidedAttempt {
    std::string pattern;
    NodeId node;
    std::string nodeName;
};

struct DriverResult {
    bool converged = false;
    int rounds = 0;
    /// Empty when converged; else why not ("still matching after 10 rounds").
    std::string message;
    std::map<std::string, PatternCounters> counters;
    /// What counters["inductor"] would hold after the same passes in
    /// Inductor: a horizontal rule's name once per fused group, a vertical
    /// rule's once per rewrite, pattern_matcher_count/_nodes per vertical
    /// match. Filled by InductorScheduleDriver; empty after GreedyDriver.
    std::map<std::string, size_t> inductorCounters;
    std::vector<AppliedRewrite> rewrites;
    /// Lines for the user about passes the schedule left out or kept while
    /// unsure (a pass's devices: InductorSchedule.h droppedForDevices).
    std::vector<std::string> notes;
    /// Attempts whose answer depends on a shape Fusebox does not know, in the
    /// order the passes met them (InductorScheduleDriver: each vertical
    /// rule's failed matches, each horizontal rule's unkeyed root ops as the
    /// pass meets the graph).
    std::vector<UndecidedAttempt> undecided;
    std::vector<RoundStats> roundStats;
    size_t nodesBefore = 0, nodesAfter = 0;
    size_t nodesAdded = 0, nodesRemoved = 0;
};

/// Options of the greedy driver.
struct DriverOptions {
    /// Rounds before giving up (MLIR's GreedyRewriteConfig::maxIterations).
    int maxRounds = 10;
    /// True for matches a reviewer rejected: they are reported and skipped.
    std::function<bool(const Graph &, const Match &)> isRejected;
    /// Checks the graph after each rewrite; a returned message means the
    /// rewrite broke semantics: it is undone and reported (numeric verifier).
    std::function<std::optional<std::string>(const Graph &)> verifyRewrite;
    /// Polled between rewrites (from the thread that runs the driver): true
    /// stops the run after the current rewrite, with the graph valid and
    /// topologically ordered, not converged, and a message saying so.
    std::function<bool()> shouldStop;
    /// Threads that search for candidates, one pattern at a time each (the
    /// patterns only read the graph); 0: one per hardware thread, 1: the
    /// calling thread alone. The matches, and so the run, are the same
    /// whatever the number.
    unsigned searchThreads = 0;
};

/// What applying one match came to (applyOneMatch).
struct ApplyOutcome {
    enum class Kind {
        Applied,            ///< rewritten, and kept
        Stale,              ///< no longer matches (a node is gone, or the pattern reports failure): nothing changed
        Rejected,           ///< DriverOptions::isRejected: nothing changed
        ClosedCycle,        ///< the rewrite would close a cycle: undone
        FailedVerification, ///< DriverOptions::verifyRewrite objected: undone
    };
    Kind kind = Kind::Stale;
    /// FailedVerification: the verifier's message; ClosedCycle: why.
    std::string message;
    /// Applied: the nodes the rewrite removed and added, net.
    size_t nodesRemoved = 0, nodesAdded = 0;
};

/// Applies one match found earlier on `graph` (the IDE's Apply, row by row) by
/// the path both drivers take (RewriteApplier): the reviewer's rejection,
/// one edit group in `edits` labelled "pattern@anchor", the rewriter, the
/// cycle check, options.verifyRewrite with undo, then topological order. A
/// vertical match is matched again at its anchor first (an earlier apply may
/// have changed its nodes). Nothing is left changed unless the outcome is
/// Applied; an undone rewrite's group stays in `edits` as undone
/// (edits.appliedCount()).
ApplyOutcome applyOneMatch(Graph &graph, const PatternSet &patterns, const Match &match, EditLog &edits,
                           const DriverOptions &options = {});

/// Applies a pattern set to a fixed point, greedily (MLIR's
/// GreedyPatternRewriteDriver, with Optimus's horizontal search inside).
///
/// Each round collects candidates (vertical patterns at each node whose op is
/// a root op; horizontal groups from searchHorizontal), orders them by
/// benefit (then pattern order, then position: deterministic), and applies
/// them one by one; a candidate whose nodes an earlier rewrite of the round
/// touched is re-matched at its anchor (vertical) or left to the next round
/// (horizontal). Round 1 searches the whole graph; later rounds search first
/// around what the previous round changed, then, if that applies nothing, the
/// whole graph again. A round ends by restoring topological order; the run ends
/// when a round applies nothing (converged) or after maxRounds (reported).
/// Only rewrites that report success count. No cycle survives a fusion: a
/// horizontal group found independent may have been made dependent by an
/// earlier rewrite of the round, so each fusion is checked and undone when it
/// closes a cycle (PatternCounters::closedCycle); vertical rewrites are local,
/// and the round's topological sort reports a cycle one made.
class GreedyDriver {
public:
    GreedyDriver(const PatternSet &patterns, DriverOptions options = {});

    /// Rewrites graph to a fixed point. Edits go to `log` (one group per
    /// rewrite, plus one per round's reordering) when given.
    DriverResult run(Graph &graph, EditLog *log = nullptr, DriverListener *listener = nullptr) const;

    /// Every candidate match on the graph as it is, without rewriting: what the
    /// first round would consider, in the order it would consider them.
    std::vector<Match> findMatches(const Graph &graph) const;

    /// applyOneMatch() under this driver's patterns and options: true when
    /// the match was applied and stayed applied.
    bool apply(Graph &graph, const Match &match, EditLog *log = nullptr) const;

private:
    /// findMatches restricted to vertical anchors and horizontal roots marked
    /// in the given masks (indexed by NodeId; nullptr: everywhere).
    std::vector<Match> findMatchesIn(const Graph &graph, const std::vector<char> *anchors,
                                     const std::vector<char> *roots,
                                     std::map<std::string, HorizontalKeyMemo> *memos) const;
    std::vector<Match> verticalMatches(const Graph &graph, const VerticalPattern &pattern,
                                       const std::vector<char> *region) const;
    std::vector<Match> horizontalMatches(const Graph &graph, const HorizontalPattern &pattern,
                                         const std::vector<NodeId> &order, const std::vector<char> *roots,
                                         HorizontalKeyMemo *memo) const;
    void sortMatches(const Graph &graph, std::vector<Match> &matches) const;

    size_t patternIndex(const std::string &name) const;

    // One run, round by round on the one driver loop (DriverLoop.h; GreedyDriver.cpp).
    struct SearchFocus;
    class Rounds;
    bool stopRequested() const;
    /// Searches (around the last round's changes first) and applies what it
    /// finds, in order: one round's work.
    RoundStats searchAndApply(Graph &graph, RewriteApplier &applier, TouchTracker &tracker, SearchFocus &focus) const;
    /// Applies a round's candidates in order; returns how many were applied.
    size_t applyMatches(const Graph &graph, std::vector<Match> &matches, RewriteApplier &applier,
                        TouchTracker &tracker) const;
    /// False when an earlier rewrite of the round touched the candidate and it
    /// no longer matches; a vertical one is re-matched at its anchor.
    bool stillApplicable(const Graph &graph, Match &candidate, const TouchTracker &tracker) const;
    /// Ends a round: restores a topological order (one edit group). False
    /// when the graph has a cycle.
    bool restoreOrder(Graph &graph, EditLog *edits, RoundStats &stats) const;

    const PatternSet &m_patterns;
    DriverOptions m_options;
    /// Each pattern's place in the set: the tie-break after benefit.
    std::unordered_map<std::string, size_t> m_patternIndex;
};

/// A stable description of a match that survives re-import and renames: the
/// pattern, and for each covered node its op, scope and output shape, plus a
/// structural hash of the covered subgraph. Rejections are stored by it.
std::string matchSignature(const Graph &graph, const Match &match);

} // namespace fusebox
