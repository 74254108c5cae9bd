// randomInputs() of Executor.h: seeded example inputs from the recorded
// input shapes, with index inputs kept inside the tables they index.
#include "Executor.h"

#include "TorchValueConversion.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>

namespace fusebox {
namespace {

/// Ops through which an index tensor keeps its values (it is only viewed,
/// split or copied), so the op it finally indexes bounds the input's values.
bool keepsValues(std::string_view op)
{
    static const std::set<std::string_view> kOps = {
        "getitem",       "aten::select",    "aten::slice",      "aten::view",         "aten::reshape",
        "aten::flatten", "aten::squeeze",   "aten::unsqueeze",  "aten::split",        "aten::split_with_sizes",
        "aten::unbind",  "aten::chunk",     "aten::contiguous", "aten::clone",        "aten::detach",
        "aten::t",       "aten::transpose", "aten::permute",    "aten::expand",       "aten::narrow",
        "aten::movedim", "aten::cat",       "aten::stack",      "aten::index_select",
    };
    return kOps.count(op) != 0;
}

std::optional<int64_t> staticDim(const Graph &graph, const Arg &arg, int64_t dim)
{
    const Node *node = arg.isNode() ? graph.node(arg.node()) : nullptr;
    if (!node || !node->meta.hasStaticShape())
        return std::nullopt;
    const auto &shape = *node->meta.shape;
    if (dim < 0)
        dim += static_cast<int64_t>(shape.size());
    if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
        return std::nullopt;
    return std::get<int64_t>(shape[dim]);
}

/// The bound `user` puts on the values of `value` when `value` is its index
/// argument: embedding(weight, indices, ...) -> weight.size(0);
/// index_select(self, dim, index) -> self.size(dim).
std::optional<int64_t> indexBound(const Graph &graph, const Node &user, NodeId value)
{
    const std::vector<Arg> &args = user.args();
    if ((user.op == "aten::embedding" || user.op == "aten::embedding_bag") && args.size() > 1 && args[1] == Arg(value))
        return staticDim(graph, args[0], 0);
    if (user.op == "aten::index_select" && args.size() > 2 && args[2] == Arg(value))
        if (auto dim = args[1].asInt())
            return staticDim(graph, args[0], *dim);
    return std::nullopt;
}

/// The smallest index bound reachable from `input` through keepsValues() ops.
std::optional<int64_t> integerBound(const Graph &graph, NodeId input)
{
    std::optional<int64_t> bound;
    std::deque<NodeId> queue{input};
    std::unordered_set<NodeId> seen{input};
    while (!queue.empty()) {
        NodeId value = queue.front();
        queue.pop_front();
        for (NodeId userId : graph.users(value)) {
            const Node &user = *graph.node(userId);
            if (auto b = indexBound(graph, user, value); b && *b > 0)
                bound = std::min(bound.value_or(*b), *b);
            else if (keepsValues(user.op) && seen.insert(userId).second)
                queue.push_back(userId);
        }
    }
    return bound;
}

} // namespace

Expected<std::vector<HostTensor>> randomInputs(const Graph &graph, uint64_t seed)
{
    std::vector<HostTensor> inputs;
    try {
        at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
        for (NodeId id : graph.inputs()) {
            const Node &input = *graph.node(id);
            if (!input.meta.hasStaticShape())
                return Error{"%" + input.name + ": input shape "
                             + (input.meta.shape ? input.meta.shapeString() : std::string("unknown"))
                             + " is not static (give the model's input shapes)"};
            std::vector<int64_t> sizes;
            for (const Dim &d : *input.meta.shape)
                sizes.push_back(std::get<int64_t>(d));
            const DType dtype = input.meta.dtype == DType::Unknown ? DType::Float32 : input.meta.dtype;
            auto scalar = torchimport::toScalarType(dtype);
            if (!scalar)
                return Error{"%" + input.name + ": dtype " + std::string(shortName(dtype)) + " has no libtorch type"};
            at::TensorOptions options = at::TensorOptions().dtype(*scalar);
            at::Tensor tensor;
            if (at::isFloatingType(*scalar) || at::isComplexType(*scalar))
                tensor = at::randn(sizes, generator, options.dtype(at::kDouble)).to(*scalar);
            else if (*scalar == at::kBool)
                tensor = at::randint(0, 2, sizes, generator, options.dtype(at::kLong)).to(at::kBool);
            else
                tensor = at::randint(0, integerBound(graph, id).value_or(2), sizes, generator, options);
            inputs.push_back(torchimport::weightFromTensor(tensor));
        }
    } catch (const std::exception &e) {
        return Error{"random inputs: " + torchimport::oneLineMessage(e)};
    }
    return inputs;
}

} // namespace fusebox
