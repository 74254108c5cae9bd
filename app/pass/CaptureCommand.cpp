// fusebox-pass capture SCRIPT.py -o DIR: the graphs PyTorch 2 makes of a model.
#include "Commands.h"

#include <iostream>

namespace fusebox::cli {
namespace {

int runCapture(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass capture: expected one SCRIPT.py argument (see --help)\n";
        return kExitUsage;
    }
    auto output = args.value("-o");
    if (!output || output->empty()) {
        std::cerr << "fusebox-pass capture: -o DIR (the folder to write the graphs into) is required\n";
        return kExitUsage;
    }
    auto control = requestControlFor(args, "capture");
    if (!control)
        return kExitUsage;
    auto bridge = bridgeForCommand(args, "capture");
    if (!bridge)
        return kExitFailure;
    if (!args.has("--quiet"))
        control->progress = [](const std::string &text, double) { std::cerr << "capture: " << text << "\n"; };
    auto captured = bridge->capture(args.positionals[0], *output, *control);
    if (!captured) {
        std::cerr << "fusebox-pass capture: " << captured.error().message << "\n";
        return kExitFailure;
    }
    for (const std::string &file : captured->files)
        std::cout << "wrote " << *output << "/" << file << "\n";
    if (!captured->exportError.empty())
        std::cout << "note: exported.pt2 not written: torch.export failed: " << captured->exportError << "\n";
    for (const std::string &note : captured->notes)
        std::cout << "note: " << note << "\n";
    std::printf("captured in %.2f s (inside Python)\n", captured->seconds);
    return kExitOk;
}

} // namespace

Command captureCommand()
{
    return {"capture",
            "capture SCRIPT.py -o DIR [--python CMD] [--timeout SECONDS]",
            "run a model script in PyTorch 2 and write the graphs Inductor's passes see",
            "Runs SCRIPT.py in the bridge's PyTorch 2 (docs/pt2-bridge.md). The script\n"
            "defines `model` (an nn.Module) and `example_inputs` (a tuple), or a function\n"
            "get_model_and_inputs() returning both. Writes into DIR:\n"
            "  dynamo.py       the Dynamo graph the pre-grad passes see (shapes, strides, devices)\n"
            "  aot_forward.py  the AOT inference graph the post-grad passes see\n"
            "  aot_joint.py, aot_train_forward.py, aot_backward.py  the training graphs,\n"
            "                  when a parameter or input requires grad\n"
            "  exported.pt2    torch.export's archive, when export succeeds\n"
            "  inputs.json     the example inputs' names, shapes and dtypes\n"
            "Every graph opens in Fusebox with its shapes. Nothing is written when the\n"
            "script fails; its error is one line with the script's file:line.",
            {{"-o", "DIR", "the folder to write into (created when missing; required)"},
             {"--quiet", "", "no progress lines on stderr"},
             pythonOption(),
             timeoutOption()},
            runCapture};
}

} // namespace fusebox::cli
