#include "core/ir/ShapeInference.h"
#include "core/pt2/PytorchShapes.h"
#include "Commands.h"

#include "core/io/FxText.h"
#include "core/io/JsonSupport.h"
#include "core/io/WarningSummary.h"
#include "core/pt2/Pt2Bridge.h"
#include "core/pt2/PythonCommand.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/custom/PatternCompiler.h"
#include "patterns/InductorProfile.h"
#include "patterns/PassConfiguration.h"

#include <iostream>

namespace fusebox::cli {

OptionSpec inputShapeOption()
{
    return {"--input-shape", "N,N,...",
            "shape of the next tensor input, e.g. 1,3,224,224 (repeat per input, or separate inputs with ';': "
            "32,13;32,384); overrides the shapes a TorchScript file records; for an FX dump, gives the tensor "
            "inputs it records no shape for (in order) their shapes, from which every value's shape is inferred",
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
    return {"--shapes-from-pytorch", "", "the same as --shapes pytorch (kept for scripts that use it)"};
}

OptionSpec shapesOption()
{
    return {"--shapes", "auto|pytorch|fusebox",
            "how the values an FX dump records no shape for get one, from its inputs' shapes (annotations, "
            "GraphNet's meta files, --input-shape): auto (the default) runs Fusebox's C++ rules, then PyTorch 2 "
            "on fake tensors for the rest when a PyTorch 2 is found (any recorded device; cached per file); "
            "pytorch fails when PyTorch 2 cannot run; fusebox uses the C++ rules alone"};
}

namespace {

/// --shapes (and its older spelling): "auto", "pytorch" or "fusebox"; nullopt after an error line.
std::optional<std::string> shapesMode(const ParsedArgs &args, const std::string &commandName)
{
    std::string mode = args.value("--shapes").value_or(args.has("--shapes-from-pytorch") ? "pytorch" : "auto");
    if (mode != "auto" && mode != "pytorch" && mode != "fusebox") {
        std::cerr << "fusebox-pass " << commandName << ": --shapes takes auto, pytorch or fusebox, not '" << mode
                  << "'\n";
        return std::nullopt;
    }
    return mode;
}

} // namespace

std::optional<LoadedModel> loadModelForCommand(const ParsedArgs &args, const std::string &commandName)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass " << commandName << ": expected one MODEL argument, got " << args.positionals.size()
                  << " (see --help)\n";
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
        std::cerr << "fusebox-pass " << commandName << ": --warnings takes summary or all, not '" << warnings << "'\n";
        return std::nullopt;
    }
    auto model = loadModel(args.positionals[0], options);
    if (!model) {
        std::cerr << "fusebox-pass " << commandName << ": " << model.error().message << "\n";
        return std::nullopt;
    }
    const auto mode = shapesMode(args, commandName);
    if (!mode)
        return std::nullopt;
    const pt2::ShapeSource source = *mode == "pytorch"   ? pt2::ShapeSource::Pytorch
                                    : *mode == "fusebox" ? pt2::ShapeSource::Fusebox
                                                         : pt2::ShapeSource::Auto;
    auto shaped = pt2::completeShapes(*model, args.positionals[0], args.value("--python").value_or(""), source);
    if (!shaped) {
        std::cerr << "fusebox-pass " << commandName << ": --shapes pytorch: " << shaped.error().message << "\n";
        return std::nullopt;
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

OptionSpec inductorVersionOption()
{
    return {"--inductor-version", "X.Y",
            "whose Inductor the answers reproduce (a profile: 2.6 or 2.14; a version between two uses the older "
            "and says so); default: the torch of the PyTorch 2 Fusebox uses (--python, FUSEBOX_PYTHON, else "
            "the scripts/setup-pt2.sh roots, Debian testing first), else the newest profile"};
}

std::optional<ChosenProfile> inductorProfileForCommand(const ParsedArgs &args, const std::string &commandName)
{
    std::string version = args.value("--inductor-version").value_or("");
    std::string from = "--inductor-version";
    if (version.empty()) {
        if (auto command = pt2::findPythonCommand(args.value("--python").value_or(""))) {
            if (auto installed = pt2::installedTorchVersion(*command)) {
                version = *installed; // its package metadata: torch is not imported
            } else if (auto recorded = pt2::cachedTorchVersion(*command)) {
                version = *recorded; // what its schema dump recorded: no Python starts
            } else if (auto bridge = pt2::Pt2Bridge::find(args.value("--python").value_or(""))) {
                if (auto info = (*bridge)->check())
                    version = info->torch;
            }
            from = "the PyTorch 2 at " + command->text();
        }
    }
    if (version.empty())
        return ChosenProfile{&newestInductorProfile(), {}, "no PyTorch 2 found: the newest profile"};
    auto chosen = chooseInductorProfile(version);
    if (!chosen) {
        std::cerr << "fusebox-pass " << commandName << ": " << from << ": " << chosen.error().message << "\n";
        return std::nullopt;
    }
    chosen->source = from == "--inductor-version" ? "--inductor-version " + version : from + ": torch " + version;
    return chosen.value();
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
    const auto profile = inductorProfileForCommand(args, commandName);
    if (!profile)
        return std::nullopt;
    std::cerr << "note: answers follow " << profile->profile->label() << " (" << profile->source << ")\n";
    if (!profile->note.empty())
        std::cerr << "note: " << profile->note << "\n";
    applyInductorProfile(patterns, *profile->profile);
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
        if (Status s = configurePatterns(patterns, *config, *profile->profile, &notes); !s)
            return fail(*path + ": " + s.error().message);
        // What the version's Inductor accepts without acting on it is accepted here too, and said.
        for (const std::string &note : notes)
            std::cerr << "note: " << *path << ": " << note << "\n";
        if (configOut)
            *configOut = std::move(*config);
    }
    std::vector<std::string> enabled;
    for (const Pattern *p : patterns.all())
        if (patterns.isEnabled(p->name()))
            enabled.push_back(p->name());
    for (const std::string &change : profile->profile->unmodelledChanges(enabled))
        std::cerr << "note: " << change << "\n";
    // A custom pattern runs whenever it is given, config or not.
    for (const std::string &name : custom)
        patterns.setEnabled(name, true);
    return patterns;
}

OptionSpec patternsOption()
{
    return {"--patterns", "FILE",
            "custom patterns (docs/pattern-language.md) to run with the built-in rules; repeatable", true};
}

} // namespace fusebox::cli
