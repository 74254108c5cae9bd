#include "ReviewReport.h"

#include "Document.h"

namespace fusebox {

namespace {

ReportStatus reportStatus(MatchStatus status)
{
    switch (status) {
    case MatchStatus::Pending: return ReportStatus::Pending;
    case MatchStatus::Rejected: return ReportStatus::Rejected;
    case MatchStatus::Applied: return ReportStatus::Applied;
    case MatchStatus::FailedVerification: return ReportStatus::FailedVerification;
    }
    return ReportStatus::Pending;
}

ReportEntry reportEntry(const MatchEntry &e)
{
    ReportEntry r;
    r.pattern = e.match.pattern;
    r.anchor = e.anchorName.toStdString();
    r.status = reportStatus(e.status);
    r.nodes = e.match.nodes.size();
    r.benefit = e.match.benefit;
    r.signature = e.signature;
    r.verification = e.verification.toStdString();
    r.found = !e.notFound;
    r.note = e.note.toStdString();
    if (e.status == MatchStatus::Applied) {
        r.nodesRemoved = e.nodesRemoved;
        r.nodesAdded = e.nodesAdded;
    }
    return r;
}

} // namespace

RewriteReport reviewReport(const Document &d)
{
    RewriteReport report;
    report.title = "Review of " + d.model().displayName().toStdString();
    report.model = d.model().displayName().toStdString();
    report.inductor = d.patternSet().patterns().inductorLabel();
    report.nodesBefore = d.history().original().size();
    report.nodesAfter = d.model().graph().size();
    report.verifyEachApply = d.jobs().verifyApplies();
    // The patterns with a match or a decision (not those with near misses alone).
    const auto tallies = d.review().tallies();
    std::vector<ReportEntry> matches;
    for (const MatchEntry &e : d.review().matches()) {
        const PatternTally &t = tallies.at(e.match.pattern);
        report.counters[e.match.pattern] = {size_t(t.candidates), size_t(t.applied), size_t(t.rejected),
                                            size_t(t.failed), 0};
        matches.push_back(reportEntry(e));
        if (e.status == MatchStatus::Applied)
            report.rewrites.push_back(matches.back());
        else if (e.status == MatchStatus::FailedVerification)
            report.undone.push_back(matches.back());
    }
    report.matches = std::move(matches);
    return report;
}

QString reviewReportJson(const Document &document)
{
    // Four spaces, as QJsonDocument::Indented wrote it before the report model was shared.
    return QString::fromStdString(reportJson(reviewReport(document)).dump(4) + "\n");
}

QString reviewReportMarkdown(const Document &document)
{
    return QString::fromStdString(reportMarkdown(reviewReport(document)));
}

} // namespace fusebox
