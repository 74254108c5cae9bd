// whyScheduleSkips: the candidates Find Matches lists that Apply All, under
// Inductor's schedule, will not apply on this graph (issue 36: a post-grad
// dump listed 64 pending normalization_pass rows and Apply All did nothing).
#include "core/io/FxText.h"
#include "core/io/PassConfig.h"
#include "core/ir/ShapeInference.h"
#include "patterns/Catalog.h"
#include "patterns/InductorProfile.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"

#include <catch.hpp>

using namespace fusebox;

namespace {

const char *const kDynamo = R"(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8]", L_y_: "f32[4, 8]"):
        l_x_ = L_x_
        l_y_ = L_y_
        cat: "f32[8, 8]" = torch.cat([l_x_, l_y_]);  l_x_ = l_y_ = None
        relu: "f32[8, 8]" = torch.relu(cat);  cat = None
        return (relu,)
)";

const char *const kAten = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 8]", arg1_1: "f32[4, 8]"):
        cat: "f32[8, 8]" = torch.ops.aten.cat.default([arg0_1, arg1_1]);  arg0_1 = arg1_1 = None
        relu: "f32[8, 8]" = torch.ops.aten.relu.default(cat);  cat = None
        return (relu,)
)";

Graph read(const char *text, const char *name)
{
    auto loaded = readFxText(text, {nullptr, name});
    INFO((loaded ? "" : loaded.error().message));
    REQUIRE(loaded.hasValue());
    inferShapes(loaded->graph);
    return std::move(loaded->graph);
}

} // namespace

TEST_CASE("whyScheduleSkips names the passes Inductor's schedule leaves out on a graph's stage", "[patterns][schedule]")
{
    auto config = readPassConfig(R"({"pre_grad_fusion_options": {"normalization_pass": {}},
                                     "post_grad_fusion_options": {"normalization_aten_pass": {}}})",
                                 "config.json");
    REQUIRE(config.hasValue());
    PatternSet set = builtinCatalog();
    REQUIRE(configurePatterns(set, *config, *findInductorProfile("2.14")).isOk());
    const Pattern &preGrad = *set.find("normalization_pass");
    const Pattern &postGrad = *set.find("normalization_aten_pass");
    const Pattern &notNamed = *set.find("batch_linear");

    const Graph dynamo = read(kDynamo, "dynamo.py");
    CHECK(whyScheduleSkips(PassSchedule::Inductor, set, *config, dynamo, preGrad).empty());
    const std::string post = whyScheduleSkips(PassSchedule::Inductor, set, *config, dynamo, postGrad);
    CHECK(post.find("a post_grad pass") != std::string::npos);
    CHECK(post.find("Dynamo") != std::string::npos);

    const Graph aten = read(kAten, "aot.py");
    CHECK(whyScheduleSkips(PassSchedule::Inductor, set, *config, aten, postGrad).empty());
    const std::string pre = whyScheduleSkips(PassSchedule::Inductor, set, *config, aten, preGrad);
    CHECK(pre.find("a pre_grad pass") != std::string::npos);
    CHECK(pre.find("ATen") != std::string::npos);
    // A pass the config does not name is not run on any graph.
    CHECK(whyScheduleSkips(PassSchedule::Inductor, set, *config, dynamo, notNamed).find("not in Inductor's")
          != std::string::npos);

    // The greedy search runs every enabled pattern wherever it matches.
    CHECK(whyScheduleSkips(PassSchedule::Greedy, set, *config, aten, preGrad).empty());
}
