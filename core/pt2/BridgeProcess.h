#pragma once

#include "BridgeSources.h"
#include "PythonCommand.h"
#include "core/ir/Expected.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace fusebox::pt2 {

/// What a caller can observe and steer while a request runs (any thread may set cancel).
struct RequestControl {
    /// Seconds the whole request may take, from sending to the final line.
    double timeoutSeconds = 600;
    /// When set and true, the request stops and the process is killed; checked every <= 100 ms.
    const std::atomic<bool> *cancel = nullptr;
    /// Called on the requesting thread for each progress line: its text and
    /// fraction (-1 when the server gave none).
    std::function<void(const std::string &text, double fraction)> progress;
};

/// One bridge Python process (docs/pt2-bridge.md): started in its own process
/// group, fed one JSON line per request on stdin, answering JSON lines on stdout.
///
/// Thread-safety: one request at a time (concurrent request() calls are
/// serialised); RequestControl::cancel may be set from any thread. After a
/// timeout, cancel, protocol error or exit the process is dead for good:
/// callers start a new one.
///
/// The first start() sets SIGPIPE to SIG_IGN process-wide when it was SIG_DFL,
/// so that writing to a dead child reports EPIPE instead of killing the caller.
class BridgeProcess {
public:
    /// Starts `command` with `-u -c bootstrapSource()` in its own process group and queues the header line
    /// {"root": "python", "sources": readBridgeSources(pythonDir)} (written by the first request).
    /// Error: one line ("cannot start `chroot ...`: No such file or directory").
    static Expected<std::unique_ptr<BridgeProcess>> start(const PythonCommand &command,
                                                          const std::string &pythonDir = bridgePythonDir());
    /// Closes stdin, waits up to 2 s for the process to exit, then kills its group; reaps it.
    ~BridgeProcess();
    BridgeProcess(const BridgeProcess &) = delete;
    BridgeProcess &operator=(const BridgeProcess &) = delete;

    /// Sends {"id": n, "op": op, "args": args} and reads lines until this id's "result" or "error";
    /// progress lines go to control.progress. Returns the result, or an Error whose message is one line:
    ///  - the server's {"error": E, "where": W}: "W: E" (E alone when W is empty); the process lives on;
    ///  - timeout: "PyTorch 2 bridge: <op> timed out after N s" (group killed: SIGTERM, SIGKILL after 2 s);
    ///  - cancel: "PyTorch 2 bridge: <op> cancelled" (killed the same way);
    ///  - exit: "PyTorch 2 bridge: python exited with status N during <op>: <last stderr line>"
    ///    (or "python killed by signal S ...");
    ///  - a line that is not a protocol message: "PyTorch 2 bridge: <op>: not a protocol line: <first 200 chars>"
    ///    (killed too);
    ///  - a dead process: "PyTorch 2 bridge: cannot run <op>: python is no longer running (<why>)".
    Expected<nlohmann::json> request(const std::string &op, const nlohmann::json &args,
                                     const RequestControl &control = {});
    /// True until the process exits or is killed.
    bool alive() const;
    /// The last 64 KiB of the process's stderr, without the harmless lines a chroot start prints
    /// (those containing "failed to get boot id" or "Error in cpuinfo").
    std::string stderrTail() const;
    /// The command it runs.
    const PythonCommand &command() const;
    /// The process id (and process group id); -1 once it has been reaped.
    pid_t pid() const;

private:
    explicit BridgeProcess(PythonCommand command);

    Expected<nlohmann::json> fail(std::string message, std::string why);
    std::optional<Expected<nlohmann::json>> handleLine(std::string_view line, int64_t id, const std::string &op,
                                                       const RequestControl &control);
    bool pump(int timeoutMs);
    void writePending();
    void readStderr();
    void appendStderr(const char *data, size_t size);
    bool waitForExit(double seconds);
    std::string reap();
    std::string killGroup();
    void closeFds();

    PythonCommand m_command;
    pid_t m_pid = -1;
    int m_stdin = -1;
    int m_stdout = -1;
    int m_stderr = -1;
    std::string m_pending; // bytes not yet written to stdin
    size_t m_pendingOffset = 0;
    std::string m_stdoutBuffer; // bytes read from stdout, not yet handled
    size_t m_scanned = 0;       // m_stdoutBuffer[0, m_scanned) holds no '\n'
    std::vector<char> m_readBuffer;
    std::string m_deathReason;
    int64_t m_nextId = 1;
    std::mutex m_requestMutex;
    mutable std::mutex m_stderrMutex;
    std::string m_stderrLine; // the unfinished last line
    std::string m_stderrTail;
};

} // namespace fusebox::pt2
