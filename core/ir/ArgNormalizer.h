#pragma once

#include "Arg.h"
#include "Expected.h"
#include "OpSchema.h"

#include <optional>
#include <string_view>
#include <vector>

namespace fusebox {

/// Positional and keyword arguments of one call.
struct CallArgs {
    std::vector<Arg> args;
    std::vector<NamedArg> kwargs;
};

/// Normalises a call to the schema's form: keyword arguments that name
/// positional parameters move into their positions (skipped parameters take
/// their defaults), keyword-only parameters stay keywords in schema order,
/// and trailing arguments equal to their defaults are kept as written.
/// Errors name the op and the offending argument ("aten::split: unknown
/// keyword 'axis'", "aten::relu: 3 positional arguments, the schema takes 1",
/// "aten::linear: missing argument 'weight'").
Expected<CallArgs> normalizeCall(const OpSchema &schema, const CallArgs &call);

/// Parses a schema default as libtorch prints it ("None", "True", "-1",
/// "1e-05", "[0, 0]", "'mean'", "contiguous_format"...); nullopt when the text
/// is not a literal Fusebox represents.
std::optional<Arg> parseSchemaDefault(std::string_view text);

} // namespace fusebox
