#include "Commands.h"

#include "patterns/Catalog.h"
#include "patterns/PassConfiguration.h"

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

OptionSpec configOption()
{
    return {"--config", "passes.json",
            "pass config in Inductor's shape (pre_grad_fusion_options, post_grad_fusion_options, "
            "rejected); default: every built-in rule with Inductor's default options"};
}

std::optional<PatternSet> patternsForCommand(const ParsedArgs &args, const std::string &commandName,
                                             PassConfig *configOut)
{
    PatternSet patterns = builtinCatalog();
    if (auto path = args.value("--config")) {
        auto config = loadPassConfig(*path);
        if (!config) {
            std::cerr << "fusebox-pass " << commandName << ": " << config.error().message << "\n";
            return std::nullopt;
        }
        if (Status s = configurePatterns(patterns, *config); !s) {
            std::cerr << "fusebox-pass " << commandName << ": " << *path << ": " << s.error().message << "\n";
            return std::nullopt;
        }
        if (configOut)
            *configOut = std::move(*config);
    }
    return patterns;
}

} // namespace fusebox::cli
