// Dynamo's lifted parameters: their module paths, read from their names, and
// the module scopes derived from them for a graph that records none.
#include "core/ir/GraphBuilder.h"
#include "core/ir/LiftedParameters.h"
#include "core/ir/OpFamily.h"

#include <catch.hpp>

using namespace fusebox;

TEST_CASE("liftedModulePath reads the module path out of Dynamo's input names", "[ir]")
{
    CHECK(liftedModulePath("L_self_modules_backbone_modules_0_parameters_weight_") == "backbone.0");
    CHECK(liftedModulePath("l_self_modules_backbone_modules_0_parameters_weight_") == "backbone.0");
    CHECK(liftedModulePath("L_self_parameters_scale_") == "");
    CHECK(liftedModulePath("L_self_buffers_running_mean_") == "");
    CHECK(liftedModulePath("L_self_modules_bn_buffers_num_batches_tracked_") == "bn");
    // GraphNet's swinv2: a module called "self", and names with underscores.
    CHECK(liftedModulePath("L_self_modules_swinv2_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_"
                           "modules_attention_modules_self_buffers_relative_coords_table_")
          == "swinv2.encoder.layers.0.blocks.0.attention.self");
    CHECK(liftedModulePath("L_self_modules_attention_modules_self_modules_continuous_position_bias_mlp_modules_0_"
                           "parameters_bias_")
          == "attention.self.continuous_position_bias_mlp.0");
    // Not lifted weights: real inputs, other names.
    CHECK_FALSE(liftedModulePath("L_x_"));
    CHECK_FALSE(liftedModulePath("L_self_modules_fc_"));
    CHECK_FALSE(liftedModulePath("arg0_1"));
    CHECK_FALSE(liftedModulePath("L_self_modules_fc_parameters_"));
    CHECK_FALSE(liftedModulePath("primals_1"));
}

TEST_CASE("derivedModuleScopes puts each call in the module its inputs share", "[ir]")
{
    Graph g;
    GraphBuilder build(g);
    const NodeId x = build.addInput("L_x_", {});
    const NodeId w1 = build.addInput("L_self_modules_blocks_modules_0_modules_fc_parameters_weight_", {});
    const NodeId w2 = build.addInput("L_self_modules_blocks_modules_1_modules_fc_parameters_weight_", {});
    const NodeId scale = build.addInput("L_self_parameters_scale_", {});
    const NodeId fc0 = build.addOp("aten::linear", {x, w1, NoneArg{}}, {}, "linear");
    const NodeId act0 = build.addOp("aten::relu", {fc0}, {}, "relu");
    const NodeId fc1 = build.addOp("aten::linear", {x, w2, NoneArg{}}, {}, "linear_1");
    const NodeId sum = build.addOp("aten::add", {act0, fc1}, {}, "add");
    const NodeId scaled = build.addOp("aten::mul", {sum, scale}, {}, "mul");
    const NodeId plain = build.addOp("aten::neg", {x}, {}, "neg");
    build.setOutputs({scaled, plain});

    const std::vector<std::string> scopes = derivedModuleScopes(g);
    REQUIRE(scopes.size() == g.idBound());
    CHECK(scopes[w1.value] == "blocks.0.fc");
    CHECK(scopes[fc0.value] == "blocks.0.fc");
    CHECK(scopes[act0.value] == "blocks.0.fc"); // after fc, nothing else read
    CHECK(scopes[fc1.value] == "blocks.1.fc");
    CHECK(scopes[sum.value] == "blocks"); // the two blocks' parent
    CHECK(scopes[scaled.value] == "");    // the root module's parameter
    CHECK(scopes[plain.value] == "");     // reads a real input only
    CHECK(scopes[x.value] == "");
    CHECK(isLiftedParameter(*g.node(w1)));
    CHECK_FALSE(isLiftedParameter(*g.node(x)));
    // Drawn, counted in the legend and hidden as the constants they are.
    CHECK(opFamily(*g.node(w1)) == OpFamily::Constant);
    CHECK(opFamily(*g.node(x)) == OpFamily::Input);

    // A graph that records scopes keeps them: nothing is derived.
    build.node(plain).provenance.scope = "head";
    CHECK(derivedModuleScopes(g).empty());
}
