#include "DType.h"

#include <array>
#include <utility>

namespace fusebox {
namespace {

struct DTypeNames {
    DType dtype;
    std::string_view shortName;
    std::string_view torchName;
    std::string_view scriptName; // TorchScript's scalar type name, as in "Float(2, 3)"
    int size;
};

constexpr std::array kNames = {
    DTypeNames{DType::Unknown, "?", "unknown", "", 0},
    DTypeNames{DType::Bool, "b8", "torch.bool", "Bool", 1},
    DTypeNames{DType::UInt8, "u8", "torch.uint8", "Byte", 1},
    DTypeNames{DType::Int8, "i8", "torch.int8", "Char", 1},
    DTypeNames{DType::Int16, "i16", "torch.int16", "Short", 2},
    DTypeNames{DType::Int32, "i32", "torch.int32", "Int", 4},
    DTypeNames{DType::Int64, "i64", "torch.int64", "Long", 8},
    DTypeNames{DType::Float16, "f16", "torch.float16", "Half", 2},
    DTypeNames{DType::BFloat16, "bf16", "torch.bfloat16", "BFloat16", 2},
    DTypeNames{DType::Float32, "f32", "torch.float32", "Float", 4},
    DTypeNames{DType::Float64, "f64", "torch.float64", "Double", 8},
    DTypeNames{DType::Complex32, "c32", "torch.complex32", "ComplexHalf", 4},
    DTypeNames{DType::Complex64, "c64", "torch.complex64", "ComplexFloat", 8},
    DTypeNames{DType::Complex128, "c128", "torch.complex128", "ComplexDouble", 16},
    DTypeNames{DType::Float8E4M3FN, "f8e4m3fn", "torch.float8_e4m3fn", "Float8_e4m3fn", 1},
    DTypeNames{DType::Float8E5M2, "f8e5m2", "torch.float8_e5m2", "Float8_e5m2", 1},
};

const DTypeNames &namesOf(DType dtype)
{
    for (const auto &n : kNames)
        if (n.dtype == dtype)
            return n;
    return kNames[0];
}

} // namespace

std::string_view shortName(DType dtype)
{
    return namesOf(dtype).shortName;
}
std::string_view torchName(DType dtype)
{
    return namesOf(dtype).torchName;
}
int elementSize(DType dtype)
{
    return namesOf(dtype).size;
}

std::optional<DType> parseDType(std::string_view text)
{
    std::string_view bare = text;
    if (bare.starts_with("torch."))
        bare.remove_prefix(6);
    for (const auto &n : kNames) {
        if (n.dtype == DType::Unknown)
            continue;
        if (text == n.shortName || text == n.scriptName || bare == n.torchName.substr(6))
            return n.dtype;
    }
    // Python's aliases (torch.float, torch.long, ...).
    static constexpr std::pair<std::string_view, DType> kAliases[] = {
        {"float", DType::Float32}, {"half", DType::Float16}, {"double", DType::Float64},
        {"long", DType::Int64},    {"int", DType::Int32},    {"short", DType::Int16},
    };
    for (const auto &[alias, dtype] : kAliases)
        if (bare == alias)
            return dtype;
    return std::nullopt;
}

} // namespace fusebox
