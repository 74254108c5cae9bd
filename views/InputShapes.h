#pragma once
// Input shapes as users type them: "32,13;32,384" is two inputs, [32, 13] and
// [32, 384] (the form of the app's and fusebox-pass's --input-shape).

#include "core/ir/Graph.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace fusebox {

using InputShapes = std::vector<std::vector<int64_t>>;

/// "32,13;32,384".
QString inputShapesText(const InputShapes &shapes);
/// Parses "32,13;32,384" (spaces allowed); nullopt with a one-line `error`
/// naming the bad part otherwise.
std::optional<InputShapes> parseInputShapes(const QString &text, QString *error = nullptr);
/// The shapes the graph's tensor inputs have now, as inputShapesText writes
/// them; an input without a static shape is left empty ("8,128;;8,6").
QString currentInputShapesText(const Graph &graph);

} // namespace fusebox
