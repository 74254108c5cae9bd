#include "ModelSaver.h"

#include "core/io/FxText.h"
#include "core/io/GraphJson.h"
#include "core/io/JsonSupport.h"
#include "TorchScriptExporter.h"

#include <algorithm>
#include <filesystem>

namespace fusebox {

OutputFormat outputFormatOf(const std::string &path)
{
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext == ".pt")
        return OutputFormat::TorchScript;
    if (ext == ".json")
        return OutputFormat::GraphJson;
    if (ext == ".py" || ext == ".txt")
        return OutputFormat::FxText;
    if (ext == ".pt2")
        return OutputFormat::Pt2Archive;
    return OutputFormat::Unknown;
}

Status saveModel(const Graph &graph, const std::string &path, bool embedWeights)
{
    switch (outputFormatOf(path)) {
    case OutputFormat::TorchScript: return exportTorchScript(graph, path);
    case OutputFormat::GraphJson: return saveGraphJson(graph, path, {.embedWeights = embedWeights});
    case OutputFormat::FxText: return json_support::writeTextFile(path, writeFxText(graph));
    case OutputFormat::Pt2Archive:
        return Error{path + ": a torch.export archive is made in PyTorch 2 through the bridge (exportForPyTorch2)"};
    case OutputFormat::Unknown: break;
    }
    return Error{path + ": unknown output format (use .pt, .json, or .py/.txt for FX text)"};
}

} // namespace fusebox
