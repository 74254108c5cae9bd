#include "Commands.h"

#include <iostream>

namespace fusebox::cli {

OptionSpec inputShapeOption()
{
    return {"--input-shape", "N,N,...",
            "shape of the next tensor input, e.g. 1,3,224,224 (repeat per input); "
            "overrides the shapes the file records",
            true};
}

std::optional<LoadedModel> loadModelForCommand(const ParsedArgs &args, const std::string &commandName)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass " << commandName << ": expected one MODEL argument, got "
                  << args.positionals.size() << " (see --help)\n";
        return std::nullopt;
    }
    LoadOptions options;
    for (const std::string &text : args.values("--input-shape")) {
        auto shape = parseShape(text);
        if (!shape) {
            std::cerr << "fusebox-pass " << commandName << ": --input-shape '" << text
                      << "' is not a comma-separated list of sizes (e.g. 1,3,224,224)\n";
            return std::nullopt;
        }
        options.inputShapes.push_back(*shape);
    }
    auto model = loadModel(args.positionals[0], options);
    if (!model) {
        std::cerr << "fusebox-pass " << commandName << ": " << model.error().message << "\n";
        return std::nullopt;
    }
    for (const std::string &warning : model->warnings)
        std::cerr << "warning: " << warning << "\n";
    return std::move(model.value());
}

} // namespace fusebox::cli
