#include "ShapeCall.h"

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

using Rule = std::function<Value(const Call &)>;

const std::unordered_map<std::string_view, Rule> &rules()
{
    static const std::unordered_map<std::string_view, Rule> table = [] {
        std::unordered_map<std::string_view, Rule> t;
        for (std::string_view op : {"aten::relu",
                                    "aten::relu_",
                                    "aten::relu6",
                                    "aten::gelu",
                                    "aten::silu",
                                    "aten::silu_",
                                    "aten::sigmoid",
                                    "aten::tanh",
                                    "aten::hardtanh",
                                    "aten::hardtanh_",
                                    "aten::hardswish",
                                    "aten::hardsigmoid",
                                    "aten::leaky_relu",
                                    "aten::elu",
                                    "aten::selu",
                                    "aten::mish",
                                    "aten::softplus",
                                    "aten::dropout",
                                    "aten::dropout_",
                                    "aten::feature_dropout",
                                    "aten::alpha_dropout",
                                    "aten::neg",
                                    "aten::exp",
                                    "aten::log",
                                    "aten::log1p",
                                    "aten::sqrt",
                                    "aten::rsqrt",
                                    "aten::abs",
                                    "aten::sin",
                                    "aten::cos",
                                    "aten::erf",
                                    "aten::reciprocal",
                                    "aten::sign",
                                    "aten::clone",
                                    "aten::contiguous",
                                    "aten::detach",
                                    "aten::softmax",
                                    "aten::log_softmax",
                                    "aten::_softmax",
                                    "aten::layer_norm",
                                    "aten::group_norm",
                                    "aten::batch_norm",
                                    "aten::instance_norm",
                                    "aten::rms_norm",
                                    "aten::nan_to_num",
                                    "aten::clamp",
                                    "aten::clamp_min",
                                    "aten::clamp_max",
                                    "aten::clamp_",
                                    "aten::masked_fill",
                                    "aten::masked_fill_",
                                    "aten::fill_",
                                    "aten::zero_",
                                    "aten::zeros_like",
                                    "aten::ones_like",
                                    "aten::empty_like",
                                    "aten::rand_like",
                                    "aten::randn_like",
                                    "aten::full_like",
                                    "aten::cumsum",
                                    "aten::flip",
                                    "aten::roll",
                                    "aten::triu",
                                    "aten::tril",
                                    "aten::bernoulli",
                                    "aten::square",
                                    "aten::normalize",
                                    "aten::pad",
                                    "aten::alias",
                                    "aten::lift_fresh_copy",
                                    "aten::requires_grad_",
                                    "aten::copy_",
                                    "aten::add_",
                                    "aten::mul_",
                                    "aten::sub_",
                                    "aten::div_",
                                    "aten::pow_",
                                    "aten::log_sigmoid",
                                    "aten::glu",
                                    "aten::bitwise_not",
                                    "aten::positive",
                                    "aten::floor",
                                    "aten::ceil",
                                    "aten::round",
                                    "aten::trunc",
                                    "aten::frac",
                                    "aten::sgn",
                                    "aten::log2",
                                    "aten::log10",
                                    "aten::expm1",
                                    "aten::tan",
                                    "aten::asin",
                                    "aten::acos",
                                    "aten::atan",
                                    "aten::sinh",
                                    "aten::cosh",
                                    "aten::asinh",
                                    "aten::acosh",
                                    "aten::atanh",
                                    "aten::erfc",
                                    "aten::erfinv",
                                    "aten::digamma",
                                    "aten::lgamma",
                                    "aten::celu",
                                    "aten::gelu_",
                                    "aten::threshold",
                                    "aten::softsign",
                                    "aten::tanhshrink",
                                    "aten::hardshrink",
                                    "aten::softshrink",
                                    "aten::prelu",
                                    "aten::rrelu",
                                    "aten::local_response_norm",
                                    "aten::cumprod",
                                    "aten::logcumsumexp",
                                    "aten::fill",
                                    "aten::masked_scatter",
                                    "aten::index_put",
                                    "aten::index_put_",
                                    "aten::scatter",
                                    "aten::scatter_add",
                                    "aten::scatter_",
                                    "aten::scatter_add_",
                                    "aten::detach_",
                                    "aten::sigmoid_",
                                    "aten::tanh_",
                                    "aten::exp_",
                                    "aten::neg_",
                                    "aten::clone_",
                                    "aten::native_dropout_backward",
                                    "aten::embedding_renorm_",
                                    "aten::dropout1d",
                                    "aten::dropout2d",
                                    "aten::dropout3d",
                                    "aten::feature_alpha_dropout",
                                    "aten::_to_copy",
                                    "aten::contiguous_",
                                    "aten::resolve_conj",
                                    "aten::resolve_neg",
                                    "aten::conj"})
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
        for (std::string_view op :
             {"aten::add",         "aten::sub",        "aten::mul",         "aten::rsub",         "aten::remainder",
              "aten::fmod",        "aten::pow",        "aten::maximum",     "aten::minimum",      "aten::atan2",
              "aten::bitwise_and", "aten::bitwise_or", "aten::bitwise_xor", "aten::floor_divide", "aten::hypot",
              "aten::__and__",     "aten::__or__",     "aten::__xor__",     "aten::lerp",         "aten::addcmul",
              "aten::addcdiv",     "aten::copysign"})
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
        t["aten::unflatten"] = unflatten;
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
        {"operator.add", "add"},
        {"operator.sub", "sub"},
        {"operator.mul", "mul"},
        {"operator.floordiv", "floordiv"},
        {"aten::add", "add"},
        {"aten::sub", "sub"},
        {"aten::mul", "mul"},
        {"aten::floordiv", "floordiv"},
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