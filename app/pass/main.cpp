// fusebox-pass: the headless Fusebox pass. Links no Qt: it runs where the
// production pipeline runs.
#include "Commands.h"
#include "TorchDispatch.h"

#include <algorithm>
#include <iostream>

using namespace fusebox::cli;

namespace {

std::vector<Command> allCommands()
{
    return {inspectCommand(), convertCommand(),         matchesCommand(),        explainCommand(),
            runCommand(),     patternFromCommand(),     exportPatternsCommand(), pt2Command(),
            captureCommand(), compareInductorCommand(), traceCommand()};
}

void printTopHelp(std::ostream &out)
{
    out << "Usage: fusebox-pass COMMAND [ARGS...]\n\n"
           "Inspects and rewrites PyTorch model graphs with the Optimus rules, without a\n"
           "GUI. MODEL is a TorchScript .pt archive, a torch.export .pt2 archive or\n"
           "ExportedProgram JSON, an FX text dump (print_readable(), fx_graph_readable.py,\n"
           "str(graph); .py/.txt), Fusebox graph JSON, or one graph of a TORCH_TRACE log\n"
           "(LOG#[rank/]compile_id/kind, see `trace`); the format is found from the content.\n\nCommands:\n";
    size_t width = 0;
    for (const Command &c : allCommands())
        width = std::max(width, c.name.size());
    for (const Command &c : allCommands()) {
        std::string left = "  " + c.name;
        left.resize(width + 4, ' ');
        out << left << c.summary << "\n";
    }
    out << "\n`fusebox-pass COMMAND --help` describes a command.\n"
           "Exit status: 0 success, 1 the input could not be read or processed, 2 bad usage.\n";
}

void printCommandHelp(const Command &c, std::ostream &out)
{
    out << "Usage: fusebox-pass " << c.usage << "\n\n"
        << c.details << "\n\nOptions:\n"
        << formatOptions(c.options) << "  --help                  show this help\n";
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        printTopHelp(std::cerr);
        return kExitUsage;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        printTopHelp(std::cout);
        return kExitOk;
    }
    for (const Command &c : allCommands()) {
        if (c.name != args[0])
            continue;
        std::vector<std::string> rest(args.begin() + 1, args.end());
        for (const std::string &word : rest) {
            if (word == "--help" || word == "-h") {
                printCommandHelp(c, std::cout);
                return kExitOk;
            }
        }
        ParsedArgs parsed;
        if (auto error = parseArgs(rest, c.options, parsed)) {
            std::cerr << "fusebox-pass " << c.name << ": " << *error << "\n";
            printCommandHelp(c, std::cerr);
            return kExitUsage;
        }
        if (int status = handOverToLibtorchBuild(c.name, parsed, argv); status >= 0)
            return status;
        return c.run(parsed);
    }
    std::cerr << "fusebox-pass: unknown command '" << args[0] << "'\n\n";
    printTopHelp(std::cerr);
    return kExitUsage;
}
