#pragma once
// Dynamo lifts a module's parameters and buffers into graph inputs named by
// their module path (L_self_modules_backbone_modules_0_parameters_weight_).
// Such a graph records no module scopes, and its "inputs" are mostly
// weights: the views read the names to draw them as the constants they are
// and to group the graph by module (issue 36: GraphNet gpt2 showed 150 input
// boxes, and a 90-node capture fitted at 13 %).

#include "Graph.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// The module path of a parameter or buffer Dynamo lifted into an input,
/// from its name: "L_self_modules_backbone_modules_0_parameters_weight_" →
/// "backbone.0", "L_self_parameters_scale_" → "" (the root module's own);
/// the lower-case local Dynamo assigns it (l_self_…) reads the same. nullopt
/// for any other name.
std::optional<std::string> liftedModulePath(std::string_view name);

/// True for an input node that is a lifted parameter or buffer.
bool isLiftedParameter(const Node &node);

/// True for a weight: a constant, or a lifted parameter or buffer. What the
/// views draw, count (opFamily) and hide (Show Constants) as a constant.
bool isWeight(const Node &node);

/// Module scopes (dotted paths, "" for none) for each node id of a graph
/// whose nodes record none but whose inputs are lifted parameters; an empty
/// vector otherwise (scopes recorded, or nothing to derive them from). A
/// lifted parameter is in its module; a call that reads lifted parameters is
/// in the deepest module theirs share (a linear reading fc2's weight is in
/// fc2, whatever module its activation came from); another call is in the
/// deepest module its inputs' scopes share (the relu after fc1 is in fc1, an
/// add of two blocks' outputs in their parent); graph inputs that are not
/// parameters, and the output, are in none.
std::vector<std::string> derivedModuleScopes(const Graph &graph);

} // namespace fusebox
