// The report model both `fusebox-pass run --report` and the IDE's review
// report write (patterns/RewriteReport.h): the same names in JSON and
// Markdown, whoever filled it.

#include "patterns/RewriteReport.h"

#include <catch.hpp>

using namespace fusebox;

namespace {

DriverResult twoRewrites()
{
    DriverResult r;
    r.nodesBefore = 20;
    r.nodesAfter = 14;
    r.counters["batch_linear"] = {3, 1, 1, 1, 0};
    r.counters["merge_getitem_cat_pass"] = {2, 2, 0, 0, 1};
    r.rewrites.push_back({"batch_linear#1", "batch_linear", "linear", 4, 2});
    r.rewrites.push_back({"merge_getitem_cat_pass#1", "merge_getitem_cat_pass", "cat", 3, 1});
    return r;
}

} // namespace

TEST_CASE("a run's report: counters, rewrites and undone under one set of names", "[patterns][report]")
{
    RewriteReport report = rewriteReport("model.pt", twoRewrites());
    ReportEntry undone;
    undone.pattern = "batch_linear";
    undone.anchor = "linear_1";
    undone.status = ReportStatus::FailedVerification;
    undone.verification = "max |diff| 0.5";
    report.undone.push_back(undone);

    const nlohmann::json j = reportJson(report);
    CHECK(j.at("model") == "model.pt");
    CHECK(j.at("nodes_before") == 20);
    CHECK(j.at("nodes_after") == 14);
    const nlohmann::json &c = j.at("counters").at("batch_linear");
    CHECK(c.at("matched") == 3);
    CHECK(c.at("applied") == 1);
    CHECK(c.at("rejected") == 1);
    CHECK(c.at("failed_verification") == 1);
    CHECK(j.at("counters").at("merge_getitem_cat_pass").at("closed_cycle") == 1);
    REQUIRE(j.at("rewrites").size() == 2);
    CHECK(j.at("rewrites")[0]
          == nlohmann::json{{"label", "batch_linear#1"},
                            {"pattern", "batch_linear"},
                            {"anchor", "linear"},
                            {"nodes_removed", 4},
                            {"nodes_added", 2}});
    CHECK(j.at("undone")
          == nlohmann::json::array(
              {{{"pattern", "batch_linear"}, {"anchor", "linear_1"}, {"reason", "max |diff| 0.5"}}}));
    // A run decides nothing: no decision list, no verification toggle.
    CHECK_FALSE(j.contains("matches"));
    CHECK_FALSE(j.contains("verify_each_apply"));

    const std::string md = reportMarkdown(report);
    CHECK(md.find("# Rewrites of model.pt\n") == 0);
    CHECK(md.find("Nodes: 20 before, 14 after.\n") != std::string::npos);
    // A closed cycle gets its column.
    CHECK(md.find("| pattern | matched | applied | rejected | failed verification | closed cycle |")
          != std::string::npos);
    CHECK(md.find("| merge_getitem_cat_pass | 2 | 2 | 0 | 0 | 1 |") != std::string::npos);
    CHECK(md.find("## Applied (2)\n\n- `batch_linear` at `%linear`: \u22124 +2 nodes\n") != std::string::npos);
    CHECK(md.find("## Failed verification (1)\n\n- `batch_linear` at `%linear_1` \u2014 max |diff| 0.5\n")
          != std::string::npos);
}

TEST_CASE("a review's report lists every decision by status", "[patterns][report]")
{
    RewriteReport report;
    report.title = "Review of demo";
    report.model = "demo";
    report.nodesBefore = 10;
    report.nodesAfter = 8;
    report.verifyEachApply = true;
    report.counters["batch_relu"] = {1, 0, 1, 0, 0};
    ReportEntry rejected;
    rejected.pattern = "batch_relu";
    rejected.anchor = "relu";
    rejected.status = ReportStatus::Rejected;
    rejected.nodes = 3;
    rejected.benefit = 2;
    rejected.signature = "abc";
    rejected.found = false;
    rejected.note = "not found by the last search on the current graph";
    report.matches = std::vector<ReportEntry>{rejected};

    const nlohmann::json j = reportJson(report);
    CHECK(j.at("verify_each_apply") == true);
    REQUIRE(j.at("matches").size() == 1);
    const nlohmann::json &m = j.at("matches")[0];
    CHECK(m.at("status") == "rejected");
    CHECK(m.at("signature") == "abc");
    CHECK(m.at("nodes") == 3);
    CHECK(m.at("found") == false);
    CHECK_FALSE(m.contains("nodes_removed"));

    const std::string md = reportMarkdown(report);
    CHECK(md.find("# Review of demo\n") == 0);
    CHECK(md.find("Nodes: 10 before, 8 after. Verification after each apply: on.") != std::string::npos);
    CHECK(md.find("| pattern | matched | applied | rejected | failed verification |\n") != std::string::npos);
    CHECK(md.find("## Rejected (1)\n\n- `batch_relu` at `%relu`: 3 nodes, benefit 2 \u2014 not found")
          != std::string::npos);
    for (const char *section : {"## Applied (0)", "## Failed verification (0)", "## Pending (0)"})
        CHECK(md.find(section) != std::string::npos);
}
