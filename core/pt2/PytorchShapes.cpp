#include "PytorchShapes.h"

#include "PythonCommand.h"
#include "core/io/FxAnnotation.h"
#include "core/io/JsonSupport.h"
#include "core/io/TorchTraceGraphs.h"
#include "core/ir/GraphBuilder.h"
#include "core/ir/ShapeInference.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fusebox::pt2 {
namespace {

/// FNV-1a: a cache key that is the same on every build (std::hash need not be).
uint64_t fnv1a(std::string_view text, uint64_t h = 1469598103934665603ull)
{
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string cacheFile(const std::string &fxText, const nlohmann::json &inputs, const PythonCommand &command)
{
    uint64_t h = fnv1a(fxText);
    h = fnv1a(inputs.dump(), h);
    h = fnv1a(command.text(), h);
    char name[40];
    std::snprintf(name, sizeof name, "%016llx.json", static_cast<unsigned long long>(h));
    return shapeCacheDir() + "/" + name;
}

PytorchShapes fromJson(const nlohmann::json &j)
{
    PytorchShapes out;
    out.torchVersion = j.value("torch", std::string());
    if (const auto it = j.find("values"); it != j.end() && it->is_object())
        for (const auto &[name, value] : it->items())
            if (value.is_string())
                out.values[name] = value.get<std::string>();
    if (const auto it = j.find("failed"); it != j.end() && it->is_array())
        for (const auto &f : *it)
            out.failures.push_back("%" + f.value("name", std::string()) + " (" + f.value("target", std::string())
                                   + "): " + f.value("message", std::string()));
    return out;
}

} // namespace

std::string shapeCacheDir()
{
    return fuseboxCacheDir() + "/shapes";
}

nlohmann::json recordedInputs(const Graph &graph)
{
    nlohmann::json inputs = nlohmann::json::array();
    for (NodeId id : graph.inputs()) {
        const Node &n = *graph.node(id);
        if (n.type != "Tensor" || !n.meta.hasStaticShape())
            continue;
        nlohmann::json shape = nlohmann::json::array();
        for (const Dim &d : *n.meta.shape)
            shape.push_back(std::get<int64_t>(d));
        nlohmann::json entry{{"name", n.name},
                             {"shape", shape},
                             {"dtype",
                              std::string(shortName(n.meta.dtype == DType::Unknown ? DType::Float32 : n.meta.dtype))}};
        if (!n.meta.device.empty())
            entry["device"] = n.meta.device;
        inputs.push_back(std::move(entry));
    }
    return inputs;
}

Expected<PytorchShapes> inferShapesInPytorch(Pt2Bridge &bridge, const std::string &fxText,
                                             const std::string &sourceName, const Graph &graph)
{
    const nlohmann::json inputs = recordedInputs(graph);
    const std::string cached = cacheFile(fxText, inputs, bridge.command());
    if (auto text = json_support::readTextFile(cached)) {
        const auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
        if (j.is_object() && j.contains("values")) {
            PytorchShapes out = fromJson(j);
            out.cached = true;
            return out;
        }
    }
    auto r = bridge.request("infer_shapes", {{"graph", fxText}, {"source_name", sourceName}, {"inputs", inputs}});
    if (!r)
        return r.error();
    // Best effort, as the schema cache: a cache that cannot be written only costs a Python start.
    std::error_code ec;
    std::filesystem::create_directories(shapeCacheDir(), ec);
    const std::string partial = cached + ".partial";
    if (std::ofstream(partial) << r->dump())
        std::filesystem::rename(partial, cached, ec);
    return fromJson(*r);
}

size_t applyPytorchShapes(Graph &graph, const PytorchShapes &shapes, std::vector<std::string> &warnings)
{
    GraphBuilder build = GraphBuilder::reopen(graph); // a loader's fix-up, as inferShapes()
    size_t changed = 0;
    size_t disagreements = 0;
    std::string firstDisagreement;
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id)) {
        const Node &n = *graph.node(id);
        auto it = shapes.values.find(n.name);
        if (it == shapes.values.end() || n.type != "Tensor")
            continue;
        fx::AnnotationError error;
        auto parsed = fx::parseAnnotation(it->second, error);
        if (!parsed || !parsed->meta.shape)
            continue;
        TensorMeta meta = parsed->meta;
        if (n.meta.shape && *n.meta.shape == *meta.shape
            && (n.meta.dtype == meta.dtype || n.meta.dtype == DType::Unknown))
            continue;
        if (n.meta.shape && n.isOp()) {
            if (disagreements++ == 0)
                firstDisagreement = "%" + n.name + " (" + n.op + "): Fusebox inferred " + n.meta.toString()
                                    + ", PyTorch " + shapes.torchVersion + " computes " + meta.toString();
        } else if (n.meta.shape) {
            continue; // an input keeps the shape it records
        }
        build.node(id).meta = std::move(meta);
        ++changed;
    }
    if (disagreements)
        warnings.push_back(firstDisagreement
                           + (disagreements > 1
                                  ? " (and " + std::to_string(disagreements - 1) + " more); PyTorch's shapes are used"
                                  : std::string("; PyTorch's shape is used")));
    for (const std::string &failure : shapes.failures)
        warnings.push_back("PyTorch " + shapes.torchVersion + " could not infer " + failure
                           + "; it and what depends on it have no shape");
    // What is left follows from what PyTorch gave (its failures' users).
    inferShapes(graph);
    build.metadata()["shapes.inferred_by"] = "PyTorch " + shapes.torchVersion + " (fake tensors)";
    return changed;
}

namespace {

/// "%view (aten::view)" of the first value without a shape.
std::string firstUnknownText(const Graph &graph, const ShapeCounts &counts)
{
    const Node *n = graph.node(counts.firstUnknown);
    return n ? n->name + " (" + n->op + ")" : std::string("?");
}

bool anyInputShaped(const Graph &graph)
{
    for (NodeId id : graph.inputs())
        if (graph.node(id)->type == "Tensor" && graph.node(id)->meta.hasStaticShape())
            return true;
    return false;
}

Expected<size_t> askPytorch(LoadedModel &model, const std::string &path, const std::string &python)
{
    if (!anyInputShaped(model.graph))
        return Error{"no tensor input of " + path
                     + " has a shape (annotate them, put GraphNet's weight_meta.py / "
                       "input_meta.py beside the dump, or give --input-shape)"};
    auto text = readGraphSourceText(path);
    if (!text)
        return text.error();
    auto bridge = Pt2Bridge::find(python);
    if (!bridge)
        return bridge.error();
    auto shapes = inferShapesInPytorch(**bridge, *text, path, model.graph);
    if (!shapes)
        return shapes.error();
    return applyPytorchShapes(model.graph, *shapes, model.warnings);
}

} // namespace

Expected<ShapeCompletion> completeShapes(LoadedModel &model, const std::string &path, const std::string &python,
                                         ShapeSource source)
{
    ShapeCompletion done;
    done.before = countShapes(model.graph);
    const auto format = model.graph.metadata().find("source.format");
    const bool fxText = format != model.graph.metadata().end() && format->second == "fx-text";
    if (!fxText) {
        if (source == ShapeSource::Pytorch)
            return Error{"PyTorch 2 infers the shapes of FX text dumps; " + path + " records its own"};
        done.after = done.before;
        return done;
    }
    // Under Auto, a dump that records no input's shape (fx_graph_runnable.py
    // keeps them in load_args) gives PyTorch nothing to start from: only the
    // count below is said.
    if (source == ShapeSource::Pytorch
        || (source == ShapeSource::Auto && done.before.unknown > 0 && anyInputShaped(model.graph))) {
        auto asked = askPytorch(model, path, python);
        if (!asked && source == ShapeSource::Pytorch)
            return asked.error();
        if (!asked)
            model.warnings.push_back(
                path + ": PyTorch 2 could not infer the shapes Fusebox's rules left unknown: " + asked.error().message);
        done.pytorch = asked.hasValue();
    }
    done.after = countShapes(model.graph);
    if (done.after.unknown > 0)
        model.warnings.push_back(path + ": " + std::to_string(done.after.unknown) + " of "
                                 + std::to_string(done.after.known + done.after.unknown)
                                 + " op values have no shape, the first %" + firstUnknownText(model.graph, done.after)
                                 + ": rules that read them cannot decide there (give the "
                                   "inputs' shapes: annotations, GraphNet's meta files, --input-shape or File > "
                                   "Input Shapes)");
    return done;
}

} // namespace fusebox::pt2
