#pragma once

#include "core/ir/Expected.h"

#include <string>
#include <vector>

#include <sys/types.h>

namespace fusebox::pt2 {

/// A started child: its pid (leader of its own process group) and the
/// parent's non-blocking, close-on-exec ends of its stdin/stdout/stderr.
struct ChildProcess {
    pid_t pid = -1;
    int stdinFd = -1;
    int stdoutFd = -1;
    int stderrFd = -1;
};

/// Runs argv (looked up in PATH) in a new process group with piped standard
/// streams, default signal dispositions and no other inherited descriptors.
/// Error: "cannot start `DISPLAY`: strerror" when fork or exec fails.
Expected<ChildProcess> spawnChild(const std::vector<std::string> &argv, const std::string &display);

/// Runs argv to its end with no input and returns what it wrote to stdout;
/// stderr is dropped. Killed (its whole group) after `timeoutMs`. Error when
/// it cannot start, times out or exits other than with 0.
Expected<std::string> runToEnd(const std::vector<std::string> &argv, int timeoutMs);

} // namespace fusebox::pt2
