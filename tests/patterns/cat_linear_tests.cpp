// cat_linear, Inductor 2.14's CatLinearFusion. The expected graphs are
// Inductor's own: the same Dynamo graphs run through the bridge's pre-grad
// Optimus in the Debian testing root (torch 2.14.1) with
// {"pre_grad_fusion_options": {"cat_linear": {}}} gave, by
// `fusebox-pass compare-inductor`, SAME graph and cat_linear 1 (the first) and
// 3 (the second, whose two linears on one weight share its slices).

#include "InductorRunSupport.h"
#include "SplitCatTestSupport.h"

#include "core/rewrite/MatchUtils.h"
#include "../core/FxTestSchemas.h"

using namespace fusebox;
using fusebox::test::callText;
using fusebox::test::runInductorSchedule;
using fusebox::test::ScheduleRun;
using fusebox::test::sc::countOps;

namespace {

const OpSchemaRegistry &schemas()
{
    static const OpSchemaRegistry registry = [] {
        OpSchemaRegistry r = fxtest::testSchemas();
        r.add(fxtest::schema(
            "aten::slice.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)"));
        r.add(fxtest::schema("aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"));
        return r;
    }();
    return registry;
}

// 65536 x 2048 f32 is 512 MiB of cat traffic, the floor.
const char *const kOne = R"(class GraphModule(torch.nn.Module):
    def forward(self, L_a_: "f32[65536, 1024]", L_b_: "f32[65536, 1024]", L_w_: "f32[64, 2048]", L_bias_: "f32[64]"):
        l_a_ = L_a_
        l_b_ = L_b_
        l_w_ = L_w_
        l_bias_ = L_bias_
        cat = torch.cat([l_a_, l_b_], dim = -1);  l_a_ = l_b_ = None
        linear = torch._C._nn.linear(cat, l_w_, l_bias_);  cat = l_w_ = l_bias_ = None
        relu = torch.relu(linear);  linear = None
        return (relu,)
)";

// Two linears on one weight (the same slices), one of three parts, one too
// wide (128 out-features), and a cat along dim 0 that no linear reads.
const char *const kSeveral = R"(class GraphModule(torch.nn.Module):
    def forward(self, L_a_: "f32[32768, 2048]", L_b_: "f32[32768, 2048]", L_c_: "f32[32768, 2048]", L_w_: "f32[64, 4096]", L_w3_: "f32[96, 6144]", L_wbig_: "f32[128, 4096]", L_bias_: "f32[64]"):
        l_a_ = L_a_
        l_b_ = L_b_
        l_c_ = L_c_
        l_w_ = L_w_
        l_w3_ = L_w3_
        l_wbig_ = L_wbig_
        l_bias_ = L_bias_
        cat = torch.cat([l_a_, l_b_], dim = 1)
        linear = torch._C._nn.linear(cat, l_w_, l_bias_)
        cat_1 = torch.cat([l_b_, l_c_], -1)
        linear_1 = torch._C._nn.linear(cat_1, l_w_)
        cat_2 = torch.cat([l_a_, l_b_, l_c_], dim = -1)
        linear_2 = torch._C._nn.linear(cat_2, l_w3_)
        cat_3 = torch.cat([l_c_, l_a_], dim = -1)
        linear_3 = torch._C._nn.linear(cat_3, l_wbig_)
        cat_4 = torch.cat([l_c_, l_b_])
        add = linear + linear_1
        return (add, linear_2, linear_3, cat_4)
)";

ScheduleRun run(const char *text, std::string_view version)
{
    return runInductorSchedule(text, schemas(), R"({"pre_grad_fusion_options": {"cat_linear": {}}})", version,
                               "dynamo.py");
}

} // namespace

TEST_CASE("cat_linear splits a linear of a wide last-dim cat into one linear per part, summed",
          "[patterns][cat_linear]")
{
    ScheduleRun r = run(kOne, "2.14");
    CHECK(r.counters == std::map<std::string, size_t>{{"cat_linear", 1}});
    const Graph &g = r.graph;
    // Two weight slices, each made contiguous, hoisted above every call.
    CHECK(countOps(g, "aten::slice") == 2);
    CHECK(countOps(g, "aten::clone") == 2);
    CHECK(countOps(g, "aten::linear") == 2);
    CHECK(countOps(g, "aten::add") == 1);
    // The cat stays, dead: pre-grad passes eliminate no dead code.
    CHECK(countOps(g, "aten::cat") == 1);
    CHECK(g.users(g.nodesWithOp("aten::cat").front()).empty());
    std::vector<std::string> calls;
    for (NodeId id : g.nodeIds())
        if (g.node(id)->isOp() && g.node(id)->op != "aten::cat")
            calls.push_back(callText(g, id));
    // The order Inductor's graph has them in, up to names.
    // The order Inductor's graph has them in, up to names: each piece is
    // inserted right after the last input, so the second part's slice comes
    // first.
    REQUIRE(calls.size() == 8);
    CHECK(calls[0] == "aten::slice(L_w_, 1, 1024, 2048)");
    CHECK(calls[1] == "aten::clone(slice_1, memory_format='torch.contiguous_format')");
    CHECK(calls[2] == "aten::slice(L_w_, 1, 0, 1024)");
    CHECK(calls[3] == "aten::clone(slice, memory_format='torch.contiguous_format')");
    CHECK(calls[4] == "aten::linear(L_a_, clone, L_bias_)"); // the bias on the first part only
    CHECK(calls[5] == "aten::linear(L_b_, clone_1, None)");
    CHECK(calls[6].starts_with("aten::add(linear"));
    CHECK(calls[7] == "aten::relu(" + g.node(g.nodesWithOp("aten::add").front())->name + ")");
    const Node &sum = *g.node(g.nodesWithOp("aten::add").front());
    CHECK(sum.provenance.originalSpelling == "operator.add");
    CHECK(sum.meta.toString() == "f32[65536, 64]");

    // Inductor 2.6 has no cat_linear: a config naming it is refused.
    auto config = readPassConfig(R"({"pre_grad_fusion_options": {"cat_linear": {}}})", "cat_linear.json");
    PatternSet set = builtinCatalog();
    auto refused = configurePatterns(set, *config, *findInductorProfile("2.6"));
    REQUIRE_FALSE(refused.isOk());
    CHECK(refused.error().message.find("a pass of Inductor 2.14") != std::string::npos);
}

TEST_CASE("cat_linear shares a weight's slices, takes three parts, and keeps to its gates", "[patterns][cat_linear]")
{
    ScheduleRun r = run(kSeveral, "2.14");
    CHECK(r.counters == std::map<std::string, size_t>{{"cat_linear", 3}});
    const Graph &g = r.graph;
    // Inductor 2.14: 36 nodes; 5 slices and clones (2 for l_w_, shared by
    // linear and linear_1, 3 for l_w3_), 8 linears, 5 adds (the model's own
    // and 4 partial sums), every cat kept.
    CHECK(g.size() == 36);
    CHECK(countOps(g, "aten::slice") == 5);
    CHECK(countOps(g, "aten::clone") == 5);
    CHECK(countOps(g, "aten::linear") == 8);
    CHECK(countOps(g, "aten::add") == 5);
    CHECK(countOps(g, "aten::cat") == 5);
    // linear_3 (128 out-features) is left as it was.
    const NodeId wide = g.findByName("linear_3");
    REQUIRE(wide.isValid());
    CHECK(g.node(nodeArgAt(*g.node(wide), 0, "input"))->name == "cat_3");
}
