#pragma once
// What `fusebox-pass run` is asked to do (RunCommand.cpp reads it from the
// command line) and the job that does it (RunJob.cpp).

#include "CommandLine.h"

#include "core/rewrite/GreedyDriver.h"
#include "core/torch/LatencyComparison.h"

#include <string>

namespace fusebox::cli {

/// What `run` was asked to do, read from its arguments before anything is loaded.
struct RunRequest {
    std::string model;
    std::string output;
    bool asModule = false;
    /// What stock PyTorch 2 runs: made in PyTorch 2 through the bridge.
    bool forPyTorch2 = false;
    bool verify = false, measure = false, keepFaster = false, greedy = false;
    double precision = 1e-4;
    /// --keep-faster keeps a rewrite whose compiled median is at most
    /// (1 + tolerance) times the one before (CompiledGate).
    double keepFasterTolerance = 0.03;
    DriverOptions options;
    LatencyOptions latency;
};

/// Runs `request`: loads the model, runs the passes, verifies, measures and
/// writes what it asks for. The command's exit status.
int runJob(const ParsedArgs &args, RunRequest request);

} // namespace fusebox::cli
