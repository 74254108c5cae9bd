#pragma once

#include <string_view>

namespace fusebox {

class Node;

/// Broad operator families, used to colour nodes and to group the op histogram.
enum class OpFamily {
    Input,
    Output,
    Constant,
    Linear,      ///< linear, matmul, mm, bmm, addmm, baddbmm, convolutions
    Norm,        ///< layer_norm, batch_norm, group_norm, ...
    Activation,  ///< relu, tanh, sigmoid, gelu, softmax, ...
    Pointwise,   ///< add, mul, sub, div, clamp, ...
    SplitCat,    ///< split, chunk, unbind, getitem, cat, stack
    Shape,       ///< view, reshape, permute, transpose, flatten, squeeze, slice, select, ...
    Reduction,   ///< sum, mean, max, pooling
    Embedding,   ///< embedding, embedding_bag
    ControlFlow, ///< prim::If, prim::Loop (imported opaque)
    Other,
};

/// The family of an op name ("aten::relu" -> Activation).
OpFamily opFamily(std::string_view op);
/// The family of a node (inputs, constants and the output by kind, ops by
/// name). A weight Dynamo lifted into an input (LiftedParameters.h) is a
/// Constant: the views draw, count and hide it as one.
OpFamily opFamily(const Node &node);
/// "linear", "norm", "activation", ...
std::string_view toString(OpFamily family);

} // namespace fusebox
