// Inductor's greedy search driven by the group/batch rules, the catalog's
// entries, and a run of the greedy driver over them.

#include "core/ir/GraphBuilder.h"
#include "patterns/GroupBatchTestSupport.h"

#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"
#include "patterns/Catalog.h"
#include "patterns/group_batch/BatchLinear.h"
#include "patterns/group_batch/BatchPointwisePreGrad.h"

#include <algorithm>

using namespace fusebox;
using namespace fusebox::test::gb;
using group_batch::BatchPointwiseOpsPreGradFusion;
using SearchUnary = BatchPointwiseOpsPreGradFusion::Op;

namespace {

/// n tanh(x_i [4, 8]); tanh_k reads relu(tanh_0) instead of x_k for each k in dependents.
GroupGraph dependentTanhs(int n, const std::vector<int> &dependents)
{
    GroupGraph r;
    Graph &g = r.graph;
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId x = input(g, "x" + std::to_string(i), {4, 8});
        if (std::find(dependents.begin(), dependents.end(), i) != dependents.end())
            x = op(g, "aten::relu", "", {r.members[0]}, {4, 8});
        NodeId t = op(g, "aten::tanh", "", {x}, {4, 8});
        r.members.push_back(t);
        outs.emplace_back(t);
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

/// n tanh(x_i) each followed by `chain` relus; the last relus are returned.
GroupGraph tanhsBehindChains(int n, int chain)
{
    GroupGraph r;
    Graph &g = r.graph;
    std::vector<Arg> outs;
    for (int i = 0; i < n; ++i) {
        NodeId y = op(g, "aten::tanh", "", {input(g, "x" + std::to_string(i), {4, 8})}, {4, 8});
        r.members.push_back(y);
        for (int k = 0; k < chain; ++k)
            y = op(g, "aten::relu", "", {y}, {4, 8});
        outs.emplace_back(y);
    }
    GraphBuilder::reopen(g).setOutputs(outs);
    return r;
}

} // namespace

TEST_CASE("a key with fewer than min_fuse_set_size candidates does not fuse", "[patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(SearchUnary::Tanh);
    GroupGraph r = unaryGraph("aten::tanh", 3);
    HorizontalSearchResult result = searchHorizontal(r.graph, pattern);
    REQUIRE(result.groups.empty());
    for (NodeId m : r.members) {
        const CandidateOutcome &o = result.outcomes.at(m);
        REQUIRE(o.kind == CandidateOutcome::Kind::GroupTooSmall);
        REQUIRE(o.candidates == 3);
        REQUIRE(o.key == "input [4, 8]");
    }
    // The option lowers the bar.
    pattern.options().set("min_fuse_set_size", int64_t(3));
    REQUIRE(singleGroup(r.graph, pattern).members == r.members);
}

TEST_CASE("dependent candidates split into subsets too small to fuse", "[patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(SearchUnary::Tanh);
    GroupGraph r = dependentTanhs(5, {4});
    HorizontalSearchResult result = searchHorizontal(r.graph, pattern);
    REQUIRE(result.groups.empty());
    const CandidateOutcome &o = result.outcomes.at(r.members[1]);
    REQUIRE(o.kind == CandidateOutcome::Kind::SubsetTooSmall);
    REQUIRE(o.candidates == 5);
    REQUIRE(o.subsetSize == 4);
    REQUIRE(o.conflicts == std::vector<NodeId>{r.members[4]});
    const CandidateOutcome &late = result.outcomes.at(r.members[4]);
    REQUIRE(late.kind == CandidateOutcome::Kind::SubsetTooSmall);
    REQUIRE(late.subsetSize == 1);

    // With one more independent candidate the first subset is big enough; the
    // dependent one waits for the next round.
    GroupGraph six = dependentTanhs(6, {5});
    HorizontalSearchResult more = searchHorizontal(six.graph, pattern);
    REQUIRE(more.groups.size() == 1);
    REQUIRE(more.groups[0].members == std::vector<NodeId>(six.members.begin(), six.members.begin() + 5));
    REQUIRE(more.outcomes.at(six.members[5]).kind == CandidateOutcome::Kind::SubsetTooSmall);
    fuseAndVerify(six.graph, pattern, more.groups[0].members);
    REQUIRE(opsNamed(six.graph, "aten::tanh").size() == 2);
}

TEST_CASE("max_fuse_set_size splits a group of twelve into 5 + 5 and drops 2", "[patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(SearchUnary::Sigmoid);
    pattern.options().set("max_fuse_set_size", int64_t(5));
    GroupGraph r = unaryGraph("aten::sigmoid", 12);
    HorizontalSearchResult result = searchHorizontal(r.graph, pattern);
    REQUIRE(result.groups.size() == 2);
    REQUIRE(result.groups[0].members == std::vector<NodeId>(r.members.begin(), r.members.begin() + 5));
    REQUIRE(result.groups[1].members == std::vector<NodeId>(r.members.begin() + 5, r.members.begin() + 10));
    for (int i = 10; i < 12; ++i) {
        const CandidateOutcome &o = result.outcomes.at(r.members[i]);
        REQUIRE(o.kind == CandidateOutcome::Kind::SubsetTooSmall);
        REQUIRE(o.subsetSize == 2);
    }
    REQUIRE(result.outcomes.at(r.members[7]).group == 1);

    // Both groups fuse, one after the other, into a valid graph.
    const auto groups = result.groups;
    for (const FusionGroup &group : groups)
        fuseAndVerify(r.graph, pattern, group.members);
    REQUIRE(opsNamed(r.graph, "aten::sigmoid").size() == 4);
    REQUIRE(opsNamed(r.graph, "aten::unbind").size() == 2);
}

TEST_CASE("max_fuse_search_depth bounds how far up a root's search reaches", "[patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(SearchUnary::Tanh);
    // Behind four relus the tanhs sit at depth 5 from the output: found.
    GroupGraph near = tanhsBehindChains(5, 4);
    REQUIRE(singleGroup(near.graph, pattern).root == near.graph.output());

    // Behind five they sit at depth 6: each is found alone, from its own chain.
    GroupGraph far = tanhsBehindChains(5, 5);
    HorizontalSearchResult result = searchHorizontal(far.graph, pattern);
    REQUIRE(result.groups.empty());
    REQUIRE(result.outcomes.at(far.members[0]).kind == CandidateOutcome::Kind::GroupTooSmall);
    REQUIRE(result.outcomes.at(far.members[0]).candidates == 1);

    pattern.options().set("max_fuse_search_depth", int64_t(6));
    REQUIRE(singleGroup(far.graph, pattern).members == far.members);
}

TEST_CASE("the search does not start from getitem roots", "[patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(SearchUnary::Tanh);
    pattern.options().set("max_fuse_search_depth", int64_t(2));
    GroupGraph r = unaryGraph("aten::tanh", 5);
    Graph &g = r.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    NodeId list = build.addOp("aten::broadcast_tensors",
                              {Arg::list(std::vector<Arg>(r.members.begin(), r.members.end()))});
    build.node(list).type = "Tensor[]";
    NodeId item = op(g, "getitem", "", {list, int64_t(0)}, {4, 8});
    build.setOutputs({item});
    // From the output the tanhs are at depth 3; the getitem would see them at
    // depth 2 but is skipped, so the list op finds them.
    FusionGroup group = singleGroup(g, pattern);
    REQUIRE(group.root == list);
    REQUIRE(group.members == r.members);
}

TEST_CASE("the catalog lists every group/batch rule with Inductor's defaults", "[patterns]")
{
    PatternSet set;
    addGroupBatchPatterns(set);
    struct Expected {
        const char *name;
        PassStage stage;
        int benefit;
    };
    const std::vector<Expected> expected{
        {"batch_linear", PassStage::PreGrad, 30},     {"batch_linear_lhs", PassStage::PreGrad, 32},
        {"cat_linear", PassStage::PreGrad, 31},       {"batch_layernorm", PassStage::PreGrad, 28},
        {"batch_tanh", PassStage::PreGrad, 20},       {"batch_sigmoid", PassStage::PreGrad, 20},
        {"batch_relu", PassStage::PreGrad, 20},       {"batch_detach", PassStage::PreGrad, 18},
        {"batch_nan_to_num", PassStage::PreGrad, 18}, {"batch_clamp", PassStage::PreGrad, 18},
        {"batch_dropout", PassStage::PreGrad, 18},    {"batch_linear_post_grad", PassStage::PostGrad, 16},
        {"batch_aten_tanh", PassStage::PostGrad, 14}, {"batch_aten_sigmoid", PassStage::PostGrad, 14},
        {"batch_aten_relu", PassStage::PostGrad, 14}, {"batch_aten_add", PassStage::PostGrad, 12},
        {"batch_aten_sub", PassStage::PostGrad, 12},  {"batch_aten_mul", PassStage::PostGrad, 12},
        {"batch_aten_div", PassStage::PostGrad, 12},  {"group_linear", PassStage::PostGrad, 10},
    };
    REQUIRE(set.size() == expected.size());
    auto all = set.all();
    for (size_t i = 0; i < expected.size(); ++i) {
        const Pattern &p = *all[i];
        INFO(p.name());
        REQUIRE(p.name() == expected[i].name);
        REQUIRE(p.stage() == expected[i].stage);
        REQUIRE(p.benefit() == expected[i].benefit);
        REQUIRE(p.family() == PatternFamily::Horizontal);
        REQUIRE_FALSE(p.description().empty());
        // CatLinearFusion fuses one node at a time (its __init__ sets 1).
        REQUIRE(p.options().getInt("min_fuse_set_size") == (p.name() == "cat_linear" ? 1 : 5));
        REQUIRE(p.options().getInt("max_fuse_set_size") == 300);
        REQUIRE(p.options().getInt("max_fuse_search_depth") == 5);
        REQUIRE(p.unavailableReason().empty() == (p.name() != "group_linear"));
    }
    REQUIRE(set.find("batch_linear")->options().has("fuse_nodes_with_same_users"));
    REQUIRE(set.find("batch_relu")->options().has("fuse_nodes_with_same_parent"));
    REQUIRE(set.find("batch_linear_post_grad")->options().getBool("shape_broadcast_batch_linear", true) == false);
    REQUIRE(set.find("group_linear")->options().getInt("max_fuse_tensor_size_group_linear") == 4096);
    REQUIRE(set.find("batch_relu")->rootOps() == std::vector<std::string>{"aten::relu", "aten::relu_"});
}

TEST_CASE("fuse leaves a group alone when it no longer matches", "[patterns]")
{
    group_batch::PreGradBatchLinearFusion pattern;
    GroupGraph r = linearGraph(5, true);
    const auto group = singleGroup(r.graph, pattern).members;
    GraphBuilder::reopen(r.graph).node(r.graph.findByName("w3")).meta = f32({6, 9});
    const size_t before = r.graph.size();
    EditLog log;
    log.beginGroup("batch_linear#1");
    PatternRewriter rewriter(r.graph, &log);
    // A fuse that changes nothing says so (MLIR's failure()) and records no
    // edit, so its (empty) group is dropped.
    CHECK(pattern.fuse(rewriter, group).failed());
    log.endGroup();
    CHECK(log.groups().empty());
    REQUIRE(r.graph.size() == before);
    REQUIRE(opsNamed(r.graph, "aten::linear").size() == 5);
}

TEST_CASE("the greedy driver applies the pre-grad group/batch rules to a fixed point", "[patterns]")
{
    PatternSet set;
    addGroupBatchPatterns(set);
    for (const Pattern *p : set.all())
        set.setEnabled(p->name(), p->stage() == PassStage::PreGrad);
    GroupGraph r = linearGraph(5, true, /*interleaved=*/true);
    GreedyDriver driver(set);
    DriverResult result = driver.run(r.graph);
    REQUIRE(result.converged);
    REQUIRE(result.counters["batch_linear"].applied == 1);
    REQUIRE(result.counters["batch_tanh"].applied == 1);
    const auto issues = verify(r.graph);
    INFO(formatIssues(issues));
    REQUIRE(issues.empty());
    REQUIRE(opsNamed(r.graph, "aten::linear").empty());
    REQUIRE(opsNamed(r.graph, "aten::tanh").size() == 1);
    REQUIRE(opsNamed(r.graph, "aten::baddbmm").size() == 1);
}
