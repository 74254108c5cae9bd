#pragma once
// fusebox-pass's two builds (core/torch/TorchRuntime.h): the light one hands
// a command that needs libtorch to fusebox-pass-torch, beside it, before the
// command starts, so that reading PT2 graphs never waits for libtorch's start.

#include "CommandLine.h"

#include <string>

namespace fusebox::cli {

/// True when `command` with these arguments needs libtorch: a TorchScript
/// MODEL (or legacy torch.save pickle), run --verify, a .pt output.
bool commandNeedsLibtorch(const std::string &command, const ParsedArgs &args);

/// In the light build, when the command needs libtorch: replaces this process
/// by fusebox-pass-torch with the same arguments (returns only when that
/// fails, with the exit status to end with). Returns -1 when this build can
/// run the command itself.
int handOverToLibtorchBuild(const std::string &command, const ParsedArgs &args, char **argv);

} // namespace fusebox::cli
