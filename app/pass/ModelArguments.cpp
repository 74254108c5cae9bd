#include "Commands.h"

#include "core/io/FxText.h"
#include "core/io/JsonSupport.h"
#include "core/io/WarningSummary.h"
#include "core/pt2/Pt2Bridge.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/custom/PatternCompiler.h"
#include "patterns/PassConfiguration.h"

#include <iostream>

namespace fusebox::cli {

OptionSpec inputShapeOption()
{
    return {"--input-shape", "N,N,...",
            "shape of the next tensor input, e.g. 1,3,224,224 (repeat per input, or separate inputs with ';': "
            "32,13;32,384); overrides the shapes the file records",
            true};
}

OptionSpec warningsOption()
{
    return {"--warnings", "summary|all",
            "how to print the reader's warnings on stderr: one line per kind with a count and the first "
            "place (summary, the default) or every warning (all); inspect --json always lists all"};
}

OptionSpec shapesFromPytorchOption()
{
    return {"--shapes-from-pytorch", "",
            "for an FX dump that records its input shapes but not every value's (Dynamo graphs, GraphNet "
            "model.py with its meta files, --input-shape): run it once in PyTorch 2 through the bridge "
            "and read the shapes, dtypes and devices PyTorch computes"};
}

namespace {

/// The graph PyTorch 2 prints for the dump at path once every value has its
/// shape: one propagate_shapes request (docs/pt2-bridge.md) on random inputs
/// of the input shapes the model records.
Expected<LoadedModel> shapesFromPytorch(const LoadedModel &model, const std::string &path, const ParsedArgs &args)
{
    if (!model.graph.metadata.count("source.format") || model.graph.metadata.at("source.format") != "fx-text")
        return Error{"--shapes-from-pytorch takes an FX text dump"};
    auto text = json_support::readTextFile(path);
    if (!text)
        return text.error();
    nlohmann::json inputs = nlohmann::json::array();
    for (NodeId id : model.graph.inputs()) {
        const Node &n = *model.graph.node(id);
        if (n.type != "Tensor")
            continue;
        if (!n.meta.hasStaticShape())
            return Error{"input " + n.name + " has no static shape (annotate it, or put GraphNet's weight_meta.py / input_meta.py beside the dump)"};
        nlohmann::json shape = nlohmann::json::array();
        for (const Dim &d : *n.meta.shape)
            shape.push_back(std::get<int64_t>(d));
        inputs.push_back({{"name", n.name}, {"shape", shape},
                          {"dtype", std::string(shortName(n.meta.dtype == DType::Unknown ? DType::Float32
                                                                                          : n.meta.dtype))}});
    }
    auto bridge = pt2::Pt2Bridge::find(args.value("--python").value_or(""));
    if (!bridge)
        return bridge.error();
    auto r = (*bridge)->request("propagate_shapes", {{"graph", *text}, {"source_name", path}, {"inputs", inputs}});
    if (!r)
        return r.error();
    const GraphSchemas schemas = pt2GraphSchemas();
    FxReadOptions options{&schemas.registry, path + " (shapes from PyTorch)"};
    options.schemaOrigin = schemas.origin;
    return readFxText(r->value("graph", std::string()), options);
}

} // namespace

std::optional<LoadedModel> loadModelForCommand(const ParsedArgs &args, const std::string &commandName)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass " << commandName << ": expected one MODEL argument, got "
                  << args.positionals.size() << " (see --help)\n";
        return std::nullopt;
    }
    LoadOptions options;
    // One input per option, or several in one separated by ';' ("32,13;32,384"),
    // as the app's --input-shape takes them.
    for (const std::string &value : args.values("--input-shape")) {
        size_t start = 0;
        for (;;) {
            const size_t end = value.find(';', start);
            const std::string text = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
            if (!text.empty() || end == std::string::npos) {
                auto shape = parseShape(text);
                if (!shape) {
                    std::cerr << "fusebox-pass " << commandName << ": --input-shape '" << value << "': '" << text
                              << "' is not a comma-separated list of sizes (e.g. 1,3,224,224, or 32,13;32,384 "
                                 "for two inputs)\n";
                    return std::nullopt;
                }
                options.inputShapes.push_back(*shape);
            }
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
    }
    const std::string warnings = args.value("--warnings").value_or("summary");
    if (warnings != "summary" && warnings != "all") {
        std::cerr << "fusebox-pass " << commandName << ": --warnings takes summary or all, not '" << warnings
                  << "'\n";
        return std::nullopt;
    }
    auto model = loadModel(args.positionals[0], options);
    if (!model) {
        std::cerr << "fusebox-pass " << commandName << ": " << model.error().message << "\n";
        return std::nullopt;
    }
    if (args.has("--shapes-from-pytorch")) {
        auto shaped = shapesFromPytorch(*model, args.positionals[0], args);
        if (!shaped) {
            std::cerr << "fusebox-pass " << commandName << ": --shapes-from-pytorch: " << shaped.error().message
                      << "\n";
            return std::nullopt;
        }
        model = std::move(shaped);
    }
    if (warnings == "all") {
        for (const std::string &warning : model->warnings)
            std::cerr << "warning: " << warning << "\n";
    } else {
        for (const WarningGroup &group : groupWarnings(model->warnings))
            std::cerr << "warning: "
                      << (group.warnings.size() == 1 ? model->warnings[group.warnings.front()]
                                                     : formatWarningGroup(group))
                      << "\n";
    }
    return std::move(model.value());
}

OptionSpec configOption()
{
    return {"--config", "passes.json",
            "pass config in Inductor's shape (pre_grad_fusion_options, post_grad_fusion_options, "
            "custom_patterns, rejected); default: every built-in rule with Inductor's default options"};
}

std::optional<PatternSet> patternsForCommand(const ParsedArgs &args, const std::string &commandName,
                                             PassConfig *configOut)
{
    auto fail = [&](const std::string &message) {
        std::cerr << "fusebox-pass " << commandName << ": " << message << "\n";
        return std::nullopt;
    };
    PatternSet patterns = builtinCatalog();
    std::vector<std::string> custom;
    // Custom patterns are checked against libtorch's schemas (unknown ops,
    // arity) and match normalised arguments, like the importers produce.
    for (const std::string &file : args.values("--patterns")) {
        const size_t before = patterns.size();
        if (Status s = addPatternFile(patterns, file, &torchSchemas()); !s)
            return fail(s.error().message);
        for (size_t i = before; i < patterns.size(); ++i)
            custom.push_back(patterns.all()[i]->name());
    }
    if (auto path = args.value("--config")) {
        auto config = loadPassConfig(*path);
        if (!config)
            return fail(config.error().message);
        // The schemas are built on first use (the light build parses them
        // from JSON: tens of milliseconds a run that has no custom pattern
        // to check would spend for nothing).
        auto added = addCustomPatterns(patterns, *config, *path,
                                       config->customPatterns.empty() ? nullptr : &torchSchemas());
        if (!added)
            return fail(added.error().message);
        custom.insert(custom.end(), added->begin(), added->end());
        std::vector<std::string> notes;
        if (Status s = configurePatterns(patterns, *config, &notes); !s)
            return fail(*path + ": " + s.error().message);
        // What Inductor 2.6 accepts without acting on it is accepted here too, and said.
        for (const std::string &note : notes)
            std::cerr << "note: " << *path << ": " << note << "\n";
        if (configOut)
            *configOut = std::move(*config);
    }
    // A custom pattern runs whenever it is given, config or not.
    for (const std::string &name : custom)
        patterns.setEnabled(name, true);
    return patterns;
}

OptionSpec patternsOption()
{
    return {"--patterns", "FILE",
            "custom patterns (docs/pattern-language.md) to run with the built-in rules; repeatable",
            true};
}

} // namespace fusebox::cli
