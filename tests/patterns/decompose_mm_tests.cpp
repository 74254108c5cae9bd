// decompose_mm_pass on AOT graphs. The expected graphs and counters are
// Inductor's own: the same graphs run through the bridge's post-grad Optimus
// with {"post_grad_fusion_options": {"decompose_mm_pass": {}}}, by
// `fusebox-pass compare-inductor` (SAME) in both reference roots.

#include "InductorRunSupport.h"
#include "SplitCatTestSupport.h"

#include "../core/FxTestSchemas.h"

#include <algorithm>

using namespace fusebox;
using fusebox::test::callText;
using fusebox::test::runInductorSchedule;
using fusebox::test::ScheduleRun;
using fusebox::test::sc::countOps;

namespace {

const OpSchemaRegistry &decomposeSchemas()
{
    static const OpSchemaRegistry registry = [] {
        OpSchemaRegistry r = fxtest::testSchemas();
        r.add(fxtest::schema("aten::mm(Tensor self, Tensor mat2) -> Tensor"));
        r.add(fxtest::schema(
            "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor"));
        r.add(fxtest::schema("aten::bmm(Tensor self, Tensor mat2) -> Tensor"));
        r.add(fxtest::schema("aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)"));
        return r;
    }();
    return registry;
}

// One row times [16, 8] (mm and addmm), a bmm of batch 1, and products
// neither version decomposes on CPU (4 rows) or only 2.14 does (b [128, 32]).
const char *const kProducts = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[1, 16][16, 1]cpu", arg1_1: "f32[16, 8][8, 1]cpu", arg2_1: "f32[8][1]cpu", arg3_1: "f32[1, 4, 16][64, 16, 1]cpu", arg4_1: "f32[1, 16, 8][128, 8, 1]cpu", arg5_1: "f32[4, 16][16, 1]cpu", arg6_1: "f32[1, 128][128, 1]cpu", arg7_1: "f32[128, 32][32, 1]cpu"):
        mm = torch.ops.aten.mm.default(arg0_1, arg1_1)
        relu = torch.ops.aten.relu.default(mm)
        addmm = torch.ops.aten.addmm.default(arg2_1, arg0_1, arg1_1)
        bmm = torch.ops.aten.bmm.default(arg3_1, arg4_1)
        mm_1 = torch.ops.aten.mm.default(arg5_1, arg1_1)
        mm_2 = torch.ops.aten.mm.default(arg6_1, arg7_1)
        return (relu, addmm, bmm, mm_1, mm_2)
)";

ScheduleRun runDecompose(std::string_view version)
{
    return runInductorSchedule(kProducts, decomposeSchemas(),
                               R"({"post_grad_fusion_options": {"decompose_mm_pass": {}}})", version, "aot_forward.py");
}

} // namespace

TEST_CASE("decompose_mm_pass turns memory-bound products into a broadcast multiply and a sum", "[patterns][post_grad]")
{
    // Inductor 2.14: mm_2 ([1, 128] x [128, 32]) is within 2.14's CPU limits.
    ScheduleRun v214 = runDecompose("2.14");
    CHECK(v214.counters
          == std::map<std::string, size_t>{{"decompose_addmm", 1},
                                           {"decompose_bmm", 1},
                                           {"decompose_mm", 2},
                                           {"pattern_matcher_count", 5},
                                           {"pattern_matcher_nodes", 5}});
    CHECK(countOps(v214.graph, "aten::mm") == 1); // mm_1: 4 rows
    CHECK(countOps(v214.graph, "aten::addmm") == 0);
    CHECK(countOps(v214.graph, "aten::bmm") == 0);
    CHECK(countOps(v214.graph, "aten::unsqueeze") == 8);
    CHECK(countOps(v214.graph, "aten::mul") == 4);
    CHECK(countOps(v214.graph, "aten::sum") == 4);
    CHECK(countOps(v214.graph, "aten::add") == 1);
    // mm(a, b) -> sum(a.unsqueeze(2) * b.unsqueeze(0), [-2]); bmm with 3 and 1.
    std::vector<std::string> calls;
    for (NodeId id : v214.graph.nodeIds())
        if (v214.graph.node(id)->isOp())
            calls.push_back(callText(v214.graph, id));
    auto has = [&](const std::string &c) { return std::find(calls.begin(), calls.end(), c) != calls.end(); };
    CHECK(has("aten::unsqueeze(arg0_1, 2)"));
    CHECK(has("aten::unsqueeze(arg1_1, 0)"));
    CHECK(has("aten::unsqueeze(arg3_1, 3)"));
    CHECK(has("aten::unsqueeze(arg4_1, 1)"));
    const Node &relu = *v214.graph.node(v214.graph.findByName("relu"));
    const Node &sum = *v214.graph.node(relu.args()[0].node());
    CHECK(sum.op == "aten::sum");
    CHECK(callText(v214.graph, sum.id()).ends_with(", [-2])"));
    CHECK(sum.meta.toString() == "f32[1, 8]");

    // Inductor 2.6 decomposes a CPU mm only up to b = [64, 16]: mm_2 stays.
    ScheduleRun v26 = runDecompose("2.6");
    CHECK(v26.counters
          == std::map<std::string, size_t>{{"decompose_addmm", 1},
                                           {"decompose_bmm", 1},
                                           {"decompose_mm", 1},
                                           {"pattern_matcher_count", 5},
                                           {"pattern_matcher_nodes", 5}});
    CHECK(countOps(v26.graph, "aten::mm") == 2);
}
