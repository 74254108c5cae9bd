#include "RewriteReport.h"

#include <algorithm>

namespace fusebox {

const char *reportStatusName(ReportStatus status)
{
    switch (status) {
    case ReportStatus::Pending: return "pending";
    case ReportStatus::Rejected: return "rejected";
    case ReportStatus::Applied: return "applied";
    case ReportStatus::FailedVerification: return "failed verification";
    }
    return "";
}

RewriteReport rewriteReport(const std::string &model, const DriverResult &result)
{
    RewriteReport report;
    report.model = model;
    report.nodesBefore = result.nodesBefore;
    report.nodesAfter = result.nodesAfter;
    for (const auto &[name, c] : result.counters)
        report.counters[name] = {c.matched, c.applied, c.rejected, c.failedVerification, c.closedCycle};
    for (const AppliedRewrite &r : result.rewrites) {
        ReportEntry e;
        e.pattern = r.pattern;
        e.anchor = r.anchor;
        e.label = r.label;
        e.nodesRemoved = r.nodesRemoved;
        e.nodesAdded = r.nodesAdded;
        report.rewrites.push_back(std::move(e));
    }
    for (const UndecidedAttempt &u : result.undecided) {
        ReportEntry e;
        e.pattern = u.pattern;
        e.anchor = u.nodeName;
        e.status = ReportStatus::Pending;
        report.undecided.push_back(std::move(e));
    }
    return report;
}

namespace {

nlohmann::json matchJson(const ReportEntry &e)
{
    nlohmann::json o = {{"pattern", e.pattern},
                        {"anchor", e.anchor},
                        {"status", reportStatusName(e.status)},
                        {"nodes", e.nodes},
                        {"benefit", e.benefit}};
    if (!e.signature.empty())
        o["signature"] = e.signature;
    if (!e.verification.empty())
        o["verification"] = e.verification;
    if (!e.found) {
        o["found"] = false;
        o["note"] = e.note;
    }
    if (e.status == ReportStatus::Applied) {
        o["nodes_removed"] = e.nodesRemoved;
        o["nodes_added"] = e.nodesAdded;
    }
    return o;
}

} // namespace

nlohmann::json reportJson(const RewriteReport &report)
{
    nlohmann::json j;
    j["model"] = report.model;
    if (!report.inductor.empty())
        j["inductor"] = report.inductor;
    j["nodes_before"] = report.nodesBefore;
    j["nodes_after"] = report.nodesAfter;
    nlohmann::json counters = nlohmann::json::object();
    for (const auto &[name, c] : report.counters)
        counters[name] = {{"matched", c.matched},
                          {"applied", c.applied},
                          {"rejected", c.rejected},
                          {"failed_verification", c.failedVerification},
                          {"closed_cycle", c.closedCycle}};
    j["counters"] = counters;
    nlohmann::json rewrites = nlohmann::json::array();
    for (const ReportEntry &r : report.rewrites) {
        nlohmann::json o = {{"pattern", r.pattern},
                            {"anchor", r.anchor},
                            {"nodes_removed", r.nodesRemoved},
                            {"nodes_added", r.nodesAdded}};
        if (!r.label.empty())
            o["label"] = r.label;
        if (!r.verification.empty())
            o["verification"] = r.verification;
        rewrites.push_back(std::move(o));
    }
    j["rewrites"] = rewrites;
    nlohmann::json undone = nlohmann::json::array();
    for (const ReportEntry &u : report.undone)
        undone.push_back({{"pattern", u.pattern}, {"anchor", u.anchor}, {"reason", u.verification}});
    j["undone"] = undone;
    nlohmann::json undecided = nlohmann::json::array();
    for (const ReportEntry &u : report.undecided)
        undecided.push_back({{"pattern", u.pattern}, {"anchor", u.anchor}});
    j["undecided"] = undecided;
    if (report.matches) {
        nlohmann::json matches = nlohmann::json::array();
        for (const ReportEntry &e : *report.matches)
            matches.push_back(matchJson(e));
        j["matches"] = matches;
    }
    if (report.verifyEachApply)
        j["verify_each_apply"] = *report.verifyEachApply;
    return j;
}

std::string reportMarkdown(const RewriteReport &report)
{
    const auto n = [](size_t v) { return std::to_string(v); };
    std::string md = "# " + (report.title.empty() ? "Rewrites of " + report.model : report.title) + "\n\n";
    if (!report.inductor.empty())
        md += "Answers follow " + report.inductor + ".\n\n";
    md += "Nodes: " + n(report.nodesBefore) + " before, " + n(report.nodesAfter) + " after.";
    if (report.verifyEachApply)
        md += std::string(" Verification after each apply: ") + (*report.verifyEachApply ? "on" : "off") + ".";
    md += "\n\n";
    for (const std::string &note : report.notes)
        md += note + "\n\n";
    if (!report.undecided.empty())
        md += "**" + n(report.undecided.size()) + (report.undecided.size() == 1 ? " attempt" : " attempts")
              + " could not be decided: the answer depends on a shape Fusebox does not know** (listed under "
                "Undecided; give the inputs' shapes, or see `fusebox-pass explain`).\n\n";
    // Closed cycles are rare (a fusion an earlier rewrite made cyclic): a
    // column only when there are some.
    const bool cycles = std::any_of(report.counters.begin(), report.counters.end(),
                                    [](const auto &row) { return row.second.closedCycle > 0; });
    md += cycles ? "| pattern | matched | applied | rejected | failed verification | closed cycle |\n"
                   "|---|---|---|---|---|---|\n"
                 : "| pattern | matched | applied | rejected | failed verification |\n|---|---|---|---|---|\n";
    for (const auto &[name, c] : report.counters) {
        md += "| " + name + " | " + n(c.matched) + " | " + n(c.applied) + " | " + n(c.rejected) + " | "
              + n(c.failedVerification) + " |";
        if (cycles)
            md += " " + n(c.closedCycle) + " |";
        md += "\n";
    }
    const auto section = [&](const char *title, const std::vector<const ReportEntry *> &entries) {
        md += "\n## " + std::string(title) + " (" + n(entries.size()) + ")\n\n";
        for (const ReportEntry *e : entries) {
            md += "- `" + e->pattern + "` at `%" + e->anchor + "`";
            if (e->status == ReportStatus::Applied)
                md += ": \u2212" + n(e->nodesRemoved) + " +" + n(e->nodesAdded) + " nodes";
            else if (report.matches && e->nodes > 0)
                md += ": " + n(e->nodes) + " nodes, benefit " + std::to_string(e->benefit);
            if (!e->verification.empty())
                md += " \u2014 " + e->verification;
            if (!e->found)
                md += " \u2014 " + e->note;
            md += "\n";
        }
    };
    const auto pointers = [](const std::vector<ReportEntry> &entries) {
        std::vector<const ReportEntry *> out;
        for (const ReportEntry &e : entries)
            out.push_back(&e);
        return out;
    };
    if (!report.matches) {
        section("Applied", pointers(report.rewrites));
        section("Failed verification", pointers(report.undone));
        if (!report.undecided.empty())
            section("Undecided (unknown shape)", pointers(report.undecided));
        return md;
    }
    const std::pair<ReportStatus, const char *> sections[] = {{ReportStatus::Applied, "Applied"},
                                                              {ReportStatus::Rejected, "Rejected"},
                                                              {ReportStatus::FailedVerification, "Failed verification"},
                                                              {ReportStatus::Pending, "Pending"}};
    for (const auto &[status, title] : sections) {
        std::vector<const ReportEntry *> entries;
        for (const ReportEntry &e : *report.matches)
            if (e.status == status)
                entries.push_back(&e);
        section(title, entries);
    }
    if (!report.undecided.empty())
        section("Undecided (unknown shape)", pointers(report.undecided));
    return md;
}

} // namespace fusebox
