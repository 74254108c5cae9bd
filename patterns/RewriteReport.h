#pragma once
// The report of a rewriting run, one model for both writers of it:
// `fusebox-pass run --report` (filled from the driver's result) and the IDE's
// Export Review Report (filled from the document's matches and decisions).
// Both write it with the same functions, so the two cannot name the same
// thing differently. No Qt: the CLI links none.

#include "core/rewrite/GreedyDriver.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// One pattern's row of a report.
struct ReportCounts {
    /// Matches found: every one the driver considered (fusebox-pass run), or
    /// the candidates of the last search on the current graph, pending or
    /// rejected (the IDE).
    size_t matched = 0;
    size_t applied = 0;
    /// Matches the reviewer rejected (skipped by the driver; in the IDE, also
    /// a rejection no longer found on the graph).
    size_t rejected = 0;
    /// Rewrites undone because they changed the outputs.
    size_t failedVerification = 0;
    /// Fusions undone because they closed a cycle (PatternCounters::closedCycle).
    size_t closedCycle = 0;
};

/// What happened to a match.
enum class ReportStatus { Pending, Rejected, Applied, FailedVerification };

/// "pending", "rejected", "applied", "failed verification".
const char *reportStatusName(ReportStatus status);

/// One match of a report: a rewrite applied, one undone, or (the IDE's
/// decision list) a candidate pending or rejected.
struct ReportEntry {
    std::string pattern;
    /// The anchor's name when the entry was made (the node may be gone).
    std::string anchor;
    ReportStatus status = ReportStatus::Applied;
    /// The edit group's label ("merge_getitem_cat_pass#2"); empty when none.
    std::string label;
    /// Applied entries: nodes the rewrite removed and added (net).
    size_t nodesRemoved = 0, nodesAdded = 0;
    /// The numeric check's line ("passed (within 0.0001)"); for a failed
    /// verification, why it failed. Empty when not verified.
    std::string verification;
    /// The IDE's decision list: the nodes the match covers, its benefit and
    /// signature, and for a rejection the last search no longer found, why
    /// (found false, note).
    size_t nodes = 0;
    int benefit = 0;
    std::string signature;
    bool found = true;
    std::string note;
};

/// What a run or a review did to one model.
struct RewriteReport {
    /// The Markdown title; "Rewrites of <model>" when empty.
    std::string title;
    std::string model;
    /// "Inductor 2.14": whose answers the rules gave (PatternSet::inductorLabel).
    std::string inductor;
    size_t nodesBefore = 0, nodesAfter = 0;
    /// Per pattern (every pattern with a match or a decision).
    std::map<std::string, ReportCounts> counters;
    /// The rewrites applied, in order.
    std::vector<ReportEntry> rewrites;
    /// The rewrites undone because they failed verification, in order.
    std::vector<ReportEntry> undone;
    /// Attempts whose answer depends on a shape Fusebox does not know
    /// (DriverResult::undecided): pattern and node, in the order met.
    std::vector<ReportEntry> undecided;
    /// The IDE's review: every match with its status (candidates on the
    /// current graph, rejections, failed verifications, then what was
    /// applied); absent for a run, which decides nothing.
    std::optional<std::vector<ReportEntry>> matches;
    /// The IDE: whether each apply was verified as it was made.
    std::optional<bool> verifyEachApply;
    /// Markdown only: lines after the node counts (fusebox-pass run's final
    /// verification, latency, how far it went beyond Inductor's schedule).
    std::vector<std::string> notes;
};

/// The counters, rewrites and node counts of a driver's run (the undone
/// rewrites come from its DriverListener).
RewriteReport rewriteReport(const std::string &model, const DriverResult &result);

/// The report as JSON: model, nodes_before, nodes_after, counters (per
/// pattern: matched, applied, rejected, failed_verification, closed_cycle),
/// rewrites (label, pattern, anchor, nodes_removed, nodes_added,
/// verification), undone (pattern, anchor, reason), undecided (pattern,
/// anchor: the answer depends on an unknown shape), and when present
/// matches (pattern, anchor, status, nodes, benefit, signature,
/// verification, found/note, nodes_removed/nodes_added) and
/// verify_each_apply. The CLI adds its own sections (verification of the
/// final graph, latency, seconds, ...) to the object returned.
nlohmann::json reportJson(const RewriteReport &report);

/// The same for people: the node counts, a table of the counters, then one
/// section per status (with a decision list: Applied, Rejected, Failed
/// verification, Pending; without: Applied, Failed verification).
std::string reportMarkdown(const RewriteReport &report);

} // namespace fusebox
