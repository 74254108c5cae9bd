#pragma once
// The vocabulary of ReplacementTypeCheck's abstract interpretation: sets of
// possible dtypes, ranks as rank(x) + k, what is known of a value, and which
// ATen ops keep, fix or promote dtypes and ranks. Internal to patterns/custom.

#include "core/io/PatternAst.h"
#include "core/ir/DType.h"

#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

namespace fusebox::custom::typefacts {

using patternlang::OpName;

inline constexpr size_t kDTypeCount = size_t(DType::Float8E5M2) + 1;
using DTypeSet = std::bitset<kDTypeCount>;

inline DTypeSet only(DType d)
{
    DTypeSet s;
    s.set(size_t(d));
    return s;
}

inline DTypeSet everyDType()
{
    DTypeSet s;
    s.set();
    s.reset(size_t(DType::Unknown));
    return s;
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

inline DTypeSet floatingDTypes()
{
    DTypeSet s;
    for (size_t i = 0; i < kDTypeCount; ++i)
        if (isFloating(DType(i)))
            s.set(i);
    return s;
}

/// What an op that computes in floating point gives for inputs of `s`: a
/// floating input keeps its dtype, anything else becomes the default f32.
inline DTypeSet floatingResultOf(const DTypeSet &s)
{
    DTypeSet out = s & floatingDTypes();
    if ((s & ~floatingDTypes()).any())
        out.set(size_t(DType::Float32));
    return out;
}

inline std::string describe(const DTypeSet &s)
{
    if (s == everyDType())
        return "any dtype";
    if (s == floatingDTypes())
        return "a floating dtype";
    std::string out;
    size_t left = s.count();
    for (size_t i = 0; i < kDTypeCount; ++i) {
        if (!s.test(i))
            continue;
        --left;
        out += std::string(shortName(DType(i))) + (left == 0 ? "" : left == 1 ? " or " : ", ");
    }
    return out;
}

/// rank(capture) + offset, or a fixed rank when capture is empty.
struct Rank {
    std::string capture;
    int64_t offset = 0;
    bool operator==(const Rank &) const = default;
};

/// What is known of one value of the pattern.
struct Facts {
    /// Every dtype the value can have.
    DTypeSet dtypes = everyDType();
    /// The capture whose dtype the value has, when it is exactly that ("" otherwise).
    std::string dtypeOf;
    std::optional<Rank> rank;
    /// A Python scalar literal (broadcasts without adding a rank).
    bool scalar = false;
    bool floatScalar = false;
    /// For a list (split, chunk, unbind): what each item is.
    std::shared_ptr<Facts> item;
};

inline Facts sameAs(const Facts &f)
{
    Facts out;
    out.dtypes = f.dtypes;
    out.dtypeOf = f.dtypeOf;
    out.rank = f.rank;
    return out;
}

inline std::optional<Rank> shifted(const std::optional<Rank> &r, int64_t by)
{
    if (!r)
        return std::nullopt;
    return Rank{r->capture, r->offset + by};
}

inline std::string describe(const Rank &r)
{
    if (r.capture.empty())
        return std::to_string(r.offset);
    std::string s = "rank(" + r.capture + ")";
    if (r.offset > 0)
        s += " + " + std::to_string(r.offset);
    else if (r.offset < 0)
        s += " - " + std::to_string(-r.offset);
    return s;
}

/// True when no graph can give both ranks.
inline bool ranksDiffer(const Rank &a, const Rank &b)
{
    if (a.capture == b.capture)
        return a.offset != b.offset;
    // rank(x) + k == n needs rank(x) == n - k >= 0.
    if (a.capture.empty())
        return a.offset - b.offset < 0;
    if (b.capture.empty())
        return b.offset - a.offset < 0;
    return false;
}

inline std::string baseName(const OpName &op)
{
    const auto colon = op.name.rfind("::");
    return colon == std::string::npos ? op.name : op.name.substr(colon + 2);
}

inline std::string nsOf(const OpName &op)
{
    const auto colon = op.name.find("::");
    return colon == std::string::npos ? "" : op.name.substr(0, colon);
}

inline bool among(const std::string &name, std::initializer_list<const char *> names)
{
    for (const char *n : names)
        if (name == n)
            return true;
    return false;
}

/// Ops that keep their first argument's dtype and rank.
inline bool keepsDTypeAndRank(const std::string &op)
{
    return among(op, {"relu",       "relu_",         "relu6",       "neg",         "abs",         "clamp",
                      "clamp_min",  "clamp_max",     "hardtanh",    "leaky_relu",  "clone",       "contiguous",
                      "detach",     "dropout",       "permute",     "transpose",   "t",           "flip",
                      "roll",       "narrow",        "slice",       "linear",      "layer_norm",  "batch_norm",
                      "group_norm", "instance_norm", "softmax",     "log_softmax", "floor",       "ceil",
                      "round",      "trunc",         "sign",        "masked_fill", "cumsum",      "tril",
                      "triu",       "linear_relu",   "linear_gelu", "hardswish",   "hardsigmoid", "elu",
                      "gelu",       "silu",          "mish",        "softplus"});
}

/// Ops that keep their first argument's rank and compute in floating point.
inline bool floatingUnary(const std::string &op)
{
    return among(op, {"sigmoid", "tanh", "exp", "log", "log1p", "sqrt", "rsqrt", "erf", "sin", "cos", "reciprocal"});
}

/// Ops whose inputs must be floating (libtorch has no integer kernel).
inline bool needsFloatingInput(const std::string &op)
{
    return among(op, {"layer_norm", "group_norm", "batch_norm", "instance_norm", "gelu", "silu", "mish", "softplus",
                      "softmax", "log_softmax", "hardswish", "hardsigmoid", "elu", "linear_gelu"});
}

inline bool comparison(const std::string &op)
{
    return among(op, {"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "logical_not", "logical_and",
                      "logical_or", "logical_xor"});
}

inline bool broadcasting(const std::string &op)
{
    return among(op, {"add", "sub", "mul", "div", "maximum", "minimum", "pow", "where", "remainder", "fmod",
                      "floor_divide", "rsub"})
           || comparison(op);
}

inline bool reduction(const std::string &op)
{
    return among(op, {"sum", "mean", "amax", "amin", "prod", "argmax", "argmin", "logsumexp", "std", "var"});
}

} // namespace fusebox::custom::typefacts
