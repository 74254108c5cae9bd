#pragma once

#include "patterns/InductorProfile.h"
#include "CommandLine.h"

#include "core/io/PassConfig.h"
#include "core/io/TorchTrace.h"
#include "core/pt2/Pt2Bridge.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/ModelSaver.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fusebox::cli {

/// A fusebox-pass subcommand.
struct Command {
    std::string name;
    std::string usage;   ///< "inspect MODEL [--json]"
    std::string summary; ///< one line for the command list
    std::string details; ///< paragraph for `fusebox-pass CMD --help`
    std::vector<OptionSpec> options;
    /// Runs the command on parsed args; returns the process exit code.
    std::function<int(const ParsedArgs &)> run;
};

Command inspectCommand();
Command convertCommand();
Command matchesCommand();
Command explainCommand();
Command runCommand();
Command patternFromCommand();
Command exportPatternsCommand();
Command pt2Command();
Command captureCommand();
Command compareInductorCommand();
Command traceCommand();
/// trace --replay: replays each compile of the log (patterns/TraceReplay.h) and prints the comparison.
int runTraceReplay(const TraceLog &log, const ParsedArgs &args);

/// --python CMD: the Python with torch >= 2.4 (docs/pt2-bridge.md).
OptionSpec pythonOption();
/// --timeout SECONDS for bridge requests.
OptionSpec timeoutOption();
/// The bridge --python (or the default) names; prints a one-line error and
/// returns null when there is none.
std::unique_ptr<pt2::Pt2Bridge> bridgeForCommand(const ParsedArgs &args, const std::string &commandName);
/// The request control --timeout asks for; nullopt (error printed) when it is bad.
std::optional<pt2::RequestControl> requestControlFor(const ParsedArgs &args, const std::string &commandName);

/// The --input-shape option every model-reading command takes.
OptionSpec inputShapeOption();
/// --warnings summary|all: how loadModelForCommand prints the reader's warnings.
OptionSpec warningsOption();
/// --shapes auto|pytorch|fusebox: how loadModelForCommand gives an FX dump's
/// values the shapes it does not record (core/ir/ShapeInference.h, core/pt2/PytorchShapes.h).
OptionSpec shapesOption();
/// --shapes-from-pytorch: the older spelling of --shapes pytorch.
OptionSpec shapesFromPytorchOption();
/// Reads the model named by the first positional, honouring --input-shape;
/// prints a one-line error to stderr and returns nullopt on failure.
std::optional<LoadedModel> loadModelForCommand(const ParsedArgs &args, const std::string &commandName);

/// Wall seconds since `start`, for a report's phases (the benchmarks read them).
inline double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Hands `value` to the end of the process unfreed: a command about to return
/// from main() need not free a large graph node by node.
template<typename T>
void leakAtExit(T &&value)
{
    new std::decay_t<T>(std::forward<T>(value));
}

/// The --config option of commands that run patterns.
OptionSpec configOption();
/// The --patterns option (repeatable) of the same commands.
OptionSpec patternsOption();
/// The built-in catalog plus --patterns files and the config's custom
/// patterns (always enabled), narrowed by --config when given; prints a one-line
/// error and returns nullopt when the config is bad. `config` receives it.
/// --inductor-version X.Y: whose Inductor a command's answers reproduce.
OptionSpec inductorVersionOption();
/// The Inductor profile a command follows: --inductor-version, else the torch
/// of the PyTorch 2 Fusebox uses (recorded by the schema cache, else asked
/// once), else the newest; nullopt after a one-line error (a torch < 2.4,
/// text that is no version).
std::optional<ChosenProfile> inductorProfileForCommand(const ParsedArgs &args, const std::string &commandName);

std::optional<PatternSet> patternsForCommand(const ParsedArgs &args, const std::string &commandName,
                                             PassConfig *config = nullptr);

/// --schedule inductor|greedy of the commands that rewrite.
OptionSpec scheduleOption();
/// Runs the enabled patterns on `graph` under the schedule --schedule names:
/// Inductor 2.6's pass order (the default; InductorSchedule.h) or Fusebox's
/// benefit-ordered rounds to a fixed point (greedy; GreedyDriver.h). Prints a
/// one-line error and returns nullopt for a bad --schedule.
std::optional<DriverResult> runSchedule(const ParsedArgs &args, const std::string &commandName,
                                        const PatternSet &patterns, const PassConfig &config, Graph &graph,
                                        DriverOptions options, DriverListener *listener = nullptr);

// The graph formats fusebox-pass writes: core/torch/ModelSaver.h.
using fusebox::OutputFormat;
using fusebox::outputFormatOf;
using fusebox::saveModel;

/// Exit codes: 0 ok, 1 the input could not be processed, 2 bad usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

} // namespace fusebox::cli
