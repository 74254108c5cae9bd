#pragma once
// Internal to the shape rules (ShapeRules*.cpp): how a rule reads its node's
// call, the helpers every family uses, and the families the table in
// ShapeRules.cpp maps op names to.

#include "ShapeRules.h"
#include "SymbolicSize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace fusebox::shapes {

using Dims = std::vector<Dim>;

inline bool isInt(const Dim &d, int64_t value)
{
    const auto *i = std::get_if<int64_t>(&d);
    return i && *i == value;
}

inline std::optional<int64_t> intOf(const Dim &d)
{
    if (const auto *i = std::get_if<int64_t>(&d))
        return *i;
    return std::nullopt;
}

inline int rankOf(const TensorMeta &m)
{
    return m.rank();
}

inline std::optional<int64_t> wrapDim(int64_t dim, int rank)
{
    const int64_t r = std::max(rank, 1);
    if (dim < -r || dim >= r)
        return std::nullopt;
    return dim < 0 ? dim + r : dim;
}

inline bool isFloating(DType d)
{
    switch (d) {
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Float64:
    case DType::Float8E4M3FN:
    case DType::Float8E5M2: return true;
    default: return false;
    }
}

/// The node's call, read by schema position or keyword.
class Call {
public:
    Call(const Graph &graph, const Node &node, const Lookup &valueOf)
        : m_graph(graph)
        , m_node(node)
        , m_valueOf(valueOf)
    {}

    const Arg *arg(size_t index, std::string_view name) const
    {
        if (index < m_node.args().size())
            return &m_node.args()[index];
        if (!name.empty())
            return m_node.kwarg(name);
        return nullptr;
    }
    bool has(size_t index, std::string_view name) const
    {
        const Arg *a = arg(index, name);
        return a && !a->isNone();
    }
    /// The tensor at the argument, or nullptr when it is not a known tensor.
    const TensorMeta *tensor(size_t index, std::string_view name) const
    {
        const Arg *a = arg(index, name);
        if (!a || !a->isNode())
            return nullptr;
        const Value &v = m_valueOf(a->node());
        return v.kind == Value::Kind::Tensor ? &v.tensor : nullptr;
    }
    /// True when the argument refers to a node (known or not).
    bool isNode(size_t index, std::string_view name) const
    {
        const Arg *a = arg(index, name);
        return a && a->isNode();
    }
    /// One size: an int literal, or a node whose value is a known scalar.
    std::optional<Dim> dim(const Arg &a) const
    {
        if (auto i = a.asInt())
            return Dim(*i);
        if (const auto *b = std::get_if<bool>(&a.value))
            return Dim(int64_t(*b));
        if (a.isNode()) {
            const Value &v = m_valueOf(a.node());
            if (v.kind == Value::Kind::Scalar)
                return v.scalar;
        }
        return std::nullopt;
    }
    std::optional<Dim> dim(size_t index, std::string_view name) const
    {
        const Arg *a = arg(index, name);
        return a ? dim(*a) : std::nullopt;
    }
    std::optional<int64_t> integer(size_t index, std::string_view name) const
    {
        auto d = dim(index, name);
        return d ? intOf(*d) : std::nullopt;
    }
    /// A list of sizes: a list literal (items ints or scalar nodes), a node
    /// whose value is a list of sizes (x.size()), or one int as a one-item list.
    std::optional<Dims> dims(const Arg &a) const
    {
        if (const auto *items = a.items()) {
            Dims out;
            for (const Arg &item : *items) {
                auto d = dim(item);
                if (!d) {
                    // torch.Size unpacked into a list: view(*x.size()[:2], -1) reads as nested.
                    if (item.isNode() && m_valueOf(item.node()).kind == Value::Kind::ScalarList) {
                        const Dims &inner = m_valueOf(item.node()).scalars;
                        out.insert(out.end(), inner.begin(), inner.end());
                        continue;
                    }
                    return std::nullopt;
                }
                out.push_back(*d);
            }
            return out;
        }
        if (a.isNode() && m_valueOf(a.node()).kind == Value::Kind::ScalarList)
            return m_valueOf(a.node()).scalars;
        if (auto d = dim(a))
            return Dims{*d};
        return std::nullopt;
    }
    std::optional<Dims> dims(size_t index, std::string_view name) const
    {
        const Arg *a = arg(index, name);
        return a ? dims(*a) : std::nullopt;
    }
    /// Sizes given either as one list argument or as the remaining positional
    /// arguments (x.view(2, 3), x.permute(0, 2, 1), torch.zeros(2, 3)).
    std::optional<Dims> varDims(size_t index, std::string_view name) const
    {
        const Arg *a = arg(index, name);
        if (!a)
            return Dims{};
        if (a->isList() || (a->isNode() && m_valueOf(a->node()).kind == Value::Kind::ScalarList))
            return dims(*a);
        Dims out;
        for (size_t i = index; i < m_node.args().size(); ++i) {
            auto d = dim(m_node.args()[i]);
            if (!d)
                return std::nullopt;
            out.push_back(*d);
        }
        return out;
    }
    /// The tensors of a list argument (cat, stack); nullopt when one is unknown.
    std::optional<std::vector<TensorMeta>> tensorList(size_t index, std::string_view name) const
    {
        const Arg *a = arg(index, name);
        if (!a)
            return std::nullopt;
        std::vector<TensorMeta> out;
        if (a->isNode()) {
            const Value &v = m_valueOf(a->node());
            if (v.kind != Value::Kind::TensorList)
                return std::nullopt;
            return v.tensors;
        }
        const auto *items = a->items();
        if (!items)
            return std::nullopt;
        for (const Arg &item : *items) {
            if (!item.isNode())
                return std::nullopt;
            const Value &v = m_valueOf(item.node());
            if (v.kind != Value::Kind::Tensor)
                return std::nullopt;
            out.push_back(v.tensor);
        }
        return out;
    }
    /// The first dtype literal among the arguments named `dtype` or passed
    /// positionally (x.to(torch.float16), sum(x, dtype=torch.float32)).
    std::optional<DType> dtypeArg() const
    {
        if (const Arg *k = m_node.kwarg("dtype"))
            if (const auto *d = std::get_if<DType>(&k->value))
                return *d;
        for (const Arg &a : m_node.args())
            if (const auto *d = std::get_if<DType>(&a.value))
                return *d;
        return std::nullopt;
    }
    std::optional<std::string> deviceArg() const
    {
        auto deviceOf = [](const Arg &a) -> std::optional<std::string> {
            if (const auto *d = std::get_if<Device>(&a.value))
                return d->toString();
            return std::nullopt;
        };
        if (const Arg *k = m_node.kwarg("device"))
            return deviceOf(*k);
        for (const Arg &a : m_node.args())
            if (auto d = deviceOf(a))
                return d;
        return std::nullopt;
    }
    bool boolean(size_t index, std::string_view name, bool fallback) const
    {
        const Arg *a = arg(index, name);
        if (!a)
            return fallback;
        if (const auto *b = std::get_if<bool>(&a->value))
            return *b;
        if (auto i = a->asInt())
            return *i != 0;
        return fallback;
    }
    const Node &node() const { return m_node; }
    const Graph &graph() const { return m_graph; }
    const Value &valueOf(NodeId id) const { return m_valueOf(id); }

private:
    const Graph &m_graph;
    const Node &m_node;
    const Lookup &m_valueOf;
};

inline TensorMeta like(const TensorMeta &m, Dims shape, std::optional<DType> dtype = std::nullopt)
{
    TensorMeta out;
    out.dtype = dtype ? *dtype : m.dtype;
    out.shape = std::move(shape);
    out.device = m.device; // strides are the op's own: not guessed
    return out;
}

inline Value tensorValue(const TensorMeta &m, Dims shape, std::optional<DType> dtype = std::nullopt)
{
    return Value::ofTensor(like(m, std::move(shape), dtype));
}

// --- rule families --------------------------------------------------------

// --- the rule families (ShapeRulesPointwise.cpp, ShapeRulesCompute.cpp,
// ShapeRulesLayout.cpp) ---------------------------------------------------
Value sameAsInput(const Call &c);
Value toDType(const Call &c, DType dtype);
Value elementwise(const Call &c, size_t operands, bool boolResult, bool floatResult);
Value reduce(const Call &c, bool hasDim, std::optional<DType> forced);
Value maxWithDim(const Call &c);
Value scalarArithmetic(const Call &c, std::string_view op);
std::optional<Dims> matmulShape(const Dims &a, const Dims &b);
Value linear(const Call &c);
Value matmul(const Call &c, size_t first);
Value convolution(const Call &c, bool general);
Value pool(const Call &c);
Value adaptivePool(const Call &c);
Value embedding(const Call &c);
Value attention(const Call &c);
Value factory(const Call &c, size_t sizeIndex);
Value newFactory(const Call &c);
Value arange(const Call &c);
Value tensorLiteral(const Call &c);
Value einsum(const Call &c);
Value interpolate(const Call &c);
Value attribute(const Call &c);
Value multiHeadAttention(const Call &c);
Value view(const Call &c);
Value flatten(const Call &c);
Value unflatten(const Call &c);
Value unsqueeze(const Call &c);
Value squeeze(const Call &c);
Value permute(const Call &c);
Value transpose(const Call &c);
Value expand(const Call &c);
Value repeat(const Call &c);
std::optional<Dim> sliceLength(const Dim &size, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
Value slice(const Call &c);
Value narrow(const Call &c);
Value select(const Call &c);
Value split(const Call &c, bool withSizes);
Value chunk(const Call &c);
Value unbind(const Call &c);
Value cat(const Call &c, bool stack);
Value size(const Call &c);
Value getitem(const Call &c);
Value tensorIndex(const Call &c);

} // namespace fusebox::shapes
