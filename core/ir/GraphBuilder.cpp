#include "GraphBuilder.h"

#include <stdexcept>

namespace fusebox {

void GraphBuilder::throwNotNew()
{
    throw std::logic_error("GraphBuilder builds a new graph; use GraphBuilder::reopen for an importer's fix-up");
}

Arg intList(const std::vector<int64_t> &values)
{
    std::vector<Arg> items;
    items.reserve(values.size());
    for (int64_t v : values)
        items.emplace_back(v);
    return Arg::list(std::move(items));
}

Arg nodeList(const std::vector<NodeId> &ids)
{
    std::vector<Arg> items;
    items.reserve(ids.size());
    for (NodeId id : ids)
        items.emplace_back(id);
    return Arg::list(std::move(items));
}

TensorMeta tensorMeta(DType dtype, const std::vector<int64_t> &shape, std::string device)
{
    TensorMeta meta;
    meta.dtype = dtype;
    meta.shape = std::vector<Dim>(shape.begin(), shape.end());
    meta.device = std::move(device);
    return meta;
}

TensorMeta f32(const std::vector<int64_t> &shape, std::string device)
{
    return tensorMeta(DType::Float32, shape, std::move(device));
}

} // namespace fusebox
