#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fusebox {

/// Element types of tensors, as PyTorch names them.
enum class DType {
    Unknown,
    Bool,
    UInt8,
    Int8,
    Int16,
    Int32,
    Int64,
    Float16,
    BFloat16,
    Float32,
    Float64,
    Complex32,
    Complex64,
    Complex128,
    Float8E4M3FN,
    Float8E5M2,
};

/// The FX annotation abbreviation: "f32", "bf16", "i64", "b8"; "?" for Unknown.
std::string_view shortName(DType dtype);
/// The Python spelling: "torch.float32"; "unknown" for Unknown.
std::string_view torchName(DType dtype);
/// Parses a short name ("f32"), a Python name ("torch.float32", "float32") or a
/// TorchScript name ("Float", "Long"). Returns nullopt when none matches.
std::optional<DType> parseDType(std::string_view text);
/// Bytes per element; 0 for Unknown.
int elementSize(DType dtype);

} // namespace fusebox
