#include "InductorInput.h"

#include "core/io/FxText.h"
#include "core/io/JsonSupport.h"
#include "core/io/TorchTraceGraphs.h"

#include <map>
#include <optional>
#include <set>
#include <variant>
#include <vector>

namespace fusebox::pt2 {

namespace {

std::set<std::string> namesIn(const nlohmann::json &passes, const char *stage)
{
    std::set<std::string> names;
    if (auto it = passes.find(stage); it != passes.end() && it->is_array())
        for (const auto &name : *it)
            if (name.is_string())
                names.insert(name.get<std::string>());
    return names;
}

void keepKnown(std::map<std::string, std::map<std::string, ConfigValue>> &section, const std::set<std::string> &known,
               std::vector<std::string> *leftOut)
{
    for (auto it = section.begin(); it != section.end();) {
        if (known.count(it->first)) {
            ++it;
            continue;
        }
        if (leftOut)
            leftOut->push_back(it->first);
        it = section.erase(it);
    }
}

} // namespace

PassConfig passesInductorHas(PassConfig config, const nlohmann::json &passes, std::vector<std::string> *leftOut)
{
    keepKnown(config.preGradFusionOptions, namesIn(passes, "pre_grad"), leftOut);
    keepKnown(config.postGradFusionOptions, namesIn(passes, "post_grad"), leftOut);
    return config;
}

std::string graphTextForInductor(const Graph &graph, const std::string &path)
{
    // The dump itself keeps Dynamo's torch-level spelling, which the pre-grad
    // rules match on; writeFxText would spell every call as an ATen op.
    auto format = graph.metadata().find("source.format");
    if (format != graph.metadata().end() && format->second.rfind("fx-text", 0) == 0) {
        std::string file = path;
        if (auto source = graph.metadata().find("source.path"); file.empty() && source != graph.metadata().end())
            file = source->second;
        if (!file.empty())
            if (auto text = readGraphSourceText(file))
                return *text;
    }
    return writeFxText(graph);
}

nlohmann::json inductorInputsOf(const Graph &graph)
{
    nlohmann::json inputs = nlohmann::json::array();
    for (NodeId id : graph.inputs()) {
        const Node *n = graph.node(id);
        // A SymInt placeholder (GraphNet's s10) has no shape: the bridge gives it its hint.
        if (n->type != "Tensor")
            continue;
        if (!n->meta.hasStaticShape() || n->meta.dtype == DType::Unknown)
            return nullptr;
        std::vector<int64_t> shape;
        for (const Dim &d : *n->meta.shape)
            shape.push_back(std::get<int64_t>(d));
        inputs.push_back({{"name", n->name}, {"shape", shape}, {"dtype", std::string(shortName(n->meta.dtype))}});
    }
    return inputs;
}

} // namespace fusebox::pt2
