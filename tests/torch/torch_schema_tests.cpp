// The op schema registry filled from libtorch's operator registry.
#include <catch.hpp>

#include "core/torch/TorchSchemas.h"

#include <algorithm>

using namespace fusebox;

TEST_CASE("torchSchemas holds libtorch's registered operators", "[torch]")
{
    const OpSchemaRegistry &registry = torchSchemas();
    CHECK(registry.size() > 1000);
    CHECK(&registry == &torchSchemas()); // built once

    const OpSchema *linear = registry.find("aten::linear");
    REQUIRE(linear);
    REQUIRE(linear->arguments.size() == 3);
    CHECK(linear->arguments[0].name == "input");
    CHECK(linear->arguments[0].type == "Tensor");
    CHECK(linear->arguments[1].name == "weight");
    CHECK(linear->arguments[2].name == "bias");
    CHECK(linear->arguments[2].type == "Tensor?");
    REQUIRE(linear->arguments[2].defaultValue);
    CHECK(*linear->arguments[2].defaultValue == "None");
    CHECK_FALSE(linear->arguments[0].defaultValue);
    REQUIRE(linear->returns.size() == 1);
    CHECK(linear->returns[0].type == "Tensor");
    CHECK_FALSE(linear->isMutable);
}

TEST_CASE("torchSchemas keeps overloads, defaults and alias annotations as libtorch prints them", "[torch]")
{
    const OpSchemaRegistry &registry = torchSchemas();
    std::vector<std::string> overloads;
    for (const OpSchema *s : registry.overloads("aten::split"))
        overloads.push_back(s->overload);
    CHECK(std::find(overloads.begin(), overloads.end(), "Tensor") != overloads.end());
    CHECK(std::find(overloads.begin(), overloads.end(), "sizes") != overloads.end());

    const OpSchema *split = registry.find("aten::split", "Tensor");
    REQUIRE(split);
    CHECK(split->qualifiedName() == "aten::split.Tensor");
    CHECK(split->toString() == "aten::split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]");
    CHECK(split->argumentIndex("dim") == 2);
    REQUIRE(split->arguments[2].defaultValue);
    CHECK(*split->arguments[2].defaultValue == "0");

    const OpSchema *layerNorm = registry.find("aten::layer_norm");
    REQUIRE(layerNorm);
    CHECK(layerNorm->arguments[1].type == "int[]");
    // Defaults are printed as libtorch prints the schema's IValue.
    CHECK(layerNorm->arguments[4].defaultValue.value_or("") == "1.0000000000000001e-05");
    CHECK(layerNorm->arguments[5].defaultValue.value_or("") == "True");

    const OpSchema *gelu = registry.find("aten::gelu");
    REQUIRE(gelu);
    CHECK(gelu->arguments.back().kwargOnly);
    CHECK(gelu->arguments.back().defaultValue.value_or("") == "\"none\"");

    const OpSchema *zeros = registry.find("aten::zeros");
    REQUIRE(zeros);
    const int dtype = zeros->argumentIndex("dtype");
    REQUIRE(dtype >= 0);
    CHECK(zeros->arguments[dtype].type == "ScalarType?");
    CHECK(zeros->arguments[dtype].kwargOnly);

    const OpSchema *reluInPlace = registry.find("aten::relu_");
    REQUIRE(reluInPlace);
    CHECK(reluInPlace->isMutable);
    CHECK(reluInPlace->arguments[0].type == "Tensor(a!)");

    // Not only aten: prim ops are registered too.
    const OpSchema *numToTensor = registry.find("prim::NumToTensor", "Scalar");
    REQUIRE(numToTensor);
    CHECK(numToTensor->arguments.size() == 1);
}

TEST_CASE("libtorch's schemas read back from the schema table the light build embeds", "[torch]")
{
    // fusebox-dump-schemas writes this table for fusebox-pass's light build:
    // every schema must come back as libtorch prints it, in the same order.
    const OpSchemaRegistry &registry = torchSchemas();
    const OpSchemaRegistry::TableResult read = OpSchemaRegistry::fromTable(registry.toTable());
    REQUIRE(read.error.empty());
    REQUIRE(read.registry.size() == registry.size());
    size_t differing = 0;
    for (const std::string &name : registry.opNames()) {
        const auto theirs = registry.overloads(name);
        const auto ours = read.registry.overloads(name);
        if (theirs.size() != ours.size()) {
            ++differing;
            continue;
        }
        for (size_t i = 0; i < theirs.size(); ++i)
            if (theirs[i]->toString() != ours[i]->toString() || theirs[i]->isMutable != ours[i]->isMutable)
                ++differing;
    }
    CHECK(differing == 0);
}
