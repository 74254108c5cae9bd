#include "OpFamily.h"

#include "LiftedParameters.h"
#include "Node.h"

#include <array>
#include <utility>

namespace fusebox {
namespace {

using Entry = std::pair<std::string_view, OpFamily>;

// Bare op names (namespace and trailing '_' stripped) by family.
constexpr std::array kFamilies = {
    Entry{"linear", OpFamily::Linear},
    Entry{"matmul", OpFamily::Linear},
    Entry{"mm", OpFamily::Linear},
    Entry{"bmm", OpFamily::Linear},
    Entry{"addmm", OpFamily::Linear},
    Entry{"baddbmm", OpFamily::Linear},
    Entry{"conv1d", OpFamily::Linear},
    Entry{"conv2d", OpFamily::Linear},
    Entry{"conv3d", OpFamily::Linear},
    Entry{"_convolution", OpFamily::Linear},
    Entry{"convolution", OpFamily::Linear},
    Entry{"einsum", OpFamily::Linear},
    Entry{"layer_norm", OpFamily::Norm},
    Entry{"batch_norm", OpFamily::Norm},
    Entry{"group_norm", OpFamily::Norm},
    Entry{"instance_norm", OpFamily::Norm},
    Entry{"native_layer_norm", OpFamily::Norm},
    Entry{"rms_norm", OpFamily::Norm},
    Entry{"relu", OpFamily::Activation},
    Entry{"tanh", OpFamily::Activation},
    Entry{"sigmoid", OpFamily::Activation},
    Entry{"gelu", OpFamily::Activation},
    Entry{"silu", OpFamily::Activation},
    Entry{"hardswish", OpFamily::Activation},
    Entry{"hardsigmoid", OpFamily::Activation},
    Entry{"softmax", OpFamily::Activation},
    Entry{"log_softmax", OpFamily::Activation},
    Entry{"leaky_relu", OpFamily::Activation},
    Entry{"elu", OpFamily::Activation},
    Entry{"hardtanh", OpFamily::Activation},
    Entry{"relu6", OpFamily::Activation},
    Entry{"dropout", OpFamily::Activation},
    Entry{"add", OpFamily::Pointwise},
    Entry{"sub", OpFamily::Pointwise},
    Entry{"mul", OpFamily::Pointwise},
    Entry{"div", OpFamily::Pointwise},
    Entry{"rsub", OpFamily::Pointwise},
    Entry{"pow", OpFamily::Pointwise},
    Entry{"clamp", OpFamily::Pointwise},
    Entry{"exp", OpFamily::Pointwise},
    Entry{"log", OpFamily::Pointwise},
    Entry{"sqrt", OpFamily::Pointwise},
    Entry{"rsqrt", OpFamily::Pointwise},
    Entry{"neg", OpFamily::Pointwise},
    Entry{"abs", OpFamily::Pointwise},
    Entry{"where", OpFamily::Pointwise},
    Entry{"nan_to_num", OpFamily::Pointwise},
    Entry{"detach", OpFamily::Pointwise},
    Entry{"split", OpFamily::SplitCat},
    Entry{"split_with_sizes", OpFamily::SplitCat},
    Entry{"chunk", OpFamily::SplitCat},
    Entry{"unbind", OpFamily::SplitCat},
    Entry{"cat", OpFamily::SplitCat},
    Entry{"concat", OpFamily::SplitCat},
    Entry{"stack", OpFamily::SplitCat},
    Entry{"getitem", OpFamily::SplitCat},
    Entry{"tensor_split", OpFamily::SplitCat},
    Entry{"view", OpFamily::Shape},
    Entry{"reshape", OpFamily::Shape},
    Entry{"permute", OpFamily::Shape},
    Entry{"transpose", OpFamily::Shape},
    Entry{"t", OpFamily::Shape},
    Entry{"flatten", OpFamily::Shape},
    Entry{"unflatten", OpFamily::Shape},
    Entry{"squeeze", OpFamily::Shape},
    Entry{"unsqueeze", OpFamily::Shape},
    Entry{"slice", OpFamily::Shape},
    Entry{"select", OpFamily::Shape},
    Entry{"expand", OpFamily::Shape},
    Entry{"contiguous", OpFamily::Shape},
    Entry{"size", OpFamily::Shape},
    Entry{"movedim", OpFamily::Shape},
    Entry{"narrow", OpFamily::Shape},
    Entry{"repeat", OpFamily::Shape},
    Entry{"to", OpFamily::Shape},
    Entry{"sum", OpFamily::Reduction},
    Entry{"mean", OpFamily::Reduction},
    Entry{"max", OpFamily::Reduction},
    Entry{"min", OpFamily::Reduction},
    Entry{"amax", OpFamily::Reduction},
    Entry{"max_pool2d", OpFamily::Reduction},
    Entry{"avg_pool2d", OpFamily::Reduction},
    Entry{"adaptive_avg_pool2d", OpFamily::Reduction},
    Entry{"embedding", OpFamily::Embedding},
    Entry{"embedding_bag", OpFamily::Embedding},
    Entry{"If", OpFamily::ControlFlow},
    Entry{"Loop", OpFamily::ControlFlow},
    Entry{"cond", OpFamily::ControlFlow},
    Entry{"while_loop", OpFamily::ControlFlow}, // higher_order::
};

} // namespace

OpFamily opFamily(std::string_view op)
{
    auto colon = op.rfind("::");
    std::string_view bare = colon == std::string_view::npos ? op : op.substr(colon + 2);
    auto dot = bare.find('.');
    if (dot != std::string_view::npos)
        bare = bare.substr(0, dot);
    if (bare.size() > 1 && bare.back() == '_')
        bare.remove_suffix(1); // in-place variants: relu_ is still an activation
    for (const auto &[name, family] : kFamilies)
        if (bare == name)
            return family;
    return OpFamily::Other;
}

OpFamily opFamily(const Node &node)
{
    switch (node.kind()) {
    case NodeKind::Input: return isWeight(node) ? OpFamily::Constant : OpFamily::Input;
    case NodeKind::Output: return OpFamily::Output;
    case NodeKind::Constant: return OpFamily::Constant;
    case NodeKind::Op: break;
    }
    return opFamily(node.op);
}

std::string_view toString(OpFamily family)
{
    switch (family) {
    case OpFamily::Input: return "input";
    case OpFamily::Output: return "output";
    case OpFamily::Constant: return "constant";
    case OpFamily::Linear: return "linear";
    case OpFamily::Norm: return "norm";
    case OpFamily::Activation: return "activation";
    case OpFamily::Pointwise: return "pointwise";
    case OpFamily::SplitCat: return "split/cat";
    case OpFamily::Shape: return "shape";
    case OpFamily::Reduction: return "reduction";
    case OpFamily::Embedding: return "embedding";
    case OpFamily::ControlFlow: return "control flow";
    case OpFamily::Other: return "other";
    }
    return "other";
}

} // namespace fusebox
