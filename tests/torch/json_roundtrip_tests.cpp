#include "core/io/GraphJson.h"
#include "core/ir/GraphCompare.h"
#include "core/ir/Verifier.h"
#include "core/torch/ModelLoader.h"

#include <catch.hpp>

using namespace fusebox;

TEST_CASE("graph JSON round-trips imported models with no difference", "[torch][io]")
{
    const std::string model = GENERATE(as<std::string>{}, "resnet18", "mobilenet_v3_small", "demo");
    const std::string path = model == "demo" ? std::string(FUSEBOX_SOURCE_DIR) + "/resources/demo/recsys_demo.pt"
                                             : std::string(FUSEBOX_FIXTURE_DIR) + "/" + model + ".pt";
    INFO(path);
    auto imported = loadModel(path);
    REQUIRE(imported.hasValue());
    const Graph &g = imported->graph;
    REQUIRE(g.size() > 100);

    // Without weights: the IR comes back identical.
    auto back = readGraphJson(writeGraphJson(g), model + ".json");
    REQUIRE(back.hasValue());
    CHECK(verify(back->graph).empty());
    auto diff = firstDifference(g, back->graph);
    INFO(diff.value_or("no difference"));
    CHECK_FALSE(diff.has_value());

    // With weights: every payload comes back byte for byte.
    auto withWeights = readGraphJson(writeGraphJson(g, {.embedWeights = true, .indent = -1}), model + ".json");
    REQUIRE(withWeights.hasValue());
    REQUIRE(withWeights->graph.weights().size() == g.weights().size());
    for (const std::string &key : g.weights().keys()) {
        auto original = g.weights().get(key);
        auto copy = withWeights->graph.weights().get(key);
        REQUIRE(copy);
        CHECK(copy->data == original->data);
        CHECK(copy->meta == original->meta);
    }
}
