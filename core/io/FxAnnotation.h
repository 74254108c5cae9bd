#pragma once
// The annotations PT2 prints on FX values: "f32[2, 64][64, 1]cuda:0",
// "Sym(s0)", "Parameter(f32[32, 16][16, 1]cpu)" (torch 2.14's lifted
// parameters), and the plain type names Fusebox writes for non-tensor inputs.
// Internal to core/io's FX text reader and writer.

#include "core/ir/TensorMeta.h"

#include <optional>
#include <string>
#include <string_view>

namespace fusebox::fx {

/// What an annotation says about a value.
struct ParsedAnnotation {
    TensorMeta meta;
    /// "Tensor", "SymInt" for Sym(...), or a type name as written ("int", "List[int]").
    std::string type = "Tensor";
    /// The expression inside Sym(...), e.g. "s0".
    std::string symbol;
    /// Set when the dtype is a PyTorch abbreviation Fusebox does not represent
    /// ("u16"): the meta then has DType::Unknown and the reader warns.
    std::string unsupportedDType;
    /// The wrapper torch >= 2.8's print_readable puts around a lifted
    /// parameter or buffer's annotation: "Parameter" for
    /// "Parameter(f32[32, 16][16, 1]cpu)", empty for a bare annotation.
    std::string wrapper;
};

/// A parse failure: `offset` characters into the annotation, what was
/// expected, what was found.
struct AnnotationError {
    size_t offset = 0;
    std::string expected;
    std::string found;
};

/// Parses an annotation's text (without quotes). Returns the error instead of
/// throwing: "q99[3]" -> expected a dtype abbreviation, "f32[3, " -> expected a
/// dimension.
std::optional<ParsedAnnotation> parseAnnotation(std::string_view text, AnnotationError &error);

/// The annotation for a value's metadata: "f32[8, 16]", "f32[8, 16][16, 1]cpu",
/// "?[2, 3]" when only the shape is known; empty when nothing is known.
std::string formatAnnotation(const TensorMeta &meta);

} // namespace fusebox::fx
