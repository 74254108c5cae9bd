#include "ShapeCall.h"

// Ops that move or select sizes: views, permutes, split, cat, slicing and indexing, sizes.

namespace fusebox::shapes {

Value view(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    if (!x)
        x = c.tensor(0, "input");
    auto size = c.varDims(1, c.node().op == "aten::reshape" ? "shape" : "size");
    if (!x || !size)
        return {};
    // -1 is numel over the other sizes' product, symbols included
    // (view(-1, 2, 2) of [s0, 4] is [s0, 2, 2]; view(-1) of [s0, 16] is [16*s0]).
    auto numel = productOfDims(*x->shape);
    auto shape = numel ? withInferredSize(*size, *numel) : std::nullopt;
    if (!shape)
        return {};
    return tensorValue(*x, *shape);
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
    else if (auto p = productOfDims(merged))
        out.push_back(*p);
    else
        return {};
    out.insert(out.end(), x->shape->begin() + *end + 1, x->shape->end());
    return tensorValue(*x, out);
}

/// unflatten(self, dim, sizes): one size may be -1, the dim's size over
/// the others' product.
Value unflatten(const Call &c)
{
    const TensorMeta *x = c.tensor(0, "self");
    auto dim = x ? wrapDim(c.integer(1, "dim").value_or(0), rankOf(*x)) : std::nullopt;
    auto sizes = c.dims(2, "sizes");
    if (!dim || !sizes || rankOf(*x) == 0 || sizes->empty())
        return {};
    auto split = withInferredSize(*sizes, (*x->shape)[size_t(*dim)]);
    if (!split)
        return {};
    Dims out = *x->shape;
    out.erase(out.begin() + *dim);
    out.insert(out.begin() + *dim, split->begin(), split->end());
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
        auto times = productOfDims({out[i], (*x->shape)[i - lead]});
        if (!times)
            return {};
        out[i] = *times;
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
    Dims sizes;
    for (const TensorMeta &m : used) {
        if (m.rank() != rank)
            return {};
        sizes.push_back((*m.shape)[size_t(*dim)]);
    }
    // Symbolic sizes add up as sympy writes them ([s0, 16] twice is [2*s0, 16]).
    auto total = sizes.size() == 1 ? std::optional(sizes.front()) : sumOfDims(sizes);
    if (!total)
        return {};
    out[size_t(*dim)] = *total;
    return tensorValue(first, out, dtype);
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
        } else if (const auto *list = item.items();
                   list && !advanced
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

} // namespace fusebox::shapes
