#pragma once

#include "DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fusebox {

/// One dimension of a shape: a concrete size or a symbol ("s0").
using Dim = std::variant<int64_t, std::string>;

/// What is known about a tensor value. Everything is optional: an importer
/// fills what its format records.
struct TensorMeta {
    DType dtype = DType::Unknown;
    /// The sizes, when the rank is known.
    std::optional<std::vector<Dim>> shape;
    /// The strides, when recorded (dense row-major is not assumed).
    std::optional<std::vector<int64_t>> strides;
    /// "cpu", "cuda:0", or empty when unknown.
    std::string device;

    /// True when dtype or shape is known.
    bool isKnown() const { return dtype != DType::Unknown || shape.has_value(); }
    /// The rank, or -1 when the shape is unknown.
    int rank() const { return shape ? static_cast<int>(shape->size()) : -1; }
    /// True when every dimension is a concrete size.
    bool hasStaticShape() const;
    /// Number of elements when the shape is static, else nullopt.
    std::optional<int64_t> numel() const;

    /// FX annotation style: "f32[1, 3, 224, 224]", "f32[s0, 8]", "f32[]";
    /// "?[2, 3]" when only the shape is known, "f32" when only the dtype is.
    std::string toString() const;
    /// The shape alone: "[1, 3, 224, 224]", or "" when unknown.
    std::string shapeString() const;

    friend bool operator==(const TensorMeta &, const TensorMeta &) = default;
};

/// "3" or "s0".
std::string toString(const Dim &dim);

} // namespace fusebox
