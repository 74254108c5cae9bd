#include "Commands.h"

#include <iostream>

namespace fusebox::cli {
namespace {

int runConvert(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass convert: expected one MODEL argument (see --help)\n";
        return kExitUsage;
    }
    auto output = args.value("-o");
    if (!output
        || (outputFormatOf(*output) != OutputFormat::GraphJson && outputFormatOf(*output) != OutputFormat::FxText)) {
        std::cerr << "fusebox-pass convert: -o OUT.json (graph JSON) or -o OUT.py (FX text) is required\n";
        return kExitUsage;
    }
    auto model = loadModelForCommand(args, "convert");
    if (!model)
        return kExitFailure;
    const bool embedWeights = args.has("--weights");
    if (embedWeights && outputFormatOf(*output) == OutputFormat::FxText)
        std::cerr << "fusebox-pass convert: --weights is ignored for FX text (it names weights, holds none)\n";
    if (Status written = saveModel(model->graph, *output, embedWeights); !written) {
        std::cerr << "fusebox-pass convert: " << written.error().message << "\n";
        return kExitFailure;
    }
    const bool embedded = embedWeights && outputFormatOf(*output) == OutputFormat::GraphJson;
    std::cout << "wrote " << *output << " (" << model->graph.size() << " nodes"
              << (embedded ? ", " + std::to_string(model->graph.weights().size()) + " weights embedded" : "") << ")\n";
    return kExitOk;
}

} // namespace

Command convertCommand()
{
    return {"convert",
            "convert MODEL -o OUT.json|OUT.py [--weights] [--input-shape N,N,...]",
            "write a model's graph as Fusebox graph JSON or FX text",
            "Reads MODEL (any format Fusebox opens) and writes its graph: OUT.json as Fusebox\n"
            "graph JSON (docs/graph-json.md), OUT.py or OUT.txt as print_readable()-style FX\n"
            "text (docs/fx-text.md). JSON leaves weights out unless --weights embeds them (base64).",
            {{"-o", "OUT", "where to write the graph: .json or .py/.txt (required)"},
             {"--weights", "", "embed constant payloads in the JSON"},
             inputShapeOption(),
             warningsOption(),
             shapesOption(),
             shapesFromPytorchOption()},
            runConvert};
}

} // namespace fusebox::cli
