#pragma once

#include <QObject>
#include "DocumentCommands.h"
#include "DocumentParts.h"

#include "MatchEntry.h"

#include <QString>

#include <map>
#include <string>
#include <vector>

namespace fusebox {

struct EditGroup;
class Document;

/// Adds the net nodes a rewrite's group removed and added to the entry (as the
/// diff and `fusebox-pass run`'s report count them).
void countEdits(const EditGroup &group, MatchEntry &entry);
class RejectCommand;

/// Counts the patterns panel shows for one pattern.
struct PatternTally {
    int candidates = 0;
    int applied = 0;
    int rejected = 0;
    int failed = 0;
    /// Nodes where the pattern was tried (a root op) and did not fire, from
    /// the last search; -1 when not computed (graphs over kNearMissNodeLimit).
    int nearMisses = -1;
};

/// Document's matches and the reviewer's decisions: the last search's
/// candidates, the rejections (by signature, kept across searches and
/// rewrites), the rewrites that failed verification, and the list and
/// tallies the views show, rebuilt from them. Applying chosen matches is a
/// decision too, and happens here. Only RejectCommand may change a
/// rejection (the private hook below), so every rejection is an undo step.
class DocumentReview final : public QObject {
    Q_OBJECT

public:
    DocumentReview(Document &document, const DocumentParts &parts);
    DocumentReview(const DocumentReview &) = delete;
    DocumentReview &operator=(const DocumentReview &) = delete;

    /// A new graph: no matches, no rejections, no failures, nothing searched.
    void reset();

    /// Candidates on the current graph (pending or rejected), then failed
    /// verifications, then what was applied (oldest first).
    const std::vector<MatchEntry> &matches() const { return m_matches; }
    /// The last search's candidates (status unset; signatures computed).
    const std::vector<MatchEntry> &candidates() const { return m_candidates; }
    /// True once findMatches() ran on this graph (changes then re-find the matches).
    bool hasMatchResults() const { return m_haveMatches; }
    void setHasMatchResults(bool searched) { m_haveMatches = searched; }
    /// Rebuilds matches() from a search's candidates: each is pending or, when
    /// it is a rejected match, rejected; the rejections no candidate stands
    /// for follow, marked notFound; then the failures and the applied entries.
    void rebuildMatchList(std::vector<MatchEntry> candidates);
    /// The same from the last search's candidates.
    void relist() { rebuildMatchList(m_candidates); }
    /// Per-pattern near-miss counts of the last search.
    void setNearMissCounts(std::map<std::string, int> counts) { m_nearMissCounts = std::move(counts); }

    PatternTally tally(const std::string &pattern) const;
    std::map<std::string, PatternTally> tallies() const;

    /// Applies the pending matches at these rows as one undo step (Document::applyMatches).
    int applyMatches(const std::vector<int> &rows, QString *error);
    /// A rewrite that failed verification (already undone): listed, and
    /// verificationFailed() emitted.
    void recordFailure(MatchEntry failure);
    /// The rewrites of one apply, made on the graph already: one undo step
    /// (matchesApplied(), the graph's change); none: the list is rebuilt and
    /// `error` says why (stale matches, or every rewrite failed verification).
    /// Returns how many were applied.
    int commitApplies(std::vector<EditGroup> groups, std::vector<MatchEntry> applied, int stale, QString *error);
    /// Rewrites Apply All undid (failed verification): listed from now on.
    void addFailures(const std::vector<MatchEntry> &failures);

    bool rejectMatch(int row);
    bool restoreMatch(int row);
    bool isRejected(const std::string &signature) const { return m_rejected.count(signature) != 0; }
    /// The rejections by signature (the pass file, Apply All's filter).
    const std::map<std::string, MatchEntry> &rejections() const { return m_rejected; }
    /// Replaces the rejections (a pass file applied; not an undo step).
    void setRejections(std::map<std::string, MatchEntry> rejections) { m_rejected = std::move(rejections); }
    /// A pass file keeps a rejection's signature, not its nodes; found on the
    /// graph now, it gets them, so that Apply All also skips the same rule's
    /// regroupings of those nodes (rejectionOf()).
    void giveRejectionsNodes(const std::vector<MatchEntry> &candidates);
    /// The rejection `candidate` is, by its signature or, under the same
    /// pattern, by the same nodes, or by part of them or all of them and more
    /// (two at least: a horizontal group regrouped); null when none.
    static const MatchEntry *rejectionOf(const std::map<std::string, MatchEntry> &rejections, const Match &candidate,
                                         const std::string &signature);

signals:
    /// matches() changed (a search finished, a decision was made or undone).
    void matchesChanged();
    /// Matches were rewritten as one undo step by Document::applyMatches (not
    /// Apply All, which has DocumentJobs::applyAllFinished): the applied
    /// entries, with their node counts and verification.
    void matchesApplied(const std::vector<fusebox::MatchEntry> &applied);
    /// A rewrite failed numeric verification and was undone; message is one line.
    void verificationFailed(const QString &pattern, const QString &anchor, const QString &message);

private:
    /// Rejects or restores `entry` (RejectCommand's redo and undo, through the
    /// hook rejectMatch/restoreMatch give it).
    void setRejected(const MatchEntry &entry, bool rejected);
    /// setRejected, as the RejectCommands this part makes call it.
    RejectCommand::SetRejected rejectionHook();

    Document &m_document;
    const DocumentParts &m_parts;
    std::vector<MatchEntry> m_matches;
    std::vector<MatchEntry> m_candidates;
    std::vector<MatchEntry> m_failures;
    std::map<std::string, MatchEntry> m_rejected;
    std::map<std::string, int> m_nearMissCounts;
    bool m_haveMatches = false;
};

} // namespace fusebox
