#pragma once

#include "core/ir/Expected.h"

#include <nlohmann/json.hpp>

#include <string>

namespace fusebox::json_support {

/// "string \"onnx\"", "number 2.5": a JSON value's type and (shortened) text,
/// for "expected ..., found ..." messages.
std::string describe(const nlohmann::json &value);

/// The message with its control characters escaped ("\\n", "\\t", "\\x01"),
/// so that it stays one line when it quotes a key or string of the file
/// ("at /pre_grad_fusion_options/a\\nb: ..."); other bytes are kept.
std::string oneLine(std::string message);

/// Parses text; a syntax error becomes "<sourceName>:<line>:<column>: invalid
/// JSON: <what nlohmann says>", a value it cannot represent (a number too
/// large for a double) "<sourceName>:<line>:<column>: at <json.path>: number
/// overflow parsing '1e999'". Never throws.
Expected<nlohmann::json> parse(const std::string &text, const std::string &sourceName);

/// The whole file as bytes; "<path>: cannot open for reading" when it cannot.
Expected<std::string> readTextFile(const std::string &path);

/// Writes text to path; errors name the path.
Status writeTextFile(const std::string &path, const std::string &text);

} // namespace fusebox::json_support
