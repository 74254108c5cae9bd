#pragma once

#include "core/rewrite/Pattern.h"

#include <QString>

#include <string>

namespace fusebox {

/// What the reviewer decided about a match, or what happened to it.
enum class MatchStatus {
    Pending,            ///< a candidate on the current graph
    Rejected,           ///< a candidate the reviewer rejected (kept out of Apply All and the pass)
    Applied,            ///< rewritten (an undo step)
    FailedVerification, ///< rewritten, failed the numeric check, undone
};

/// "pending", "rejected", "applied", "failed verification".
QString toString(MatchStatus status);

/// One row of the document's match list.
struct MatchEntry {
    Match match;
    MatchStatus status = MatchStatus::Pending;
    /// matchSignature(): how rejections are recognised across re-searches.
    std::string signature;
    /// The anchor's name when the entry was made (the node may be gone).
    QString anchorName;
    /// One line: "passed (max |diff| 1.2e-07)", the failure, "not verified: ...", or "".
    QString verification;
    /// Applied entries: nodes the rewrite removed and added.
    size_t nodesRemoved = 0, nodesAdded = 0;
    /// A rejection the last search no longer found (another rewrite took its
    /// nodes, or the graph no longer has the match): it stays in the list,
    /// the tallies (as rejected, not as a candidate) and the pass file, and
    /// `note` says why it is not on the graph.
    bool notFound = false;
    /// A pending candidate that the chosen schedule will not apply (Inductor's
    /// runs a pre-grad pass only on a Dynamo graph, …): Apply All leaves it,
    /// and `note` says why (whyScheduleSkips). Apply still applies it.
    bool offSchedule = false;
    /// A pending candidate on the graph a whole Apply All left (nothing
    /// changed since): its schedule ran every pass once before this match
    /// existed, as Inductor does in production, so production leaves it
    /// too. Apply, or another Apply All, still takes it; `note` says so.
    bool afterApplyAll = false;
    QString note;
};

} // namespace fusebox
