#pragma once

#include "LoadedModel.h"
#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <string>

namespace fusebox {

/// Options of the graph JSON writer.
struct GraphJsonWriteOptions {
    /// Embed constant payloads (base64) so the file alone can be executed.
    bool embedWeights = false;
    /// Spaces per indent level; -1 writes one line.
    int indent = 1;
};

/// The graph JSON format's version; readers accept versions <= this one.
inline constexpr int kGraphJsonVersion = 1;

/// Writes the graph as Fusebox graph JSON (format "fusebox-graph",
/// kGraphJsonVersion). Lossless: reading the text back gives a graph with the
/// same nodes (names, kinds, ops, args, metadata, provenance) in the same
/// order. docs/graph-json.md describes the schema.
std::string writeGraphJson(const Graph &graph, const GraphJsonWriteOptions &options = {});

/// Reads Fusebox graph JSON. sourceName names the text in errors, which give
/// the JSON path of the bad field ("model.json: /nodes/12/args/0: unknown
/// node 'linear_9'") or the line and column of a syntax error.
Expected<LoadedModel> readGraphJson(const std::string &text, const std::string &sourceName);

/// Writes the graph JSON to path. Errors name the path.
Status saveGraphJson(const Graph &graph, const std::string &path, const GraphJsonWriteOptions &options = {});
/// Reads graph JSON from path.
Expected<LoadedModel> loadGraphJson(const std::string &path);

} // namespace fusebox
