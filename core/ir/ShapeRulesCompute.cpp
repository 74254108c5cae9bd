#include "ShapeCall.h"

// Ops that compute: matmul, convolution, pooling, embedding, attention, einsum, factories.

namespace fusebox::shapes {

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

} // namespace fusebox::shapes
