#pragma once
// Internal to the torch.export importer: node metadata (nn_module_stack,
// stack_trace) to Provenance.

#include "core/ir/Node.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace fusebox::export_json {

/// A module path as dynamo/export spell it ("L['self'].layers[0].linear",
/// "getattr(L['self'].layers, '0')", "self.layers.0", "layers.0") as a
/// dotted path from the root ("layers.0.linear"); "" for the root module.
std::string normalizeModulePath(std::string_view path);

/// The innermost module of an nn_module_stack, as a dotted path. Accepts the
/// serialized string ("key,path,type;key,path,type", commas inside brackets
/// or parentheses belong to the path; torch 2.1's "key:(path,type);..."), a JSON object {key: [path, type]} or
/// {key: {"path": ...}}, or an array of [key, path, type]. "" when none.
std::string scopeFromModuleStack(const nlohmann::json &stack);

/// The last `File "x.py", line N` of a Python stack trace; unknown when none.
SourceLocation sourceFromStackTrace(std::string_view trace);

} // namespace fusebox::export_json
