#pragma once

#include "Graph.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fusebox {

/// Counts that describe a graph at a glance (CLI `inspect`, the app's summary).
struct GraphSummary {
    size_t nodes = 0;
    size_t edges = 0;
    size_t inputs = 0;
    size_t constants = 0;
    size_t ops = 0;
    /// Op nodes per op name ("aten::linear" -> 12), most frequent first, ties by name.
    std::vector<std::pair<std::string, size_t>> opHistogram;
    /// The same counts keyed by op name.
    std::map<std::string, size_t> opCounts;
};

/// Summarises the graph's live nodes.
GraphSummary summarize(const Graph &graph);

} // namespace fusebox
