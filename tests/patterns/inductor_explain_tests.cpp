// Why-not in Inductor's terms (explainInInductorSchedule): the schedule's own
// reasons (stage, config, an earlier pass, the sweep) and the source of each
// check, on hand-built graphs whose outcome is counted by hand.

#include "GroupBatchGraphs.h"
#include "SplitCatTestSupport.h"

#include "core/rewrite/InductorExplainer.h"
#include "patterns/PassSchedule.h"

using namespace fusebox;
using namespace fusebox::test::sc;

namespace {

Explanation explainOne(const Graph &graph, const PatternSet &set, std::string_view rule, std::string_view node)
{
    InductorScheduleDriver driver(set);
    auto all = explainInInductorSchedule(graph, driver, *set.find(rule), {named(graph, node)});
    REQUIRE(all.size() == 1);
    return all.front();
}

/// split(x) -> g1 -> split2(g1) -> h1 -> split3(h1): three splits in a chain.
Graph splitChainGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto g = b.split(x, {16, 32, 16}, 1, "split", "g");
    auto h = b.split(g[1], {8, 24}, 1, "split2", "h");
    auto k = b.split(h[1], {12, 12}, 1, "split3", "k");
    return b.finish({g[0], h[0], b.relu(k[0], "relu0"), b.relu(k[1], "relu1"), g[2]});
}

} // namespace

TEST_CASE("Inductor's why-not follows a node an earlier pass re-created", "[explain][inductor]")
{
    const PatternSet set = builtinCatalog();
    Graph g = mergeSplitsGraph();
    // merge_splits_pass runs before split_cat_pass and merges split2 into
    // split: split2's getitems then read the merged split, which split_cat_pass
    // meets in its place.
    Explanation e = explainOne(g, set, "split_cat_pass", "split2");
    REQUIRE_FALSE(e.matched);
    const Check *still = nullptr;
    for (const Check &c : e.checks)
        if (c.description == "the node is still there when split_cat_pass runs")
            still = &c;
    REQUIRE(still != nullptr);
    CHECK(still->passed);
    CHECK(still->actual.find("re-created by merge_splits_pass (pass ") == 0);
    CHECK(still->actual.find("explained as that node") != std::string::npos);
    CHECK(still->source.find("pre_grad_passes") != std::string::npos);
    CHECK(e.context.find("Inductor 2.14's pre_grad+post_grad schedule, pass ") == 0);
    // The merged split is not in the explained graph: the check says which
    // rewrite made it.
    REQUIRE(e.failure() != nullptr);
    CHECK(e.failure()->actual.find("made by merge_splits_pass#") != std::string::npos);

    // The same rule on the graph as it is (Fusebox's greedy search) has no
    // schedule to follow.
    Explanation greedy = explain(g, *set.find("split_cat_pass"), named(g, "split2"));
    CHECK(greedy.context == "Fusebox's greedy search");
    for (const Check &c : greedy.checks)
        CHECK(c.description != "the node is still there when split_cat_pass runs");
}

TEST_CASE("Inductor's why-not names the earlier pass that rewrote the node away", "[explain][inductor]")
{
    const PatternSet set = builtinCatalog();
    // remove_split_with_size_one_pass runs before merge_splits_pass and
    // removes the one-section split: its getitem's users read x.
    Graph g = removeSplitWithSizeOneGraph();
    Explanation e = explainOne(g, set, "merge_splits_pass", "split");
    INFO(e.summary);
    REQUIRE(e.failure() != nullptr);
    CHECK(e.failure()->description == "the node is still there when merge_splits_pass runs");
    CHECK(e.failure()->actual.find("%split was rewritten away by remove_split_with_size_one_pass (pass ") == 0);
    CHECK(e.failure()->source.find("pre_grad_passes") != std::string::npos);
}

TEST_CASE("Inductor's why-not says when the pass's own sweep removed the node first", "[explain][inductor]")
{
    const PatternSet set = builtinCatalog();
    Graph g = splitChainGraph();
    // The sweep goes last to first: split3 merges into split2 (which goes),
    // so the visit of split2 never comes; split itself is then met again.
    Explanation middle = explainOne(g, set, "merge_splits_pass", "split2");
    REQUIRE(middle.failure() != nullptr);
    CHECK(middle.failure()->description == "the pass's sweep reaches the node");
    CHECK(middle.failure()->actual.find("removed %split2 first") != std::string::npos);
    CHECK(middle.failure()->source.find("PatternMatcherPass.apply") != std::string::npos);

    Explanation last = explainOne(g, set, "merge_splits_pass", "split3");
    CHECK(last.matched);
    CHECK(last.summary.find("merge_splits_pass fires at %split3 when it runs (pass ") == 0);
    // The rule's checks name merge_splits in the newest profile's split_cat.py (2.14.1: line 599).
    bool named = false;
    for (const Check &c : last.checks)
        named = named || c.source == "split_cat.py:599 merge_splits";
    CHECK(named);
}

TEST_CASE("Inductor's why-not checks the graph's stage and the config", "[explain][inductor]")
{
    PatternSet set = builtinCatalog();
    Graph g = mergeSplitsGraph();
    set.setEnabled("merge_splits_pass", false);
    Explanation off = explainOne(g, set, "merge_splits_pass", "split2");
    REQUIRE(off.failure() != nullptr);
    CHECK(off.failure()->description == "the pass config runs merge_splits_pass");
    CHECK(off.failure()->actual.find("the config does not name it") == 0);
    CHECK(off.context.find("not scheduled") != std::string::npos);

    // An ATen graph read from PT2 gets post_grad_passes only.
    set.setEnabled("merge_splits_pass", true);
    Graph aten = mergeSplitsGraph();
    GraphBuilder::reopen(aten).metadata()["source.format"] = "fx-text";
    Explanation stage = explainOne(aten, set, "merge_splits_pass", "split2");
    REQUIRE(stage.failure() != nullptr);
    CHECK(stage.failure()->description == "Inductor runs pre_grad passes on this graph");
    CHECK(stage.failure()->actual
          == "merge_splits_pass is a pre_grad pass; this graph is post_grad (an ATen graph), which gets only "
             "post_grad_passes");
}

TEST_CASE("Inductor's why-not marks the checks Inductor does not make", "[explain][inductor]")
{
    const PatternSet set = builtinCatalog();
    auto [g, members] = test::gb::linearGraph(5);
    InductorScheduleDriver driver(set);
    auto all = explainInInductorSchedule(g, driver, *set.find("batch_linear"), members);
    REQUIRE(all.size() == 5);
    for (const Explanation &e : all) {
        INFO(e.summary);
        CHECK(e.matched);
    }
    const std::vector<Check> &checks = all.front().checks;
    auto find = [&](std::string_view description) -> const Check & {
        for (const Check &c : checks)
            if (c.description == description)
                return c;
        FAIL("no check " << description);
        return checks.front();
    };
    // is_linear_node_can_be_fused's conditions are Inductor's ...
    CHECK(find("input is 2-D").source.find("is_linear_node_can_be_fused") != std::string::npos);
    CHECK_FALSE(find("input is 2-D").fuseboxOnly);
    CHECK_FALSE(find("no user mutates the output").fuseboxOnly);
    // ... a static weight and a well-formed linear are Fusebox's own (a
    // symbolic input shape groups, as Inductor keys on str(shape)).
    CHECK_FALSE(find("input shape is known").fuseboxOnly);
    CHECK(find("weight shape is static").fuseboxOnly);
    CHECK(find("weight shape is static").source.find("Fusebox only:") == 0);
    CHECK(find("input features match the weight").fuseboxOnly);
    // The search's checks name 2.6's search.
    CHECK(find("candidate group reaches min_fuse_set_size").source.find("apply_group_batch_fusion")
          != std::string::npos);
    CHECK(find("independent subset reaches min_fuse_set_size").source.find("find_independent_subset_greedy")
          != std::string::npos);

    // Four linears are below the default min_fuse_set_size of 5.
    auto [small, four] = test::gb::linearGraph(4);
    auto under = explainInInductorSchedule(small, driver, *set.find("batch_linear"), {four.front()});
    REQUIRE(under.front().failure() != nullptr);
    CHECK(under.front().failure()->actual == "candidate group of 4 < min_fuse_set_size 5");
}

TEST_CASE("Inductor's schedule leaves out merge_stack_tahn_unbind_pass, which 2.6 fills with no pattern",
          "[explain][inductor]")
{
    PatternSet set = builtinCatalog();
    set.disableAll();
    set.setEnabled("merge_stack_tahn_unbind_pass", true);
    Graph g = mergeStackTanhUnbindGraph();
    const size_t before = g.size();
    // Fusebox's own rule fires here (split_cat_merge_tests) ...
    REQUIRE(explain(g, *set.find("merge_stack_tahn_unbind_pass"), named(g, "tanh")).matched);
    // ... but Inductor's pass is empty, and its schedule changes nothing.
    InductorScheduleDriver driver(set);
    Graph ran = g.clone();
    driver.run(ran);
    CHECK(ran.size() == before);
    Explanation e = explainOne(g, set, "merge_stack_tahn_unbind_pass", "tanh");
    REQUIRE(e.failure() != nullptr);
    CHECK(e.failure()->actual.find("2.6 registers no pattern for merge_stack_tahn_unbind_pass") == 0);
}
