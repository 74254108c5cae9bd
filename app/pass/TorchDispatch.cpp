#include "TorchDispatch.h"

#include "Commands.h"

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
    if (command == "run" && (args.has("--verify") || args.has("--measure")))
        return true; // libtorch runs the graphs first; the bridge only when it cannot
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
    std::cerr << "fusebox-pass " << command << ": this needs libtorch, and " << torchBuild
              << " cannot be started (" << std::strerror(errno) << "); build the fusebox-pass-torch target\n";
    return kExitFailure;
}

} // namespace fusebox::cli
