#pragma once
// Runs the real fusebox-pass binary (or any command) the way a user would, for
// the CLI tests: stdout and stderr together, and the exit status.

#include <catch.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace fusebox::testing {

struct RunResult {
    int exitCode = -1;
    std::string output; // stdout and stderr together
};

/// Runs a shell command line.
inline RunResult runCommand(const std::string &commandLine)
{
    RunResult result;
    FILE *pipe = popen((commandLine + " 2>&1").c_str(), "r");
    REQUIRE(pipe);
    std::array<char, 4096> buffer;
    size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        result.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

/// Runs `fusebox-pass ARGUMENTS` from this build.
inline RunResult runPass(const std::string &arguments)
{
    return runCommand(std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass " + arguments);
}

} // namespace fusebox::testing
