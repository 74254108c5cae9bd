#include "ShapeCall.h"

// Pointwise, reductions and Python int arithmetic on sizes.

namespace fusebox::shapes {

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

Value scalarArithmetic(const Call &c, std::string_view op)
{
    auto a = c.dim(0, ""), b = c.dim(1, "");
    if (!a || !b)
        return {};
    auto x = intOf(*a), y = intOf(*b);
    if (x && y && op == "floordiv")
        return *y != 0 ? Value::ofScalar(Dim(*x / *y - ((*x % *y != 0) && ((*x < 0) != (*y < 0)) ? 1 : 0))) : Value{};
    // Sizes add, subtract and multiply as sympy writes them (size * 2 of
    // [s0, ...] is 2*s0); a quotient only when it is exact.
    auto p = SymbolicSize::parse(*a), q = SymbolicSize::parse(*b);
    std::optional<SymbolicSize> result;
    if (p && q) {
        if (op == "add")
            result = p->plus(*q);
        else if (op == "sub")
            result = p->minus(*q);
        else if (op == "mul")
            result = p->times(*q);
        else if (op == "floordiv" && q->constant() != 0 && (!q->constant() || *q->constant() > 0))
            result = p->dividedBy(*q);
    }
    if (result)
        return Value::ofScalar(result->toDim());
    // A number no size fixes (2 * x.item()): still a number, not a tensor.
    return Value::ofScalar(Dim("u_" + c.node().name));
}

} // namespace fusebox::shapes
