#include "ChildProcess.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <chrono>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fusebox::pt2 {

namespace {

void closeAll(std::initializer_list<int *> fds)
{
    for (int *fd : fds) {
        if (*fd >= 0)
            ::close(*fd);
        *fd = -1;
    }
}

// Runs in the forked child: async-signal-safe calls only.
[[noreturn]] void execChild(char *const *argv, int in, int out, int err, int fail)
{
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    // Copies above 2 first, so that no dup2 below clobbers a pipe end that
    // happens to sit on 0, 1 or 2.
    in = ::fcntl(in, F_DUPFD_CLOEXEC, 3);
    out = ::fcntl(out, F_DUPFD_CLOEXEC, 3);
    err = ::fcntl(err, F_DUPFD_CLOEXEC, 3);
    fail = ::fcntl(fail, F_DUPFD_CLOEXEC, 3);
    if (in < 0 || out < 0 || err < 0 || fail < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0
        || ::dup2(fail, 3) < 0) {
        int e = errno;
        [[maybe_unused]] auto n = ::write(fail, &e, sizeof e);
        ::_exit(127);
    }
    ::fcntl(3, F_SETFD, FD_CLOEXEC);
    if (::close_range(4, ~0U, 0) != 0) {
        for (long fd = 4, max = ::sysconf(_SC_OPEN_MAX); fd < max && fd < 65536; ++fd)
            ::close(static_cast<int>(fd));
    }
    ::execvp(argv[0], argv);
    int e = errno;
    [[maybe_unused]] auto n = ::write(3, &e, sizeof e);
    ::_exit(127);
}

} // namespace

Expected<ChildProcess> spawnChild(const std::vector<std::string> &argv, const std::string &display)
{
    auto failure = [&](int e) { return Error{"cannot start `" + display + "`: " + std::strerror(e)}; };
    if (argv.empty())
        return failure(ENOENT);
    std::vector<char *> cargv;
    for (const auto &word : argv)
        cargv.push_back(const_cast<char *>(word.c_str()));
    cargv.push_back(nullptr);

    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, fail[2] = {-1, -1};
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0
        || ::pipe2(fail, O_CLOEXEC) != 0) {
        int e = errno;
        closeAll({&in[0], &in[1], &out[0], &out[1], &err[0], &err[1], &fail[0], &fail[1]});
        return failure(e);
    }
    const pid_t pid = ::fork();
    if (pid == 0)
        execChild(cargv.data(), in[0], out[1], err[1], fail[1]);
    const int forkErrno = errno;
    closeAll({&in[0], &out[1], &err[1], &fail[1]});
    if (pid < 0) {
        closeAll({&in[1], &out[0], &err[0], &fail[0]});
        return failure(forkErrno);
    }
    // Also here, so that a kill(-pid) right after this returns reaches it.
    ::setpgid(pid, pid);

    int childErrno = 0;
    ssize_t n;
    do
        n = ::read(fail[0], &childErrno, sizeof childErrno);
    while (n < 0 && errno == EINTR);
    closeAll({&fail[0]});
    if (n > 0) {
        int status;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        closeAll({&in[1], &out[0], &err[0]});
        return failure(childErrno);
    }
    for (int fd : {in[1], out[0], err[0]})
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return ChildProcess{pid, in[1], out[0], err[0]};
}

Expected<std::string> runToEnd(const std::vector<std::string> &argv, int timeoutMs)
{
    const std::string display = argv.empty() ? std::string() : argv.front();
    auto child = spawnChild(argv, display);
    if (!child)
        return child.error();
    ::close(child->stdinFd);
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    bool timedOut = false;
    pollfd fds[2] = {{child->stdoutFd, POLLIN, 0}, {child->stderrFd, POLLIN, 0}};
    int open = 2;
    while (open > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline
                                                                                - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        if (::poll(fds, 2, static_cast<int>(left.count())) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (pollfd &p : fds) {
            if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buffer[4096];
            const ssize_t n = ::read(p.fd, buffer, sizeof buffer);
            if (n > 0) {
                if (p.fd == child->stdoutFd)
                    out.append(buffer, static_cast<size_t>(n));
            } else if (n == 0 || errno != EAGAIN) {
                p.fd = -1;
                --open;
            }
        }
    }
    if (timedOut)
        ::kill(-child->pid, SIGKILL);
    ::close(child->stdoutFd);
    ::close(child->stderrFd);
    int status = 0;
    while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut)
        return Error{"`" + display + "` did not finish within " + std::to_string(timeoutMs / 1000) + " s"};
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return Error{"`" + display + "` failed"};
    return out;
}

} // namespace fusebox::pt2
