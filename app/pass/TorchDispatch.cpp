#include "TorchDispatch.h"

#include "Commands.h"

#include "core/pt2/PythonCommand.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/ModelSaver.h"
#include "core/torch/TorchRuntime.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <unistd.h>

namespace fusebox::cli {
namespace {

/// The commands whose first positional argument is a MODEL.
bool takesModel(const std::string &command)
{
    for (const char *c : {"inspect", "convert", "matches", "explain", "run", "pattern-from", "compare-inductor"})
        if (command == c)
            return true;
    return false;
}

} // namespace

bool commandNeedsLibtorch(const std::string &command, const ParsedArgs &args)
{
    if (takesModel(command) && !args.positionals.empty() && readsWithLibtorch(args.positionals[0]))
        return true;
    // A PT2 graph is verified and timed in PyTorch 2 through the bridge;
    // libtorch only when no PyTorch 2 is set up. Any other graph in libtorch.
    if (command == "run" && (args.has("--verify") || args.has("--measure"))
        && (args.positionals.empty() || !readsAsPt2Graph(args.positionals[0])
            || !pt2::findPythonCommand(args.value("--python").value_or(""))))
        return true;
    if ((command == "run" || command == "convert") && args.value("-o")
        && outputFormatOf(*args.value("-o")) == OutputFormat::TorchScript)
        return true;
    return false;
}

int handOverToLibtorchBuild(const std::string &command, const ParsedArgs &args, char **argv)
{
    if (libtorchLinked() || !commandNeedsLibtorch(command, args))
        return -1;
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::string torchBuild = (self.parent_path() / "fusebox-pass-torch").string();
    ::execv(torchBuild.c_str(), argv);
    std::cerr << "fusebox-pass " << command << ": this needs libtorch, and " << torchBuild << " cannot be started ("
              << std::strerror(errno) << "); build the fusebox-pass-torch target\n";
    return kExitFailure;
}

} // namespace fusebox::cli
