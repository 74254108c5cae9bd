#pragma once
// Parser for the str(graph) form of FX dumps ("graph():" and one
// "%name : [num_users=N] = kind[target=...](args = (...), kwargs = {...})"
// line per node). Internal to core/io; parseFx() dispatches here.

#include "FxParser.h"

#include <string>
#include <string_view>

namespace fusebox::fx {

/// Parses the tokens of a str(graph) dump (its `graph():` header first) into
/// the FxFunction print_readable code would give: placeholders as parameters,
/// one assignment per node, the output as the return. Errors read like parseFx's.
Expected<FxFunction> parseGraphString(std::string_view text, TokenStream stream, const std::string &sourceName);

} // namespace fusebox::fx
