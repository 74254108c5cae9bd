#pragma once
// Runs the real fusebox-pass binary (or any command) the way a user would, for
// the CLI tests: stdout and stderr together, and the exit status.

#include <catch.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <string>
#include <vector>
#include <sys/wait.h>

namespace fusebox::testing {

struct RunResult {
    int exitCode = -1;
    std::string output;         // stdout and stderr together
    std::string standardOutput; // stdout alone, where the run kept it apart (runPassForJson)
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

/// `word` as one shell word: single-quoted, its own quotes escaped.
inline std::string shellQuote(const std::string &word)
{
    std::string quoted = "'";
    for (char c : word)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

/// Runs the Python program in the file `program` (fed on stdin) with the
/// Python `python` (its command's words), which prints its answer as one
/// line "MARKER JSON": that JSON. The run must exit 0 and print the line.
inline nlohmann::json runPythonForJson(const std::vector<std::string> &python, const std::string &program,
                                       const std::string &marker)
{
    std::string command;
    for (const std::string &word : python)
        command += shellQuote(word) + " ";
    RunResult r = runCommand(command + "- < " + shellQuote(program));
    const size_t at = r.output.find(marker);
    INFO(r.output.substr(0, 4000));
    REQUIRE(r.exitCode == 0);
    REQUIRE(at != std::string::npos);
    const size_t end = r.output.find('\n', at);
    return nlohmann::json::parse(r.output.substr(at + marker.size(), end - at - marker.size()));
}

/// Runs `fusebox-pass ARGUMENTS` from this build.
inline RunResult runPass(const std::string &arguments)
{
    return runCommand(std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass " + arguments);
}

/// Runs `fusebox-pass ARGUMENTS` for a command that prints JSON on stdout:
/// standardOutput is that JSON alone, since notes go to stderr; output has
/// stdout, then stderr.
inline RunResult runPassForJson(const std::string &arguments)
{
    char errorPath[] = "/tmp/fusebox-stderr-XXXXXX";
    const int fd = mkstemp(errorPath);
    REQUIRE(fd >= 0);
    close(fd);
    // In a group of its own, so that runCommand's 2>&1 does not undo the redirection.
    RunResult r = runCommand("{ " + std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass " + arguments + " 2>"
                             + shellQuote(errorPath) + "; }");
    r.standardOutput = r.output;
    std::ifstream error(errorPath);
    r.output += std::string(std::istreambuf_iterator<char>(error), {});
    std::remove(errorPath);
    return r;
}

} // namespace fusebox::testing
