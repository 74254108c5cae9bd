#include "GraphSource.h"

namespace fusebox {

bool isPt2Graph(const Graph &graph)
{
    auto format = graph.metadata.find("source.format");
    if (format == graph.metadata.end())
        return false;
    const std::string &f = format->second;
    return f == "fx-text" || f == "fx-graph" || f.starts_with("torch.export") || f.starts_with("pt2");
}

} // namespace fusebox
