#include "ModelLoader.h"

#include "TorchSchemas.h"
#include "TorchScriptImporter.h"
#include "core/io/ExportedProgram.h"
#include "core/io/FxText.h"
#include "core/io/GraphJson.h"
#include "core/io/GraphNetMeta.h"
#include "core/io/JsonSupport.h"
#include "core/io/TorchTraceGraphs.h"
#include "core/ir/GraphBuilder.h"
#include "core/ir/ShapeInference.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>

namespace fusebox {
namespace {

enum class FileKind { Missing, Directory, Empty, Zip, Json, Unknown };

/// The first `size` bytes of a file (fewer when it is shorter).
std::string readHead(const std::string &path, size_t size)
{
    std::ifstream in(path, std::ios::binary);
    std::string head(size, '\0');
    in.read(head.data(), static_cast<std::streamsize>(size));
    head.resize(static_cast<size_t>(in.gcount()));
    return head;
}

FileKind sniff(const std::string &path)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return FileKind::Missing;
    if (std::filesystem::is_directory(path, ec))
        return FileKind::Directory;
    const std::string start = readHead(path, 64);
    if (start.empty())
        return FileKind::Empty;
    if (start.rfind("PK", 0) == 0)
        return FileKind::Zip;
    auto first = start.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && start[first] == '{')
        return FileKind::Json;
    return FileKind::Unknown;
}

std::string lowerExtension(const std::string &path)
{
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

/// --input-shape for FX text: the tensor inputs the dump records no shape
/// for take the given shapes, in order (a Dynamo graph annotated with
/// torch.Tensor only). Shapes the dump records are kept.
void applyInputShapes(LoadedModel &model, const std::string &path, const std::vector<std::vector<int64_t>> &shapes)
{
    if (shapes.empty())
        return;
    GraphBuilder build = GraphBuilder::reopen(model.graph); // the loader's own graph, not handed out yet
    size_t next = 0;
    for (NodeId id : model.graph.inputs()) {
        Node &input = build.node(id);
        if (input.type != "Tensor" || input.meta.shape)
            continue;
        if (next == shapes.size())
            break;
        input.meta.shape = std::vector<Dim>(shapes[next].begin(), shapes[next].end());
        if (input.meta.dtype == DType::Unknown)
            input.meta.dtype = DType::Float32;
        ++next;
    }
    if (next < shapes.size())
        model.warnings.push_back(path + ": --input-shape gives " + std::to_string(shapes.size()) + " shapes, but only "
                                 + std::to_string(next) + " tensor inputs record none; the rest are ignored");
}

/// What an FX dump does not record: a GraphNet model.py takes its input
/// shapes from the meta files beside it, --input-shape gives the others, and
/// then every op value whose shape follows from its inputs' gets it
/// (core/ir/ShapeInference.h; the bridge's fake tensors cover the rest).
Expected<LoadedModel> completedFxGraph(Expected<LoadedModel> model, const std::string &path, const LoadOptions &options)
{
    if (!model)
        return model;
    applyGraphNetMeta(*model, path);
    applyInputShapes(*model, path, options.inputShapes);
    inferShapes(model->graph);
    return model;
}

/// FX text is read with PyTorch 2's schemas where the bridge's cache has them.
FxReadOptions fxOptions(const std::string &path)
{
    const GraphSchemas schemas = pt2GraphSchemas();
    FxReadOptions options{&schemas.registry, path};
    options.schemaOrigin = schemas.origin;
    return options;
}

/// What to say when a whole TORCH_TRACE log is given where one graph is expected.
std::string traceLogIsNotAGraph(const std::string &path)
{
    auto log = cachedTraceIndex(path);
    if (!log)
        return log.error().message;
    const auto graphs = (*log)->graphs();
    std::string message = path + ": a TORCH_TRACE log with " + std::to_string((*log)->compiles.size())
                          + " compiles and " + std::to_string(graphs.size()) + " graphs, not one graph";
    if (!graphs.empty())
        message += "; name one as " + path + "#" + traceGraphAddress(**log, graphs.front()).str();
    return message + " (fusebox-pass trace " + path + " lists them)";
}

} // namespace

std::vector<std::string> supportedModelExtensions()
{
    return {"pt", "pth", "torchscript", "zip", "pt2", "json", "py", "txt", "log"};
}

bool readsWithLibtorch(const std::string &path)
{
    if (splitTraceGraphPath(path) || isTorchTracePath(path))
        return false;
    switch (sniff(path)) {
    case FileKind::Missing:
    case FileKind::Directory:
    case FileKind::Empty:
    case FileKind::Json: return false;
    case FileKind::Zip: return !looksLikeExportedProgram(path);
    case FileKind::Unknown: break;
    }
    // Only the head, not the whole file: loadModel reads it again.
    if (looksLikeFxText(readHead(path, kFxTextSniffBytes)))
        return false;
    const std::string ext = lowerExtension(path);
    return ext != ".json" && ext != ".py" && ext != ".txt";
}

bool readsAsPt2Graph(const std::string &path)
{
    if (splitTraceGraphPath(path))
        return true;
    switch (sniff(path)) {
    case FileKind::Missing:
    case FileKind::Directory:
    case FileKind::Empty: return false;
    case FileKind::Json:
    case FileKind::Zip: return looksLikeExportedProgram(path);
    case FileKind::Unknown: break;
    }
    return looksLikeFxText(readHead(path, kFxTextSniffBytes));
}

Expected<LoadedModel> loadModel(const std::string &path, const LoadOptions &options)
{
    TorchScriptImportOptions torchOptions;
    torchOptions.inputShapes = options.inputShapes;
    // PT2 formats are canonicalised against libtorch's schemas, so that their
    // graphs read exactly like a TorchScript import of the same model.
    auto shapesIgnored = [&](Expected<LoadedModel> model, const char *format) {
        if (model && !options.inputShapes.empty())
            model->warnings.push_back(std::string("--input-shape is ignored for ") + format
                                      + " (it records its shapes)");
        return model;
    };
    if (auto located = locateTraceGraph(path)) {
        if (!*located)
            return located->error();
        return completedFxGraph(readTraceGraph(*(*located)->log, (*located)->graph, fxOptions(path)), path, options);
    }
    if (isTorchTracePath(path))
        return Error{traceLogIsNotAGraph(path)};
    switch (sniff(path)) {
    case FileKind::Missing: return Error{path + ": no such file"};
    case FileKind::Directory: return Error{path + ": is a directory, not a model file"};
    case FileKind::Empty: return Error{path + ": empty file (0 bytes), not a model"};
    case FileKind::Json:
        if (looksLikeExportedProgram(path))
            return shapesIgnored(readExportedProgramFile(path, {&pt2GraphSchemas().registry, path}),
                                 "torch.export programs");
        return shapesIgnored(loadGraphJson(path), "graph JSON");
    case FileKind::Zip:
        if (looksLikeExportedProgram(path))
            return shapesIgnored(readExportedProgramFile(path, {&pt2GraphSchemas().registry, path}),
                                 "torch.export archives");
        return importTorchScript(path, torchOptions);
    case FileKind::Unknown: break;
    }
    // Not a zip and not JSON: FX text when it reads like a dump; else let the
    // TorchScript reader explain (it recognises torch.save pickles of the
    // legacy format), unless the extension says JSON.
    if (auto text = json_support::readTextFile(path); text && looksLikeFxText(*text)) {
        // The schemas (a few ms to load, once a process) are needed only once
        // the text is parsed: they load beside the tokenizer and parser.
        auto schemas = std::async(std::launch::async, [] { return pt2GraphSchemas(); });
        FxReadOptions fx{nullptr, path};
        fx.awaitSchemas = [&schemas](FxReadOptions &ready) {
            const GraphSchemas loaded = schemas.get();
            ready.schemas = &loaded.registry;
            ready.schemaOrigin = loaded.origin;
        };
        return completedFxGraph(readFxText(*text, fx), path, options);
    }
    const std::string ext = lowerExtension(path);
    if (ext == ".json")
        return loadGraphJson(path);
    if (ext == ".py" || ext == ".txt")
        return completedFxGraph(readFxTextFile(path, fxOptions(path)), path, options); // its errors say what is wrong
    return importTorchScript(path, torchOptions);
}

} // namespace fusebox
