#include "BridgeProcess.h"

#include "Bootstrap.h"
#include "ChildProcess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fusebox::pt2 {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kStderrLimit = 64 * 1024;
constexpr double kTermGraceSeconds = 2.0;

void ignoreSigpipeOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction old {};
        if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
            ::signal(SIGPIPE, SIG_IGN);
    });
}

bool harmlessStderrLine(std::string_view line)
{
    return line.find("failed to get boot id") != std::string_view::npos
           || line.find("Error in cpuinfo") != std::string_view::npos;
}

std::string formatSeconds(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", seconds);
    return text;
}

std::string lastNonEmptyLine(const std::string &text)
{
    size_t end = text.size();
    while (end > 0) {
        size_t begin = text.rfind('\n', end - 1);
        begin = begin == std::string::npos ? 0 : begin + 1;
        std::string line = text.substr(begin, end - begin);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        if (!line.empty())
            return line;
        end = begin == 0 ? 0 : begin - 1;
    }
    return {};
}

std::string describeStatus(int status)
{
    if (WIFEXITED(status))
        return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status));
    return "stopped";
}

} // namespace

BridgeProcess::BridgeProcess(PythonCommand command)
    : m_command(std::move(command))
    , m_readBuffer(1 << 16)
{}

Expected<std::unique_ptr<BridgeProcess>> BridgeProcess::start(const PythonCommand &command, const std::string &pythonDir)
{
    auto sources = readBridgeSources(pythonDir);
    if (!sources)
        return sources.error();
    ignoreSigpipeOnce();
    std::vector<std::string> argv = command.argv;
    argv.insert(argv.end(), {"-u", "-c", bootstrapSource()});
    auto child = spawnChild(argv, command.text());
    if (!child)
        return child.error();
    std::unique_ptr<BridgeProcess> process(new BridgeProcess(command));
    process->m_pid = child->pid;
    process->m_stdin = child->stdinFd;
    process->m_stdout = child->stdoutFd;
    process->m_stderr = child->stderrFd;
    const json header = {{"root", "python"}, {"sources", std::move(*sources)}};
    // ASCII-only, so that a Python whose locale is not UTF-8 reads it the same.
    process->m_pending = header.dump(-1, ' ', true, json::error_handler_t::replace) + "\n";
    return process;
}

BridgeProcess::~BridgeProcess()
{
    if (m_pid <= 0)
        return;
    if (m_stdin >= 0) {
        ::close(m_stdin);
        m_stdin = -1;
    }
    if (!waitForExit(kTermGraceSeconds))
        killGroup();
    else
        reap();
    closeFds();
}

bool BridgeProcess::alive() const
{
    return m_pid > 0;
}

const PythonCommand &BridgeProcess::command() const
{
    return m_command;
}

pid_t BridgeProcess::pid() const
{
    return m_pid;
}

std::string BridgeProcess::stderrTail() const
{
    std::lock_guard lock(m_stderrMutex);
    std::string tail = m_stderrTail;
    if (!harmlessStderrLine(m_stderrLine))
        tail += m_stderrLine;
    if (tail.size() > kStderrLimit)
        tail.erase(0, tail.size() - kStderrLimit);
    return tail;
}

Expected<json> BridgeProcess::request(const std::string &op, const json &args, const RequestControl &control)
{
    std::lock_guard lock(m_requestMutex);
    if (!alive())
        return Error{"PyTorch 2 bridge: cannot run " + op + ": python is no longer running (" + m_deathReason + ")"};
    const int64_t id = m_nextId++;
    const json message = {{"id", id}, {"op", op}, {"args", args}};
    m_pending += message.dump(-1, ' ', true, json::error_handler_t::replace);
    m_pending += '\n';

    const auto started = Clock::now();
    const auto deadline = started
                          + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(std::max(0.0, control.timeoutSeconds)));
    for (;;) {
        // Lines already read first: a result that arrived is a result.
        size_t newline;
        while ((newline = m_stdoutBuffer.find('\n', m_scanned)) != std::string::npos) {
            const std::string line = m_stdoutBuffer.substr(0, newline);
            m_stdoutBuffer.erase(0, newline + 1);
            m_scanned = 0;
            if (auto outcome = handleLine(line, id, op, control))
                return std::move(*outcome);
        }
        m_scanned = m_stdoutBuffer.size();

        if (control.cancel && control.cancel->load())
            return fail("PyTorch 2 bridge: " + op + " cancelled", op + " was cancelled");
        const auto now = Clock::now();
        if (now >= deadline) {
            const std::string message = op + " timed out after " + formatSeconds(control.timeoutSeconds) + " s";
            return fail("PyTorch 2 bridge: " + message, message);
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
        if (!pump(static_cast<int>(std::min<int64_t>(100, left)))) {
            // stdout closed: the process is exiting. Its last words are on stderr.
            waitForExit(kTermGraceSeconds);
            const std::string status = killGroup();
            std::string message = "PyTorch 2 bridge: python " + status + " during " + op;
            if (const std::string last = lastNonEmptyLine(stderrTail()); !last.empty())
                message += ": " + last;
            m_deathReason = status + " during " + op;
            return Error{message};
        }
    }
}

std::optional<Expected<json>> BridgeProcess::handleLine(std::string_view line, int64_t id, const std::string &op,
                                                        const RequestControl &control)
{
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
        line.remove_suffix(1);
    if (line.empty())
        return std::nullopt;
    json message = json::parse(line.begin(), line.end(), nullptr, false);
    if (message.is_discarded() || !message.is_object() || !message.contains("id")) {
        std::string shown(line.substr(0, 200));
        return fail("PyTorch 2 bridge: " + op + ": not a protocol line: " + shown,
                    "it wrote a line that is not a protocol message during " + op);
    }
    if (message["id"] != id)
        return std::nullopt; // an answer to an earlier request that was given up on
    if (auto result = message.find("result"); result != message.end())
        return Expected<json>(std::move(*result));
    if (auto error = message.find("error"); error != message.end()) {
        std::string text = error->is_string() ? error->get<std::string>() : error->dump();
        std::string where;
        if (auto w = message.find("where"); w != message.end() && w->is_string())
            where = w->get<std::string>();
        return Expected<json>(Error{where.empty() ? text : where + ": " + text});
    }
    if (auto progress = message.find("progress"); progress != message.end()) {
        if (control.progress) {
            const std::string text = progress->is_string() ? progress->get<std::string>() : progress->dump();
            double fraction = -1;
            if (auto f = message.find("fraction"); f != message.end() && f->is_number())
                fraction = f->get<double>();
            control.progress(text, fraction);
        }
        return std::nullopt;
    }
    std::string shown(line.substr(0, 200));
    return fail("PyTorch 2 bridge: " + op + ": not a protocol line: " + shown,
                "it wrote a line that is not a protocol message during " + op);
}

Expected<json> BridgeProcess::fail(std::string message, std::string why)
{
    killGroup();
    m_deathReason = std::move(why);
    return Error{std::move(message)};
}

bool BridgeProcess::pump(int timeoutMs)
{
    const bool writing = m_stdin >= 0 && m_pendingOffset < m_pending.size();
    pollfd fds[3] = {{m_stdout, POLLIN, 0}, {m_stderr, POLLIN, 0}, {writing ? m_stdin : -1, POLLOUT, 0}};
    if (::poll(fds, 3, timeoutMs) < 0)
        return true; // EINTR: the caller loops
    if (fds[2].revents)
        writePending();
    if (fds[1].revents)
        readStderr();
    if (!fds[0].revents)
        return true;
    for (;;) {
        const ssize_t n = ::read(m_stdout, m_readBuffer.data(), m_readBuffer.size());
        if (n > 0) {
            m_stdoutBuffer.append(m_readBuffer.data(), static_cast<size_t>(n));
            if (static_cast<size_t>(n) < m_readBuffer.size())
                return true;
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            return false;
        } else if (errno == EAGAIN) {
            return true;
        }
    }
}

void BridgeProcess::writePending()
{
    while (m_stdin >= 0 && m_pendingOffset < m_pending.size()) {
        const size_t chunk = std::min<size_t>(m_pending.size() - m_pendingOffset, 1 << 20);
        const ssize_t n = ::write(m_stdin, m_pending.data() + m_pendingOffset, chunk);
        if (n > 0) {
            m_pendingOffset += static_cast<size_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            return;
        } else {
            // EPIPE: the process stopped reading; stdout's end tells the rest.
            ::close(m_stdin);
            m_stdin = -1;
        }
    }
    if (m_pendingOffset >= m_pending.size()) {
        m_pending.clear();
        m_pendingOffset = 0;
    }
}

void BridgeProcess::readStderr()
{
    for (;;) {
        const ssize_t n = ::read(m_stderr, m_readBuffer.data(), m_readBuffer.size());
        if (n > 0) {
            appendStderr(m_readBuffer.data(), static_cast<size_t>(n));
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n == 0 || errno != EAGAIN) {
                ::close(m_stderr);
                m_stderr = -1;
            }
            return;
        }
    }
}

void BridgeProcess::appendStderr(const char *data, size_t size)
{
    std::lock_guard lock(m_stderrMutex);
    std::string_view rest(data, size);
    size_t newline;
    while ((newline = rest.find('\n')) != std::string_view::npos) {
        m_stderrLine.append(rest.substr(0, newline + 1));
        rest.remove_prefix(newline + 1);
        if (!harmlessStderrLine(m_stderrLine))
            m_stderrTail += m_stderrLine;
        m_stderrLine.clear();
    }
    m_stderrLine.append(rest);
    // A line longer than the limit cannot be shown whole anyway.
    if (m_stderrLine.size() > kStderrLimit) {
        m_stderrTail += m_stderrLine;
        m_stderrLine.clear();
    }
    if (m_stderrTail.size() > 2 * kStderrLimit)
        m_stderrTail.erase(0, m_stderrTail.size() - kStderrLimit);
}

bool BridgeProcess::waitForExit(double seconds)
{
    const auto deadline = Clock::now()
                          + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    for (;;) {
        siginfo_t info{};
        if (::waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0)
            return true;
        if (Clock::now() >= deadline)
            return false;
        // Drain its pipes meanwhile, so that it never blocks on a full one.
        if (m_stderr >= 0 || m_stdout >= 0) {
            pollfd fds[2] = {{m_stdout, POLLIN, 0}, {m_stderr, POLLIN, 0}};
            ::poll(fds, 2, 10);
            if (m_stderr >= 0 && fds[1].revents)
                readStderr();
            if (m_stdout >= 0 && fds[0].revents && ::read(m_stdout, m_readBuffer.data(), m_readBuffer.size()) == 0) {
                ::close(m_stdout);
                m_stdout = -1;
            }
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
}

std::string BridgeProcess::killGroup()
{
    if (m_pid <= 0)
        return "not running";
    if (!waitForExit(0)) {
        ::kill(-m_pid, SIGTERM);
        if (!waitForExit(kTermGraceSeconds))
            ::kill(-m_pid, SIGKILL);
    }
    return reap();
}

std::string BridgeProcess::reap()
{
    // The leader is a zombie (or SIGKILLed) and keeps the group id reserved,
    // so this reaches only its own leftovers (workers, a shell's children).
    ::kill(-m_pid, SIGKILL);
    int status = 0;
    pid_t done;
    do
        done = ::waitpid(m_pid, &status, 0);
    while (done < 0 && errno == EINTR);
    m_pid = -1;
    if (m_stderr >= 0)
        readStderr();
    closeFds();
    return done < 0 ? "vanished" : describeStatus(status);
}

void BridgeProcess::closeFds()
{
    for (int *fd : {&m_stdin, &m_stdout, &m_stderr}) {
        if (*fd >= 0)
            ::close(*fd);
        *fd = -1;
    }
}

} // namespace fusebox::pt2
