// fusebox-pass export-patterns: a pattern file as TorchScript SubgraphRewriter
// strings or an Inductor pattern module (patterns/custom/PatternExport.h).
#include "Commands.h"

#include "core/io/PassConfig.h"
#include "core/io/PatternFile.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/custom/PatternExport.h"

#include <fstream>
#include <iostream>

namespace fusebox::cli {
namespace {

int runExportPatterns(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass export-patterns: expected one FILE.patterns argument (see --help)\n";
        return kExitUsage;
    }
    const auto to = args.value("--to");
    if (!to || (*to != "torchscript" && *to != "inductor")) {
        std::cerr << "fusebox-pass export-patterns: --to torchscript|inductor is required\n";
        return kExitUsage;
    }
    const auto outPath = args.value("-o");
    if (!outPath) {
        std::cerr << "fusebox-pass export-patterns: -o OUT is required\n";
        return kExitUsage;
    }
    auto file = readPatternFile(args.positionals[0], {&torchSchemas(), args.positionals[0]});
    if (!file) {
        std::cerr << "fusebox-pass export-patterns: " << file.error().message << "\n";
        return kExitFailure;
    }
    std::optional<PassConfig> config;
    if (auto configPath = args.value("--config")) {
        auto loaded = loadPassConfig(*configPath);
        if (!loaded) {
            std::cerr << "fusebox-pass export-patterns: " << loaded.error().message << "\n";
            return kExitFailure;
        }
        config = std::move(*loaded);
    }
    const PatternExport exported = *to == "torchscript" ? exportTorchScriptPatterns(*file, &torchSchemas())
                                                        : exportInductorPatterns(*file, config ? &*config : nullptr);
    std::ofstream out(*outPath, std::ios::binary);
    out << exported.text;
    if (!out) {
        std::cerr << "fusebox-pass export-patterns: cannot write " << *outPath << "\n";
        return kExitFailure;
    }
    for (const auto &[name, why] : exported.skipped)
        std::cerr << "skipped " << name << ": " << why << "\n";
    for (const auto &[name, constraint] : exported.unchecked)
        std::cerr << "exported " << name << " without `" << constraint << "` (" << *to << " cannot check it)\n";
    std::cout << "wrote " << *outPath << ": " << file->patterns.size() - exported.skipped.size() << " of "
              << file->patterns.size() << " patterns exported\n";
    return kExitOk;
}

} // namespace

Command exportPatternsCommand()
{
    return {"export-patterns",
            "export-patterns FILE.patterns --to torchscript|inductor -o OUT [--config passes.json]",
            "export custom patterns as SubgraphRewriter IR strings or an Inductor pattern module",
            "--to torchscript writes a C++ header with TorchScript IR pattern/replacement\n"
            "strings and registerFuseboxPatterns(torch::jit::SubgraphRewriter &).\n"
            "--to inductor writes a Python module registering the patterns with\n"
            "torch._inductor.pattern_matcher and, with --config, setting\n"
            "pre_grad_fusion_options/post_grad_fusion_options. Patterns the target cannot\n"
            "express are listed on stderr and as comments in OUT.",
            {{"--to", "TARGET", "torchscript or inductor (required)"},
             {"-o", "OUT", "the file to write (required)"},
             configOption(),
             inductorVersionOption()},
            runExportPatterns};
}

} // namespace fusebox::cli
