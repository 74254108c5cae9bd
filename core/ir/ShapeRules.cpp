#include "ShapeRules.h"

#include <algorithm>
#include <array>
#include <map>
#include <cmath>
#include <string_view>
#include <unordered_map>

// The shape rules of the common ops, following ATen's schemas (argument
// positions) and meta functions (the sizes they compute). Ops are the
// canonical names the readers give ("aten::linear"); overloads are ignored
// where the arguments tell them apart.

namespace fusebox::shapes {

Value Value::ofTensor(TensorMeta meta)
{
    Value v;
    v.kind = meta.shape ? Kind::Tensor : Kind::Unknown;
    v.tensor = std::move(meta);
    return v;
}

Value Value::ofTensors(std::vector<TensorMeta> metas)
{
    Value v;
    v.kind = Kind::TensorList;
    v.tensors = std::move(metas);
    return v;
}

Value Value::ofScalar(Dim d)
{
    Value v;
    v.kind = Kind::Scalar;
    v.scalar = std::move(d);
    return v;
}

Value Value::ofScalars(std::vector<Dim> dims)
{
    Value v;
    v.kind = Kind::ScalarList;
    v.scalars = std::move(dims);
    return v;
}

namespace {

using Dims = std::vector<Dim>;

bool isInt(const Dim &d, int64_t value)
{
    const auto *i = std::get_if<int64_t>(&d);
    return i && *i == value;
}

std::optional<int64_t> intOf(const Dim &d)
{
    if (const auto *i = std::get_if<int64_t>(&d))
        return *i;
    return std::nullopt;
}

int rankOf(const TensorMeta &m) { return m.rank(); }

std::optional<int64_t> wrapDim(int64_t dim, int rank)
{
    const int64_t r = std::max(rank, 1);
    if (dim < -r || dim >= r)
        return std::nullopt;
    return dim < 0 ? dim + r : dim;
}

bool isFloating(DType d)
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
    Call(const Graph &graph, const Node &node, const Lookup &valueOf) : m_graph(graph), m_node(node), m_valueOf(valueOf)
    {
    }

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

TensorMeta like(const TensorMeta &m, Dims shape, std::optional<DType> dtype = std::nullopt)
{
    TensorMeta out;
    out.dtype = dtype ? *dtype : m.dtype;
    out.shape = std::move(shape);
    out.device = m.device; // strides are the op's own: not guessed
    return out;
}

Value tensorValue(const TensorMeta &m, Dims shape, std::optional<DType> dtype = std::nullopt)
{
    return Value::ofTensor(like(m, std::move(shape), dtype));
}

/// Dim arithmetic on static sizes; symbols make the result unknown.
std::optional<int64_t> product(const Dims &dims)
{
    int64_t p = 1;
    for (const Dim &d : dims) {
        auto i = intOf(d);
        if (!i)
            return std::nullopt;
        p *= *i;
    }
    return p;
}

// --- rule families --------------------------------------------------------

Value sameAsInput(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "input");
    if (!x)
        x = c.tensor(0, "self");
    if (!x)
        return {};
    return tensorValue(*x, *x->shape, c.dtypeArg());
}

Value toDType(const Call &c, DType dtype)
{
    const TensorMeta *x = c.tensor(0, "self");
    return x ? tensorValue(*x, *x->shape, dtype) : Value{};
}

/// Elementwise ops on two or three operands, any of which may be a scalar.
Value elementwise(const Call &c, size_t operands, bool boolResult, bool floatResult)
{
    std::optional<Dims> shape;
    DType dtype = DType::Unknown;
    bool anyFloatScalar = false;
    const TensorMeta *first = nullptr;
    for (size_t i = 0; i < operands; ++i) {
        const Arg *a = c.arg(i, i == 0 ? "self" : (i == 1 ? "other" : ""));
        if (!a)
            continue;
        if (a->isNode()) {
            const Value &v = c.valueOf(a->node());
            if (v.kind == Value::Kind::Scalar)
                continue; // a SymInt operand: no shape of its own
            if (v.kind != Value::Kind::Tensor)
                return {};
            if (!first)
                first = &v.tensor;
            shape = shape ? broadcast(*shape, *v.tensor.shape) : *v.tensor.shape;
            if (!shape)
                return {};
            dtype = dtype == DType::Unknown ? v.tensor.dtype : promote(dtype, v.tensor.dtype);
        } else if (std::holds_alternative<double>(a->value)) {
            anyFloatScalar = true;
        }
    }
    if (!first || !shape)
        return {};
    if (anyFloatScalar && !isFloating(dtype) && dtype != DType::Unknown)
        dtype = DType::Float32;
    if (floatResult && !isFloating(dtype) && dtype != DType::Unknown)
        dtype = DType::Float32;
    if (boolResult)
        dtype = DType::Bool;
    return tensorValue(*first, *shape, dtype);
}

/// Sizes of `m` with the reduced dims removed (or kept as 1).
Value reduce(const Call &c, bool hasDim, std::optional<DType> forced)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x)
        x = c.tensor(0, "input");
    if (!x)
        return {};
    const int rank = rankOf(*x);
    const bool keep = c.boolean(2, "keepdim", false);
    std::optional<DType> dtype = forced ? forced : c.dtypeArg();
    if (!hasDim || !c.has(1, "dim"))
        return tensorValue(*x, keep ? Dims(size_t(rank), Dim(int64_t(1))) : Dims{}, dtype);
    auto dims = c.dims(1, "dim");
    if (!dims)
        return {};
    std::vector<bool> reduced(size_t(rank), false);
    if (dims->empty())
        std::fill(reduced.begin(), reduced.end(), true); // dim=[]: every dimension
    for (const Dim &d : *dims) {
        auto i = intOf(d);
        auto w = i ? wrapDim(*i, rank) : std::nullopt;
        if (!w)
            return {};
        reduced[size_t(*w)] = true;
    }
    Dims out;
    for (int i = 0; i < rank; ++i) {
        if (!reduced[size_t(i)])
            out.push_back((*x->shape)[size_t(i)]);
        else if (keep)
            out.push_back(Dim(int64_t(1)));
    }
    return tensorValue(*x, out, dtype);
}

/// [..., n, k] x [..., k, m] as torch.matmul broadcasts it.
std::optional<Dims> matmulShape(const Dims &a, const Dims &b)
{
    if (a.empty() || b.empty())
        return std::nullopt;
    if (a.size() == 1 && b.size() == 1)
        return Dims{};
    if (b.size() == 1)
        return Dims(a.begin(), a.end() - 1);
    if (a.size() == 1) {
        Dims out(b.begin(), b.end() - 2);
        out.push_back(b.back());
        return out;
    }
    const Dims batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
    auto batch = broadcast(batchA, batchB);
    if (!batch)
        return std::nullopt;
    batch->push_back(a[a.size() - 2]);
    batch->push_back(b.back());
    return batch;
}

Value linear(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "input");
    const TensorMeta *w = c.tensor(1, "weight");
    if (!x || !w || x->shape->empty() || w->shape->empty())
        return {};
    Dims out(x->shape->begin(), x->shape->end() - 1);
    if (w->shape->size() == 2)
        out.push_back((*w->shape)[0]);
    return tensorValue(*x, out);
}

Value matmul(const Call &c, size_t first)
{
    const TensorMeta *a = c.tensor(first, first == 0 ? "self" : "mat1");
    const TensorMeta *b = c.tensor(first + 1, first == 0 ? "other" : "mat2");
    if (!a || !b)
        return {};
    auto shape = matmulShape(*a->shape, *b->shape);
    return shape ? tensorValue(*a, *shape) : Value{};
}

/// conv1d/2d/3d and aten::convolution: N, C_out, then each spatial size.
Value convolution(const Call &c, bool general)
{
    const TensorMeta *x = c.tensor(0, "input");
    const TensorMeta *w = c.tensor(1, "weight");
    if (!x || !w || w->shape->size() < 3 || x->shape->size() < w->shape->size() - 1)
        return {};
    const size_t spatial = w->shape->size() - 2;
    auto expand = [&](size_t index, std::string_view name, int64_t fallback) -> std::optional<std::vector<int64_t>> {
        std::vector<int64_t> out(spatial, fallback);
        const Arg *a = c.arg(index, name);
        if (!a || a->isNone())
            return out;
        auto d = c.dims(*a);
        if (!d)
            return std::nullopt;
        for (size_t i = 0; i < spatial; ++i) {
            auto v = intOf((*d)[d->size() == 1 ? 0 : std::min(i, d->size() - 1)]);
            if (!v)
                return std::nullopt;
            out[i] = *v;
        }
        return out;
    };
    if (general && c.boolean(6, "transposed", false))
        return {};
    auto stride = expand(3, "stride", 1);
    const Arg *padArg = c.arg(4, "padding");
    const bool same = padArg && std::holds_alternative<std::string>(padArg->value)
                      && std::get<std::string>(padArg->value) == "same";
    const bool valid = padArg && std::holds_alternative<std::string>(padArg->value)
                       && std::get<std::string>(padArg->value) == "valid";
    auto padding = same || valid ? std::optional(std::vector<int64_t>(spatial, 0)) : expand(4, "padding", 0);
    auto dilation = expand(5, "dilation", 1);
    if (!stride || !padding || !dilation)
        return {};
    const Dims &in = *x->shape;
    const bool batched = in.size() == spatial + 2;
    Dims out;
    if (batched)
        out.push_back(in[0]);
    out.push_back((*w->shape)[0]);
    for (size_t i = 0; i < spatial; ++i) {
        const Dim &size = in[in.size() - spatial + i];
        if (same) {
            out.push_back(size);
            continue;
        }
        auto s = intOf(size);
        auto k = intOf((*w->shape)[2 + i]);
        if (!s || !k)
            return {};
        out.push_back(Dim((*s + 2 * (*padding)[i] - (*dilation)[i] * (*k - 1) - 1) / (*stride)[i] + 1));
    }
    return tensorValue(*x, out);
}

Value pool(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x || x->shape->size() < 3)
        return {};
    auto kernel = c.dims(1, "kernel_size");
    if (!kernel || kernel->empty())
        return {};
    const size_t spatial = 2;
    auto at = [](const std::optional<Dims> &d, size_t i, int64_t fallback) -> std::optional<int64_t> {
        if (!d || d->empty())
            return fallback;
        return intOf((*d)[std::min(i, d->size() - 1)]);
    };
    auto stride = c.dims(2, "stride");
    if (stride && stride->empty())
        stride = kernel; // stride=[] means the kernel size
    auto padding = c.dims(3, "padding");
    const bool maxPool = c.node().op == "aten::max_pool2d";
    auto dilation = maxPool ? c.dims(4, "dilation") : std::optional<Dims>();
    const bool ceil = c.boolean(maxPool ? 5 : 4, "ceil_mode", false);
    Dims out(x->shape->begin(), x->shape->end() - spatial);
    for (size_t i = 0; i < spatial; ++i) {
        auto size = intOf((*x->shape)[x->shape->size() - spatial + i]);
        auto k = at(kernel, i, 1), s = at(stride ? stride : kernel, i, 1), p = at(padding, i, 0),
             d = at(dilation, i, 1);
        if (!size || !k || !s || !p || !d)
            return {};
        const int64_t span = *size + 2 * *p - *d * (*k - 1) - 1;
        int64_t n = (ceil ? (span + *s - 1) / *s : span / *s) + 1;
        if (ceil && (n - 1) * *s >= *size + *p)
            --n;
        out.push_back(Dim(n));
    }
    return tensorValue(*x, out);
}

Value adaptivePool(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto size = c.dims(1, "output_size");
    if (!x || !size || x->shape->size() < size->size())
        return {};
    Dims out(x->shape->begin(), x->shape->end() - long(size->size()));
    for (size_t i = 0; i < size->size(); ++i)
        out.push_back(isInt((*size)[i], -1) ? (*x->shape)[x->shape->size() - size->size() + i] : (*size)[i]);
    return tensorValue(*x, out);
}

Value view(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x)
        x = c.tensor(0, "input");
    auto size = c.varDims(1, c.node().op == "aten::reshape" ? "shape" : "size");
    if (!x || !size)
        return {};
    auto inferred = std::find_if(size->begin(), size->end(), [](const Dim &d) { return isInt(d, -1); });
    if (inferred != size->end()) {
        Dims rest;
        for (auto it = size->begin(); it != size->end(); ++it)
            if (it != inferred)
                rest.push_back(*it);
        auto total = product(*x->shape);
        auto part = product(rest);
        if (total && part && *part != 0) {
            *inferred = Dim(*total / *part);
        } else {
            // Symbolic: numel is a product of symbols and a static factor;
            // -1 is what is left once the other sizes' symbols and factor
            // are taken out (view(-1, 2, 2) of [s0, 4] is [s0, 2, 2]).
            auto factors = [](const Dims &dims, std::vector<std::string> &symbols, int64_t &factor) {
                for (const Dim &d : dims) {
                    if (auto i = intOf(d))
                        factor *= *i;
                    else
                        symbols.push_back(std::get<std::string>(d));
                }
            };
            std::vector<std::string> inSymbols, restSymbols;
            int64_t inFactor = 1, restFactor = 1;
            factors(*x->shape, inSymbols, inFactor);
            factors(rest, restSymbols, restFactor);
            for (const std::string &sym : restSymbols) {
                auto it = std::find(inSymbols.begin(), inSymbols.end(), sym);
                if (it == inSymbols.end())
                    return {};
                inSymbols.erase(it);
            }
            if (restFactor == 0 || inFactor % restFactor != 0)
                return {};
            const int64_t left = inFactor / restFactor;
            if (inSymbols.empty())
                *inferred = Dim(left);
            else if (inSymbols.size() == 1 && left == 1)
                *inferred = Dim(inSymbols.front());
            else
                return {};
        }
    }
    return tensorValue(*x, *size);
}

Value flatten(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "input");
    if (!x)
        x = c.tensor(0, "self");
    if (!x)
        return {};
    const int rank = rankOf(*x);
    if (rank == 0)
        return tensorValue(*x, {Dim(int64_t(1))});
    auto start = wrapDim(c.integer(1, "start_dim").value_or(0), rank);
    auto end = wrapDim(c.integer(2, "end_dim").value_or(-1), rank);
    if (!start || !end || *start > *end)
        return {};
    Dims out(x->shape->begin(), x->shape->begin() + *start);
    const Dims merged(x->shape->begin() + *start, x->shape->begin() + *end + 1);
    if (merged.size() == 1)
        out.push_back(merged.front());
    else if (auto p = product(merged))
        out.push_back(Dim(*p));
    else
        return {};
    out.insert(out.end(), x->shape->begin() + *end + 1, x->shape->end());
    return tensorValue(*x, out);
}

Value unsqueeze(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto dim = c.integer(1, "dim");
    if (!x || !dim)
        return {};
    auto d = wrapDim(*dim, rankOf(*x) + 1);
    if (!d)
        return {};
    Dims out = *x->shape;
    out.insert(out.begin() + *d, Dim(int64_t(1)));
    return tensorValue(*x, out);
}

Value squeeze(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x)
        return {};
    const int rank = rankOf(*x);
    std::vector<bool> drop(size_t(rank), false);
    if (c.has(1, "dim")) {
        auto dims = c.dims(1, "dim");
        if (!dims)
            return {};
        for (const Dim &d : *dims) {
            auto i = intOf(d);
            auto w = i ? wrapDim(*i, rank) : std::nullopt;
            if (!w)
                return {};
            if (rank > 0)
                drop[size_t(*w)] = isInt((*x->shape)[size_t(*w)], 1);
        }
    } else {
        for (int i = 0; i < rank; ++i) {
            const Dim &d = (*x->shape)[size_t(i)];
            if (!intOf(d))
                return {}; // a symbolic size might be 1
            drop[size_t(i)] = isInt(d, 1);
        }
    }
    Dims out;
    for (int i = 0; i < rank; ++i)
        if (!drop[size_t(i)])
            out.push_back((*x->shape)[size_t(i)]);
    return tensorValue(*x, out);
}

Value permute(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto dims = c.varDims(1, "dims");
    if (!x || !dims || int(dims->size()) != rankOf(*x))
        return {};
    Dims out;
    for (const Dim &d : *dims) {
        auto i = intOf(d);
        auto w = i ? wrapDim(*i, rankOf(*x)) : std::nullopt;
        if (!w)
            return {};
        out.push_back((*x->shape)[size_t(*w)]);
    }
    return tensorValue(*x, out);
}

Value transpose(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x)
        return {};
    const int rank = rankOf(*x);
    if (c.node().op == "aten::t") {
        Dims out = *x->shape;
        if (rank == 2)
            std::swap(out[0], out[1]);
        return tensorValue(*x, out);
    }
    auto a = c.integer(1, "dim0"), b = c.integer(2, "dim1");
    auto wa = a ? wrapDim(*a, rank) : std::nullopt, wb = b ? wrapDim(*b, rank) : std::nullopt;
    if (!wa || !wb)
        return {};
    Dims out = *x->shape;
    if (rank > 0)
        std::swap(out[size_t(*wa)], out[size_t(*wb)]);
    return tensorValue(*x, out);
}

Value expand(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto size = c.varDims(1, "size");
    if (!x || !size || size->size() < x->shape->size())
        return {};
    const size_t lead = size->size() - x->shape->size();
    for (size_t i = lead; i < size->size(); ++i)
        if (isInt((*size)[i], -1))
            (*size)[i] = (*x->shape)[i - lead];
    return tensorValue(*x, *size);
}

Value repeat(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto reps = c.varDims(1, "repeats");
    if (!x || !reps || reps->size() < x->shape->size())
        return {};
    Dims out = *reps;
    const size_t lead = reps->size() - x->shape->size();
    for (size_t i = lead; i < out.size(); ++i) {
        auto r = intOf(out[i]), s = intOf((*x->shape)[i - lead]);
        if (!r)
            return {};
        if (!s) {
            if (*r != 1)
                return {};
            out[i] = (*x->shape)[i - lead];
        } else {
            out[i] = Dim(*r * *s);
        }
    }
    return tensorValue(*x, out);
}

/// slice(self, dim, start, end, step): PyTorch's clamping of start and end.
std::optional<Dim> sliceLength(const Dim &size, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step)
{
    auto n = intOf(size);
    if (!n) {
        if ((!start || *start == 0) && (!end || *end >= (int64_t(1) << 62)) && step == 1)
            return size; // the whole symbolic dimension
        return std::nullopt;
    }
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + *n : v, int64_t(0), *n); };
    const int64_t s = clamp(start.value_or(0)), e = clamp(end.value_or(*n));
    return Dim(e > s ? (e - s + step - 1) / step : 0);
}

Value slice(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x)
        return {};
    const int rank = rankOf(*x);
    auto dim = wrapDim(c.integer(1, "dim").value_or(0), rank);
    const int64_t step = c.integer(4, "step").value_or(1);
    if (!dim || step <= 0 || rank == 0)
        return {};
    const std::optional<int64_t> start = c.has(2, "start") ? c.integer(2, "start") : std::optional<int64_t>();
    const std::optional<int64_t> end = c.has(3, "end") ? c.integer(3, "end") : std::optional<int64_t>();
    if ((c.has(2, "start") && !start) || (c.has(3, "end") && !end))
        return {};
    auto length = sliceLength((*x->shape)[size_t(*dim)], start, end, step);
    if (!length)
        return {};
    Dims out = *x->shape;
    out[size_t(*dim)] = *length;
    return tensorValue(*x, out);
}

Value narrow(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto dim = x ? wrapDim(c.integer(1, "dim").value_or(0), rankOf(*x)) : std::nullopt;
    auto length = c.dim(3, "length");
    if (!x || !dim || !length || rankOf(*x) == 0)
        return {};
    Dims out = *x->shape;
    out[size_t(*dim)] = *length;
    return tensorValue(*x, out);
}

Value select(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto dim = x ? wrapDim(c.integer(1, "dim").value_or(0), rankOf(*x)) : std::nullopt;
    if (!x || !dim || rankOf(*x) == 0)
        return {};
    Dims out = *x->shape;
    out.erase(out.begin() + *dim);
    return tensorValue(*x, out);
}

Value split(const Call &c, bool withSizes)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x)
        return {};
    const int rank = rankOf(*x);
    auto dim = wrapDim(c.integer(2, "dim").value_or(0), rank);
    if (!dim || rank == 0)
        return {};
    const Dim &whole = (*x->shape)[size_t(*dim)];
    const Arg *sizesArg = c.arg(1, withSizes ? "split_sizes" : "split_size");
    if (!sizesArg)
        sizesArg = c.arg(1, "split_size_or_sections");
    if (!sizesArg)
        return {};
    std::vector<Dim> sizes;
    if (sizesArg->isList()) {
        auto d = c.dims(*sizesArg);
        if (!d)
            return {};
        sizes = *d;
    } else {
        auto chunk = c.dim(*sizesArg);
        auto n = intOf(whole);
        auto step = chunk ? intOf(*chunk) : std::nullopt;
        if (!n || !step || *step <= 0)
            return {};
        for (int64_t at = 0; at < *n || (at == 0 && *n == 0); at += *step)
            sizes.push_back(Dim(std::min(*step, *n - at)));
    }
    std::vector<TensorMeta> parts;
    for (const Dim &s : sizes) {
        Dims shape = *x->shape;
        shape[size_t(*dim)] = s;
        parts.push_back(like(*x, shape));
    }
    return Value::ofTensors(std::move(parts));
}

Value chunk(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto chunks = c.integer(1, "chunks");
    if (!x || !chunks || *chunks <= 0 || rankOf(*x) == 0)
        return {};
    auto dim = wrapDim(c.integer(2, "dim").value_or(0), rankOf(*x));
    auto n = dim ? intOf((*x->shape)[size_t(*dim)]) : std::nullopt;
    if (!n)
        return {};
    const int64_t step = (*n + *chunks - 1) / *chunks;
    std::vector<TensorMeta> parts;
    for (int64_t at = 0; at < *n; at += step) {
        Dims shape = *x->shape;
        shape[size_t(*dim)] = Dim(std::min(step, *n - at));
        parts.push_back(like(*x, shape));
    }
    return Value::ofTensors(std::move(parts));
}

Value unbind(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto dim = x ? wrapDim(c.integer(1, "dim").value_or(0), rankOf(*x)) : std::nullopt;
    auto n = dim && rankOf(*x) > 0 ? intOf((*x->shape)[size_t(*dim)]) : std::nullopt;
    if (!n)
        return {};
    Dims shape = *x->shape;
    shape.erase(shape.begin() + *dim);
    return Value::ofTensors(std::vector<TensorMeta>(size_t(*n), like(*x, shape)));
}

Value cat(const Call &c, bool stack)
{
    auto parts = c.tensorList(0, "tensors");
    if (!parts || parts->empty())
        return {};
    // cat skips legacy empty 1-D tensors ([0]) beside others.
    std::vector<TensorMeta> used;
    for (const TensorMeta &m : *parts)
        if (stack || !(m.rank() == 1 && isInt((*m.shape)[0], 0)))
            used.push_back(m);
    if (used.empty())
        used.push_back(parts->front());
    const TensorMeta &first = used.front();
    const int rank = rankOf(first) + (stack ? 1 : 0);
    auto dim = wrapDim(c.integer(1, "dim").value_or(0), rank);
    if (!dim)
        return {};
    DType dtype = first.dtype;
    for (const TensorMeta &m : used)
        dtype = promote(dtype, m.dtype);
    Dims out = *first.shape;
    if (stack) {
        out.insert(out.begin() + *dim, Dim(int64_t(used.size())));
        return tensorValue(first, out, dtype);
    }
    int64_t total = 0;
    for (const TensorMeta &m : used) {
        if (m.rank() != rank)
            return {};
        auto n = intOf((*m.shape)[size_t(*dim)]);
        if (!n) {
            if (used.size() == 1) {
                total = -1;
                break;
            }
            return {};
        }
        total += *n;
    }
    if (total >= 0)
        out[size_t(*dim)] = Dim(total);
    return tensorValue(first, out, dtype);
}

Value embedding(const Call &c)
{
    const TensorMeta *w = c.tensor(0, "weight");
    const TensorMeta *i = c.tensor(1, "indices");
    if (!w || !i || w->shape->size() != 2)
        return {};
    Dims out = *i->shape;
    out.push_back((*w->shape)[1]);
    return tensorValue(*w, out);
}

Value attention(const Call &c)
{
    const TensorMeta *q = c.tensor(0, "query");
    const TensorMeta *v = c.tensor(2, "value");
    if (!q || !v || q->shape->empty() || v->shape->empty())
        return {};
    Dims out(q->shape->begin(), q->shape->end() - 1);
    out.push_back(v->shape->back());
    return tensorValue(*q, out);
}

Value factory(const Call &c, size_t sizeIndex)
{
    auto size = c.varDims(sizeIndex, "size");
    if (!size)
        return {};
    TensorMeta m;
    m.dtype = c.dtypeArg().value_or(DType::Float32);
    m.device = c.deviceArg().value_or("cpu");
    m.shape = *size;
    return Value::ofTensor(m);
}

Value newFactory(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto size = c.varDims(1, "size");
    if (!x || !size)
        return {};
    return tensorValue(*x, *size, c.dtypeArg());
}

Value arange(const Call &c)
{
    std::vector<double> bounds;
    bool anyFloat = false;
    for (const Arg &a : c.node().args()) {
        if (auto i = a.asInt())
            bounds.push_back(double(*i));
        else if (const auto *d = std::get_if<double>(&a.value)) {
            bounds.push_back(*d);
            anyFloat = true;
        } else if (a.isNode()) {
            return {};
        }
    }
    for (const char *key : {"start", "end", "step"})
        if (const Arg *k = c.node().kwarg(key)) {
            if (auto i = k->asInt())
                bounds.push_back(double(*i));
            else if (const auto *d = std::get_if<double>(&k->value)) {
                bounds.push_back(*d);
                anyFloat = true;
            } else {
                return {};
            }
        }
    if (bounds.empty() || bounds.size() > 3)
        return {};
    const double start = bounds.size() >= 2 ? bounds[0] : 0;
    const double end = bounds.size() >= 2 ? bounds[1] : bounds[0];
    const double step = bounds.size() == 3 ? bounds[2] : 1;
    if (step == 0)
        return {};
    const double n = std::max(0.0, std::ceil((end - start) / step));
    TensorMeta m;
    m.dtype = c.dtypeArg().value_or(anyFloat ? DType::Float32 : DType::Int64);
    m.device = c.deviceArg().value_or("cpu");
    m.shape = Dims{Dim(int64_t(n))};
    return Value::ofTensor(m);
}

Value maxWithDim(const Call &c)
{
    if (!c.has(1, "dim") || c.isNode(1, "other"))
        return c.isNode(1, "other") ? elementwise(c, 2, false, false) : reduce(c, false, std::nullopt);
    Value values = reduce(c, true, std::nullopt);
    if (values.kind != Value::Kind::Tensor)
        return {};
    TensorMeta indices = values.tensor;
    indices.dtype = DType::Int64;
    return Value::ofTensors({values.tensor, indices});
}

Value size(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x)
        return {};
    if (c.has(1, "dim")) {
        auto dim = c.integer(1, "dim");
        auto w = dim ? wrapDim(*dim, rankOf(*x)) : std::nullopt;
        return w && rankOf(*x) > 0 ? Value::ofScalar((*x->shape)[size_t(*w)]) : Value{};
    }
    return Value::ofScalars(*x->shape);
}

/// getitem of a list of tensors, of a list of sizes, or of a size.
Value getitem(const Call &c)
{
    const Arg *source = c.arg(0, "");
    const Arg *index = c.arg(1, "");
    if (!source || !index || !source->isNode())
        return {};
    const Value &v = c.valueOf(source->node());
    auto i = index->asInt();
    if (v.kind == Value::Kind::TensorList && i) {
        const int64_t n = int64_t(v.tensors.size());
        const int64_t at = *i < 0 ? *i + n : *i;
        return at >= 0 && at < n ? Value::ofTensor(v.tensors[size_t(at)]) : Value{};
    }
    if (v.kind == Value::Kind::Tensor && i && !v.tensor.shape->empty()) {
        Dims out(v.tensor.shape->begin() + 1, v.tensor.shape->end()); // x[0] of a tensor
        return tensorValue(v.tensor, out);
    }
    if (v.kind == Value::Kind::ScalarList) {
        const int64_t n = int64_t(v.scalars.size());
        if (i) {
            const int64_t at = *i < 0 ? *i + n : *i;
            return at >= 0 && at < n ? Value::ofScalar(v.scalars[size_t(at)]) : Value{};
        }
        if (const auto *items = index->items(); items && std::get<ArgList>(index->value).kind == ArgList::Kind::Slice) {
            // size()[a:b]
            auto bound = [&](size_t k, int64_t fallback) -> std::optional<int64_t> {
                if (k >= items->size() || (*items)[k].isNone())
                    return fallback;
                return (*items)[k].asInt();
            };
            auto s = bound(0, 0), e = bound(1, n);
            if (!s || !e || (items->size() > 2 && !(*items)[2].isNone()))
                return {};
            const int64_t from = std::clamp(*s < 0 ? *s + n : *s, int64_t(0), n);
            const int64_t to = std::clamp(*e < 0 ? *e + n : *e, int64_t(0), n);
            return Value::ofScalars(Dims(v.scalars.begin() + from, v.scalars.begin() + std::max(from, to)));
        }
    }
    return {};
}

/// Tensor indexing the reader keeps as one operator.getitem (an index with
/// None or Ellipsis): ints drop a dimension, slices shorten one, None inserts
/// a 1, Ellipsis stands for the dimensions no other item names. Tensor
/// indices (advanced indexing) have no rule.
Value tensorIndex(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "");
    const Arg *index = c.arg(1, "");
    if (!x || !index)
        return {};
    std::vector<Arg> items;
    if (const auto *list = std::get_if<ArgList>(&index->value); list && list->kind != ArgList::Kind::Slice)
        items = list->items;
    else
        items = {*index};
    size_t consumed = 0;
    for (const Arg &item : items)
        if (!item.isNone() && !std::holds_alternative<EllipsisArg>(item.value))
            ++consumed;
    const Dims &in = *x->shape;
    if (consumed > in.size())
        return {};
    Dims out;
    size_t at = 0;
    bool advanced = false;
    for (const Arg &item : items) {
        if (item.isNone()) {
            out.push_back(Dim(int64_t(1)));
        } else if (std::holds_alternative<EllipsisArg>(item.value)) {
            const size_t skip = in.size() - consumed;
            out.insert(out.end(), in.begin() + long(at), in.begin() + long(at + skip));
            at += skip;
        } else if (item.asInt()) {
            ++at;
        } else if (const auto *slice = std::get_if<ArgList>(&item.value); slice && slice->kind == ArgList::Kind::Slice) {
            auto bound = [&](size_t k) -> std::optional<std::optional<int64_t>> {
                if (k >= slice->items.size() || slice->items[k].isNone())
                    return std::optional<int64_t>();
                if (auto i = slice->items[k].asInt())
                    return std::optional<int64_t>(*i);
                return std::nullopt;
            };
            auto start = bound(0), end = bound(1), step = bound(2);
            if (!start || !end || !step)
                return {};
            auto length = sliceLength(in[at], *start, *end, step->value_or(1));
            if (!length)
                return {};
            out.push_back(*length);
            ++at;
        } else if (const auto *list = item.items(); list && !advanced
                   && std::all_of(list->begin(), list->end(), [](const Arg &a) { return a.asInt().has_value(); })) {
            // One list of ints (x[..., [-2], :]): advanced indexing that keeps
            // the dimension with the list's length.
            advanced = true;
            out.push_back(Dim(int64_t(list->size())));
            ++at;
        } else {
            return {}; // a tensor index, or a second list
        }
    }
    out.insert(out.end(), in.begin() + long(at), in.end());
    return tensorValue(*x, out);
}

/// torch.tensor(data): the nested list's sizes; the dtype from `dtype`, else
/// from the items (a float makes f32, else a bool b8, else i64).
Value tensorLiteral(const Call &c)
{
    const Arg *data = c.arg(0, "data");
    if (!data)
        return {};
    Dims shape;
    const Arg *level = data;
    while (const auto *items = level->items()) {
        shape.push_back(Dim(int64_t(items->size())));
        if (items->empty())
            break;
        level = &items->front();
    }
    bool anyFloat = false, allBool = true;
    std::function<bool(const Arg &)> scan = [&](const Arg &a) {
        if (const auto *items = a.items()) {
            for (const Arg &item : *items)
                if (!scan(item))
                    return false;
            return true;
        }
        if (std::holds_alternative<double>(a.value))
            anyFloat = true;
        else if (!std::holds_alternative<bool>(a.value) && !a.asInt())
            return false; // a node or another literal: not a constant table
        if (!std::holds_alternative<bool>(a.value))
            allBool = false;
        return true;
    };
    if (!scan(*data))
        return {};
    TensorMeta m;
    m.dtype = c.dtypeArg().value_or(anyFloat ? DType::Float32 : (allBool && data->items() ? DType::Bool : DType::Int64));
    m.device = c.deviceArg().value_or("cpu");
    m.shape = shape;
    return Value::ofTensor(m);
}

/// torch.einsum("bhwc,bsc->bhws", a, b): each letter's size from the
/// operands; an implicit output lists the letters seen once, sorted. Ellipsis
/// ("...") has no rule.
Value einsum(const Call &c)
{
    const Arg *eq = c.arg(0, "equation");
    if (!eq || !std::holds_alternative<std::string>(eq->value))
        return {};
    std::string equation = std::get<std::string>(eq->value);
    equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
    if (equation.find("...") != std::string::npos)
        return {};
    std::vector<const TensorMeta *> operands;
    const Arg *second = c.arg(1, "");
    if (second && second->isList()) {
        for (const Arg &item : *second->items()) {
            if (!item.isNode() || c.valueOf(item.node()).kind != Value::Kind::Tensor)
                return {};
            operands.push_back(&c.valueOf(item.node()).tensor);
        }
    } else {
        for (size_t i = 1; i < c.node().args().size(); ++i) {
            const TensorMeta *t = c.tensor(i, "");
            if (!t)
                return {};
            operands.push_back(t);
        }
    }
    const size_t arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    std::vector<std::string> terms;
    for (size_t start = 0;;) {
        const size_t comma = lhs.find(',', start);
        terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    if (terms.size() != operands.size() || operands.empty())
        return {};
    std::map<char, Dim> sizes;
    std::map<char, int> seen;
    for (size_t i = 0; i < terms.size(); ++i) {
        if (terms[i].size() != operands[i]->shape->size())
            return {};
        for (size_t k = 0; k < terms[i].size(); ++k) {
            const char letter = terms[i][k];
            ++seen[letter];
            const Dim &d = (*operands[i]->shape)[k];
            auto it = sizes.find(letter);
            if (it == sizes.end() || isInt(it->second, 1))
                sizes[letter] = d;
        }
    }
    std::string out;
    if (arrow != std::string::npos) {
        out = equation.substr(arrow + 2);
    } else {
        for (const auto &[letter, count] : seen)
            if (count == 1)
                out += letter;
    }
    Dims shape;
    for (char letter : out) {
        auto it = sizes.find(letter);
        if (it == sizes.end())
            return {};
        shape.push_back(it->second);
    }
    DType dtype = operands.front()->dtype;
    for (const TensorMeta *t : operands)
        dtype = promote(dtype, t->dtype);
    return tensorValue(*operands.front(), shape, dtype);
}

/// F.interpolate(input, size=..., scale_factor=...): N, C, then the sizes.
Value interpolate(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "input");
    if (!x || x->shape->size() < 3)
        return {};
    const size_t spatial = x->shape->size() - 2;
    Dims out(x->shape->begin(), x->shape->begin() + 2);
    if (c.has(1, "size")) {
        auto size = c.dims(1, "size");
        if (!size)
            return {};
        for (size_t i = 0; i < spatial; ++i)
            out.push_back((*size)[size->size() == 1 ? 0 : std::min(i, size->size() - 1)]);
        return tensorValue(*x, out);
    }
    const Arg *scale = c.arg(2, "scale_factor");
    if (!scale)
        return {};
    std::vector<double> factors;
    auto number = [](const Arg &a) -> std::optional<double> {
        if (auto i = a.asInt())
            return double(*i);
        if (const auto *d = std::get_if<double>(&a.value))
            return *d;
        return std::nullopt;
    };
    if (const auto *items = scale->items()) {
        for (const Arg &item : *items)
            if (auto f = number(item))
                factors.push_back(*f);
            else
                return {};
    } else if (auto f = number(*scale)) {
        factors.push_back(*f);
    } else {
        return {};
    }
    for (size_t i = 0; i < spatial; ++i) {
        auto n = intOf((*x->shape)[2 + i]);
        if (!n || factors.empty())
            return {};
        out.push_back(Dim(int64_t(std::floor(double(*n) * factors[factors.size() == 1 ? 0 : i]))));
    }
    return tensorValue(*x, out);
}

/// getattr(x, "T") and friends, as Dynamo records attribute reads.
Value attribute(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "");
    const Arg *name = c.arg(1, "");
    if (!x || !name || !std::holds_alternative<std::string>(name->value))
        return {};
    const std::string &attr = std::get<std::string>(name->value);
    if (attr == "T") {
        Dims out(x->shape->rbegin(), x->shape->rend());
        return tensorValue(*x, out);
    }
    if (attr == "mT" && x->shape->size() >= 2) {
        Dims out = *x->shape;
        std::swap(out[out.size() - 1], out[out.size() - 2]);
        return tensorValue(*x, out);
    }
    if (attr == "shape")
        return Value::ofScalars(*x->shape);
    if (attr == "data" || attr == "real")
        return tensorValue(*x, *x->shape);
    return {};
}

/// F.multi_head_attention_forward(query, key, value, ...): the output has the
/// query's shape; the weights are (N, L, S), averaged over the heads by
/// default, or (N, heads, L, S).
Value multiHeadAttention(const Call &c)
{
    const TensorMeta *q = c.tensor(0, "query");
    const TensorMeta *k = c.tensor(1, "key");
    if (!q || !k || q->shape->size() != k->shape->size() || q->shape->size() < 2)
        return {};
    const bool batched = q->shape->size() == 3;
    const Dim &L = (*q->shape)[0];
    const Dim &S = (*k->shape)[0];
    TensorMeta weights = like(*q, batched ? Dims{(*q->shape)[1], L, S} : Dims{L, S});
    if (!c.boolean(size_t(-1), "average_attn_weights", true)) {
        auto heads = c.dim(4, "num_heads");
        if (!heads)
            return {};
        weights.shape->insert(weights.shape->begin() + (batched ? 1 : 0), *heads);
    }
    return Value::ofTensors({like(*q, *q->shape), weights});
}

/// Python int arithmetic on sizes (x.size(1) * 2): static values only, or a
/// symbol times/plus nothing.
Value scalarArithmetic(const Call &c, std::string_view op)
{
    auto a = c.dim(0, ""), b = c.dim(1, "");
    if (!a || !b)
        return {};
    auto x = intOf(*a), y = intOf(*b);
    if (!x || !y) {
        if ((op == "mul" && (isInt(*a, 1) || isInt(*b, 1))) || ((op == "add" || op == "sub") && isInt(*b, 0)))
            return Value::ofScalar(isInt(*a, 1) && op == "mul" ? *b : *a);
        // A number no size fixes (2 * x.item()): still a number, not a tensor.
        return Value::ofScalar(Dim("u_" + c.node().name));
    }
    if (op == "add")
        return Value::ofScalar(Dim(*x + *y));
    if (op == "sub")
        return Value::ofScalar(Dim(*x - *y));
    if (op == "mul")
        return Value::ofScalar(Dim(*x * *y));
    if (op == "floordiv" && *y != 0)
        return Value::ofScalar(Dim(*x / *y - ((*x % *y != 0) && ((*x < 0) != (*y < 0)) ? 1 : 0)));
    return {};
}

using Rule = std::function<Value(const Call &)>;

const std::unordered_map<std::string_view, Rule> &rules()
{
    static const std::unordered_map<std::string_view, Rule> table = [] {
        std::unordered_map<std::string_view, Rule> t;
        for (std::string_view op :
             {"aten::relu", "aten::relu_", "aten::relu6", "aten::gelu", "aten::silu", "aten::silu_", "aten::sigmoid",
              "aten::tanh", "aten::hardtanh", "aten::hardtanh_", "aten::hardswish", "aten::hardsigmoid",
              "aten::leaky_relu", "aten::elu", "aten::selu", "aten::mish", "aten::softplus", "aten::dropout",
              "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout", "aten::neg", "aten::exp",
              "aten::log", "aten::log1p", "aten::sqrt", "aten::rsqrt", "aten::abs", "aten::sin", "aten::cos",
              "aten::erf", "aten::reciprocal", "aten::sign", "aten::clone", "aten::contiguous", "aten::detach",
              "aten::softmax", "aten::log_softmax", "aten::_softmax", "aten::layer_norm", "aten::group_norm",
              "aten::batch_norm", "aten::instance_norm", "aten::rms_norm", "aten::nan_to_num", "aten::clamp",
              "aten::clamp_min", "aten::clamp_max", "aten::clamp_", "aten::masked_fill", "aten::masked_fill_",
              "aten::fill_", "aten::zero_", "aten::zeros_like", "aten::ones_like", "aten::empty_like",
              "aten::rand_like", "aten::randn_like", "aten::full_like", "aten::cumsum", "aten::flip", "aten::roll",
              "aten::triu", "aten::tril", "aten::bernoulli", "aten::square", "aten::normalize", "aten::pad",
              "aten::alias", "aten::lift_fresh_copy", "aten::requires_grad_", "aten::copy_", "aten::add_",
              "aten::mul_", "aten::sub_", "aten::div_", "aten::pow_", "aten::log_sigmoid", "aten::glu", "aten::bitwise_not",
              "aten::positive", "aten::floor", "aten::ceil", "aten::round", "aten::trunc", "aten::frac",
              "aten::sgn", "aten::log2", "aten::log10", "aten::expm1", "aten::tan", "aten::asin", "aten::acos",
              "aten::atan", "aten::sinh", "aten::cosh", "aten::asinh", "aten::acosh", "aten::atanh", "aten::erfc",
              "aten::erfinv", "aten::digamma", "aten::lgamma", "aten::celu", "aten::gelu_", "aten::threshold",
              "aten::softsign", "aten::tanhshrink", "aten::hardshrink", "aten::softshrink", "aten::prelu",
              "aten::rrelu", "aten::local_response_norm", "aten::cumprod", "aten::logcumsumexp",
              "aten::fill", "aten::masked_scatter", "aten::index_put", "aten::index_put_", "aten::scatter",
              "aten::scatter_add", "aten::scatter_", "aten::scatter_add_", "aten::detach_", "aten::sigmoid_",
              "aten::tanh_", "aten::exp_", "aten::neg_", "aten::clone_", "aten::native_dropout_backward",
              "aten::embedding_renorm_", "aten::dropout1d", "aten::dropout2d", "aten::dropout3d",
              "aten::feature_alpha_dropout", "aten::_to_copy", "aten::contiguous_", "aten::resolve_conj",
              "aten::resolve_neg", "aten::conj"})
            t.emplace(op, sameAsInput);
        t["aten::pad"] = [](const Call &c) -> Value {
            const TensorMeta *x = c.tensor(0, "input");
            auto pad = c.dims(1, "pad");
            if (!x || !pad || pad->size() % 2 || pad->size() / 2 > x->shape->size())
                return {};
            Dims out = *x->shape;
            for (size_t i = 0; i < pad->size() / 2; ++i) {
                Dim &d = out[out.size() - 1 - i];
                auto n = intOf(d), lo = intOf((*pad)[2 * i]), hi = intOf((*pad)[2 * i + 1]);
                if (!n || !lo || !hi)
                    return {};
                d = Dim(*n + *lo + *hi);
            }
            return tensorValue(*x, out);
        };
        t["aten::glu"] = [](const Call &c) -> Value {
            const TensorMeta *x = c.tensor(0, "self");
            auto dim = x ? wrapDim(c.integer(1, "dim").value_or(-1), rankOf(*x)) : std::nullopt;
            auto n = dim && rankOf(*x) > 0 ? intOf((*x->shape)[size_t(*dim)]) : std::nullopt;
            if (!n)
                return {};
            Dims out = *x->shape;
            out[size_t(*dim)] = Dim(*n / 2);
            return tensorValue(*x, out);
        };
        for (std::string_view op : {"aten::add", "aten::sub", "aten::mul", "aten::rsub", "aten::remainder",
                                    "aten::fmod", "aten::pow", "aten::maximum", "aten::minimum", "aten::atan2",
                                    "aten::bitwise_and", "aten::bitwise_or", "aten::bitwise_xor", "aten::floor_divide",
                                    "aten::hypot", "aten::__and__", "aten::__or__", "aten::__xor__", "aten::lerp",
                                    "aten::addcmul", "aten::addcdiv", "aten::copysign"})
            t.emplace(op, [](const Call &c) { return elementwise(c, 3, false, false); });
        for (std::string_view op : {"aten::div", "aten::true_divide"})
            t.emplace(op, [](const Call &c) {
                const Arg *mode = c.arg(2, "rounding_mode");
                const bool rounding = mode && std::holds_alternative<std::string>(mode->value);
                return elementwise(c, 2, false, !rounding);
            });
        for (std::string_view op : {"aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge",
                                    "aten::logical_and", "aten::logical_or", "aten::logical_xor", "aten::isclose"})
            t.emplace(op, [](const Call &c) { return elementwise(c, 2, true, false); });
        for (std::string_view op : {"aten::logical_not", "aten::isnan", "aten::isinf", "aten::isfinite"})
            t.emplace(op, [](const Call &c) { return toDType(c, DType::Bool); });
        t["aten::where"] = [](const Call &c) -> Value {
            Value v = elementwise(c, 3, false, false);
            if (v.kind != Value::Kind::Tensor)
                return v;
            // The condition's bool does not take part in the result's dtype.
            const TensorMeta *a = c.tensor(1, "self");
            const TensorMeta *b = c.tensor(2, "other");
            if (a || b)
                v.tensor.dtype = a && b ? promote(a->dtype, b->dtype) : (a ? a->dtype : b->dtype);
            return v;
        };
        t["aten::to"] = sameAsInput;
        t["aten::type"] = sameAsInput;
        t["aten::type_as"] = [](const Call &c) -> Value {
            const TensorMeta *x = c.tensor(0, "self");
            const TensorMeta *other = c.tensor(1, "other");
            return x && other ? tensorValue(*x, *x->shape, other->dtype) : Value{};
        };
        t["aten::float"] = [](const Call &c) { return toDType(c, DType::Float32); };
        t["aten::half"] = [](const Call &c) { return toDType(c, DType::Float16); };
        t["aten::bfloat16"] = [](const Call &c) { return toDType(c, DType::BFloat16); };
        t["aten::double"] = [](const Call &c) { return toDType(c, DType::Float64); };
        t["aten::long"] = [](const Call &c) { return toDType(c, DType::Int64); };
        t["aten::int"] = [](const Call &c) { return toDType(c, DType::Int32); };
        t["aten::bool"] = [](const Call &c) { return toDType(c, DType::Bool); };
        t["aten::linear"] = linear;
        t["aten::matmul"] = [](const Call &c) { return matmul(c, 0); };
        t["aten::mm"] = [](const Call &c) { return matmul(c, 0); };
        t["aten::bmm"] = [](const Call &c) { return matmul(c, 0); };
        t["aten::addmm"] = [](const Call &c) { return matmul(c, 1); };
        t["aten::baddbmm"] = [](const Call &c) { return matmul(c, 1); };
        for (std::string_view op : {"aten::conv1d", "aten::conv2d", "aten::conv3d"})
            t.emplace(op, [](const Call &c) { return convolution(c, false); });
        t["aten::convolution"] = [](const Call &c) { return convolution(c, true); };
        t["aten::_convolution"] = [](const Call &c) { return convolution(c, true); };
        t["aten::max_pool2d"] = pool;
        t["aten::avg_pool2d"] = pool;
        t["aten::adaptive_avg_pool2d"] = adaptivePool;
        t["aten::adaptive_avg_pool1d"] = adaptivePool;
        t["aten::embedding"] = embedding;
        t["aten::scaled_dot_product_attention"] = attention;
        t["aten::view"] = view;
        t["aten::reshape"] = view;
        t["aten::_unsafe_view"] = view;
        t["aten::flatten"] = flatten;
        t["aten::unsqueeze"] = unsqueeze;
        t["aten::squeeze"] = squeeze;
        t["aten::permute"] = permute;
        t["aten::transpose"] = transpose;
        t["aten::t"] = transpose;
        t["aten::expand"] = expand;
        t["aten::expand_as"] = [](const Call &c) -> Value {
            const TensorMeta *x = c.tensor(0, "self");
            const TensorMeta *other = c.tensor(1, "other");
            return x && other ? tensorValue(*x, *other->shape) : Value{};
        };
        t["aten::repeat"] = repeat;
        t["aten::slice"] = slice;
        t["aten::narrow"] = narrow;
        t["aten::select"] = select;
        t["aten::split"] = [](const Call &c) { return split(c, false); };
        t["aten::split_with_sizes"] = [](const Call &c) { return split(c, true); };
        t["aten::chunk"] = chunk;
        t["aten::unbind"] = unbind;
        t["aten::cat"] = [](const Call &c) { return cat(c, false); };
        t["aten::concat"] = [](const Call &c) { return cat(c, false); };
        t["aten::concatenate"] = [](const Call &c) { return cat(c, false); };
        t["aten::stack"] = [](const Call &c) { return cat(c, true); };
        for (std::string_view op : {"aten::sum", "aten::mean", "aten::amax", "aten::amin", "aten::prod",
                                    "aten::logsumexp", "aten::std", "aten::var", "aten::norm", "aten::nansum"})
            t.emplace(op, [](const Call &c) { return reduce(c, true, std::nullopt); });
        for (std::string_view op : {"aten::all", "aten::any"})
            t.emplace(op, [](const Call &c) { return reduce(c, true, DType::Bool); });
        for (std::string_view op : {"aten::argmax", "aten::argmin"})
            t.emplace(op, [](const Call &c) { return reduce(c, true, DType::Int64); });
        t["aten::max"] = maxWithDim;
        t["aten::min"] = maxWithDim;
        for (std::string_view op : {"aten::zeros", "aten::ones", "aten::empty", "aten::rand", "aten::randn"})
            t.emplace(op, [](const Call &c) { return factory(c, 0); });
        t["aten::full"] = [](const Call &c) -> Value {
            Value v = factory(c, 0);
            if (v.kind == Value::Kind::Tensor && !c.dtypeArg()) {
                const Arg *fill = c.arg(1, "fill_value");
                if (fill && (fill->asInt() || std::holds_alternative<bool>(fill->value)))
                    v.tensor.dtype = std::holds_alternative<bool>(fill->value) ? DType::Bool : DType::Int64;
            }
            return v;
        };
        for (std::string_view op : {"aten::new_zeros", "aten::new_ones", "aten::new_empty", "aten::new_full"})
            t.emplace(op, newFactory);
        t["aten::arange"] = arange;
        t["aten::size"] = size;
        t["aten::sym_size"] = size;
        t["getitem"] = getitem;
        t["operator.getitem"] = tensorIndex;
        t["aten::tensor"] = tensorLiteral;
        t["aten::einsum"] = einsum;
        t["aten::interpolate"] = interpolate;
        t["aten::upsample"] = interpolate;
        t["getattr"] = attribute;
        // x.item(): a number whose value no shape says; as a size it is an
        // unbacked symbol, as PyTorch's fake tensors make it.
        t["aten::item"] = [](const Call &c) -> Value {
            return c.tensor(0, "self") ? Value::ofScalar(Dim("u_" + c.node().name)) : Value{};
        };
        t["aten::multi_head_attention_forward"] = multiHeadAttention;
        t["aten::scalar_tensor"] = [](const Call &c) -> Value {
            TensorMeta m;
            m.dtype = c.dtypeArg().value_or(DType::Float32);
            m.device = c.deviceArg().value_or("cpu");
            m.shape = Dims{};
            return Value::ofTensor(m);
        };
        return t;
    }();
    return table;
}

} // namespace

std::optional<std::vector<Dim>> broadcast(const std::vector<Dim> &a, const std::vector<Dim> &b)
{
    const size_t n = std::max(a.size(), b.size());
    std::vector<Dim> out(n, Dim(int64_t(1)));
    for (size_t i = 0; i < n; ++i) {
        const Dim *x = i < a.size() ? &a[a.size() - 1 - i] : nullptr;
        const Dim *y = i < b.size() ? &b[b.size() - 1 - i] : nullptr;
        Dim &slot = out[n - 1 - i];
        if (!x || isInt(*x, 1))
            slot = y ? *y : Dim(int64_t(1));
        else if (!y || isInt(*y, 1) || *x == *y)
            slot = *x;
        else if (intOf(*x) && intOf(*y))
            return std::nullopt; // 3 against 4
        else
            slot = intOf(*x) ? *x : *y; // a symbol against a size: PyTorch guards them equal
    }
    return out;
}

DType promote(DType a, DType b)
{
    if (a == b || b == DType::Unknown)
        return a;
    if (a == DType::Unknown)
        return b;
    auto category = [](DType d) { return d == DType::Bool ? 0 : (isFloating(d) ? 2 : 1); };
    if (category(a) != category(b))
        return category(a) > category(b) ? a : b;
    if (category(a) == 2) {
        // float16 with bfloat16 is float32; otherwise the wider one.
        if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
            return DType::Float32;
        return elementSize(a) >= elementSize(b) ? a : b;
    }
    return elementSize(a) >= elementSize(b) ? a : b;
}

Value inferNode(const Graph &graph, const Node &node, const Lookup &valueOf, bool *ruled)
{
    static const std::array<std::pair<std::string_view, std::string_view>, 8> scalarOps = {{
        {"operator.add", "add"}, {"operator.sub", "sub"}, {"operator.mul", "mul"}, {"operator.floordiv", "floordiv"},
        {"aten::add", "add"}, {"aten::sub", "sub"}, {"aten::mul", "mul"}, {"aten::floordiv", "floordiv"},
    }};
    const Call call(graph, node, valueOf);
    // A Python int expression on sizes (in dynamic graphs) reads as the same op
    // name as the tensor op: decide by the operands.
    for (const auto &[op, kind] : scalarOps)
        if (node.op == op && call.dim(0, "") && call.dim(1, "") && !call.tensor(0, "self"))
            return scalarArithmetic(call, kind);
    const auto &table = rules();
    auto it = table.find(node.op);
    if (it == table.end() && !node.op.starts_with("aten::") && node.op.find('.') != std::string::npos) {
        // A torch-level call the reader kept as written (no schema in
        // libtorch 1.13): torch._C._nn.scaled_dot_product_attention is
        // aten::scaled_dot_product_attention.
        const std::string aten = "aten::" + node.op.substr(node.op.rfind('.') + 1);
        it = table.find(aten);
    }
    if (it == table.end()) {
        if (ruled)
            *ruled = false;
        return {};
    }
    if (ruled)
        *ruled = true;
    return it->second(call);
}

} // namespace fusebox::shapes
