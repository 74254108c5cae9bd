#include "Commands.h"

#include "core/io/GraphJson.h"

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
    if (!output) {
        std::cerr << "fusebox-pass convert: -o OUT.json is required\n";
        return kExitUsage;
    }
    auto model = loadModelForCommand(args, "convert");
    if (!model)
        return kExitFailure;
    GraphJsonWriteOptions options;
    options.embedWeights = args.has("--weights");
    if (Status written = saveGraphJson(model->graph, *output, options); !written) {
        std::cerr << "fusebox-pass convert: " << written.error().message << "\n";
        return kExitFailure;
    }
    std::cout << "wrote " << *output << " (" << model->graph.size() << " nodes"
              << (options.embedWeights ? ", " + std::to_string(model->graph.weights().size()) + " weights embedded" : "")
              << ")\n";
    return kExitOk;
}

} // namespace

Command convertCommand()
{
    return {"convert",
            "convert MODEL -o OUT.json [--weights] [--input-shape N,N,...]",
            "write a model's graph as Fusebox graph JSON",
            "Reads MODEL and writes its graph as Fusebox graph JSON (docs/graph-json.md).\n"
            "Weights are left out unless --weights embeds them (base64).",
            {{"-o", "OUT.json", "where to write the graph JSON (required)"},
             {"--weights", "", "embed constant payloads in the JSON"},
             inputShapeOption()},
            runConvert};
}

} // namespace fusebox::cli
