#include "core/pt2/Bootstrap.h"
#include "core/pt2/BridgeProcess.h"
#include "core/pt2/BridgeSources.h"
#include "core/pt2/PythonCommand.h"

#include <catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

using namespace fusebox;
using namespace fusebox::pt2;

namespace {

// A stand-in for python/fusebox_bridge/server.py that needs no torch.
const char *kFakeServer = R"PY(import json, os, sys, time, traceback

def handle(op, args, send_progress):
    if op == "echo":
        return args
    if op == "progress":
        send_progress("first half", 0.5)
        send_progress("no fraction", None)
        return {"done": True}
    if op == "fail":
        raise ValueError("bad value " + str(args))
    if op == "hang":
        time.sleep(1000)
    if op == "exit":
        sys.stderr.write("boom\n")
        sys.stderr.flush()
        os._exit(3)
    if op == "print":
        print("noise")
        sys.stdout.flush()
        return {"printed": True}
    if op == "big":
        return {"text": "x" * (20 * 1024 * 1024)}
    if op == "garbage":
        proto.write("this is not json\n")
        proto.flush()
        time.sleep(1000)
    raise KeyError(op)

def main(header):
    global proto
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stderr.write("[1700000000.1] [host:1] UCX  ERROR failed to get boot id\n")
    sys.stderr.write("Error in cpuinfo: failed to parse the list of possible processors\n")
    sys.stderr.write("fake server up, root " + header["root"] + "\n")
    sys.stderr.flush()

    def send(message):
        proto.write(json.dumps(message) + "\n")
        proto.flush()

    for line in sys.stdin:
        request = json.loads(line)
        rid = request["id"]
        def progress(text, fraction):
            message = {"id": rid, "progress": text}
            if fraction is not None:
                message["fraction"] = fraction
            send(message)
        try:
            send({"id": rid, "result": handle(request["op"], request.get("args"), progress)})
        except Exception as error:
            frame = traceback.extract_tb(error.__traceback__)[-1]
            send({"id": rid, "error": type(error).__name__ + ": " + str(error),
                  "where": frame.filename + ":" + str(frame.lineno)})
)PY";

class FakeBridge {
public:
    FakeBridge()
    {
        m_dir = std::filesystem::temp_directory_path() / ("fusebox-pt2-tests-" + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir / "fusebox_bridge");
        std::ofstream(m_dir / "fusebox_bridge" / "__init__.py") << "";
        std::ofstream(m_dir / "fusebox_bridge" / "server.py") << kFakeServer;
        std::ofstream(m_dir / "fusebox_bridge" / "notes.txt") << "not python";
    }
    ~FakeBridge()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }
    std::string dir() const { return m_dir.string(); }

private:
    std::filesystem::path m_dir;
};

PythonCommand hostPython()
{
    return PythonCommand{{"/usr/bin/python3"}, "test"};
}

std::unique_ptr<BridgeProcess> startFake(const FakeBridge &bridge)
{
    auto process = BridgeProcess::start(hostPython(), bridge.dir());
    if (!process)
        FAIL(process.error().message);
    return std::move(process).value();
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// True when `pid` is neither running nor a zombie of ours.
bool reaped(pid_t pid)
{
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD;
}

} // namespace

TEST_CASE("splitCommand splits on whitespace and honours quotes", "[pt2]")
{
    using V = std::vector<std::string>;
    CHECK(splitCommand("  chroot /root/.cache/fusebox/pt2-root   python3 ")
          == V{"chroot", "/root/.cache/fusebox/pt2-root", "python3"});
    CHECK(splitCommand("'/opt/my env/bin/python' -X dev") == V{"/opt/my env/bin/python", "-X", "dev"});
    CHECK(splitCommand(R"("a \"b\" c"d 'e"f')") == V{R"(a "b" cd)", R"(e"f)"});
    CHECK(splitCommand("x '' y") == V{"x", "", "y"});
    CHECK(splitCommand(" \t ").empty());
    CHECK(PythonCommand{{"chroot", "/r", "python3"}, ""}.text() == "chroot /r python3");
}

TEST_CASE("findPythonCommand: --python, then FUSEBOX_PYTHON, then the setup-pt2.sh roots, testing first", "[pt2]")
{
    const char *oldPython = std::getenv("FUSEBOX_PYTHON");
    const char *oldCache = std::getenv("XDG_CACHE_HOME");
    const char *oldTesting = std::getenv("FUSEBOX_PT2_TESTING_ROOT");
    const char *oldRoot = std::getenv("FUSEBOX_PT2_ROOT");
    const std::string savedTesting = oldTesting ? oldTesting : "", savedRoot = oldRoot ? oldRoot : "";
    ::unsetenv("FUSEBOX_PT2_TESTING_ROOT");
    ::unsetenv("FUSEBOX_PT2_ROOT");
    const std::string savedPython = oldPython ? oldPython : "", savedCache = oldCache ? oldCache : "";
    const auto cache = std::filesystem::temp_directory_path() / ("fusebox-pt2-cache-" + std::to_string(::getpid()));
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    ::unsetenv("FUSEBOX_PYTHON");
    CHECK(defaultPt2Root() == cache.string() + "/fusebox/pt2-root");

    CHECK_FALSE(findPythonCommand().has_value());
    CHECK(noPythonMessage().find("scripts/setup-pt2.sh") != std::string::npos);

    std::filesystem::create_directories(cache / "fusebox/pt2-root/usr/bin");
    std::ofstream(cache / "fusebox/pt2-root/usr/bin/python3") << "";
    auto rooted = findPythonCommand();
    REQUIRE(rooted.has_value());
    CHECK(rooted->argv == std::vector<std::string>{"chroot", defaultPt2Root(), "python3"});
    CHECK(rooted->origin == "scripts/setup-pt2.sh Debian 13 root (" + defaultPt2Root() + ")");

    // The Debian testing root, when there, comes first: the newest torch is the default reference.
    CHECK(testingPt2Root() == cache.string() + "/fusebox/pt2-root-testing");
    std::filesystem::create_directories(cache / "fusebox/pt2-root-testing/usr/bin");
    std::ofstream(cache / "fusebox/pt2-root-testing/usr/bin/python3") << "";
    auto testing = findPythonCommand();
    REQUIRE(testing.has_value());
    CHECK(testing->argv == std::vector<std::string>{"chroot", testingPt2Root(), "python3"});
    CHECK(testing->origin == "scripts/setup-pt2.sh Debian testing root (" + testingPt2Root() + ")");

    ::setenv("FUSEBOX_PYTHON", "/venv/bin/python -X dev", 1);
    auto fromEnv = findPythonCommand();
    REQUIRE(fromEnv.has_value());
    CHECK(fromEnv->argv == std::vector<std::string>{"/venv/bin/python", "-X", "dev"});
    CHECK(fromEnv->origin == "FUSEBOX_PYTHON");

    auto explicitOne = findPythonCommand("'/my python'");
    REQUIRE(explicitOne.has_value());
    CHECK(explicitOne->argv == std::vector<std::string>{"/my python"});
    CHECK(explicitOne->origin == "--python");
    CHECK(findPythonCommand("   ")->origin == "FUSEBOX_PYTHON");

    std::filesystem::remove_all(cache);
    oldPython ? ::setenv("FUSEBOX_PYTHON", savedPython.c_str(), 1) : ::unsetenv("FUSEBOX_PYTHON");
    oldCache ? ::setenv("XDG_CACHE_HOME", savedCache.c_str(), 1) : ::unsetenv("XDG_CACHE_HOME");
    oldTesting ? ::setenv("FUSEBOX_PT2_TESTING_ROOT", savedTesting.c_str(), 1) : ::unsetenv("FUSEBOX_PT2_TESTING_ROOT");
    oldRoot ? ::setenv("FUSEBOX_PT2_ROOT", savedRoot.c_str(), 1) : ::unsetenv("FUSEBOX_PT2_ROOT");
}

TEST_CASE("bridge sources are the package's .py files keyed by relative path", "[pt2]")
{
    FakeBridge bridge;
    auto sources = readBridgeSources(bridge.dir());
    REQUIRE(sources.hasValue());
    CHECK(sources->size() == 2);
    CHECK(sources->contains("fusebox_bridge/__init__.py"));
    CHECK((*sources)["fusebox_bridge/server.py"].get<std::string>() == kFakeServer);
    auto missing = readBridgeSources("/nonexistent/python");
    REQUIRE_FALSE(missing.hasValue());
    CHECK(missing.error().message.find("/nonexistent/python/fusebox_bridge") == 0);
    CHECK(bootstrapSource().find("fusebox_bridge.server.main(header)") != std::string::npos);
}

TEST_CASE("the bridge answers requests, progress and errors", "[pt2]")
{
    FakeBridge bridge;
    auto process = startFake(bridge);

    auto echo = process->request("echo", {{"a", 1}, {"text", "h\xc3\xa9llo"}});
    REQUIRE(echo.hasValue());
    CHECK((*echo)["a"] == 1);
    CHECK((*echo)["text"] == "h\xc3\xa9llo");

    std::vector<std::pair<std::string, double>> seen;
    RequestControl control;
    control.progress = [&](const std::string &text, double fraction) { seen.emplace_back(text, fraction); };
    auto progressed = process->request("progress", nullptr, control);
    REQUIRE(progressed.hasValue());
    CHECK((*progressed)["done"] == true);
    CHECK(seen == std::vector<std::pair<std::string, double>>{{"first half", 0.5}, {"no fraction", -1}});

    auto failed = process->request("fail", 7);
    REQUIRE_FALSE(failed.hasValue());
    const std::string &message = failed.error().message;
    INFO(message);
    CHECK(message.rfind("python/fusebox_bridge/server.py:", 0) == 0);
    const size_t colon = message.find(':', std::string("python/fusebox_bridge/server.py:").size());
    REQUIRE(colon != std::string::npos);
    CHECK(std::stoi(message.substr(32, colon - 32)) > 0);
    CHECK(message.substr(colon) == ": ValueError: bad value 7");
    CHECK(process->alive());

    auto printed = process->request("print", nullptr);
    REQUIRE(printed.hasValue());
    CHECK((*printed)["printed"] == true);
    CHECK(process->stderrTail().find("noise\n") != std::string::npos);

    const std::string tail = process->stderrTail();
    CHECK(tail.find("fake server up, root python") != std::string::npos);
    CHECK(tail.find("failed to get boot id") == std::string::npos);
    CHECK(tail.find("Error in cpuinfo") == std::string::npos);
    CHECK(process->command().text() == "/usr/bin/python3");
}

TEST_CASE("the bridge carries tens of MB both ways", "[pt2]")
{
    FakeBridge bridge;
    auto process = startFake(bridge);
    auto big = process->request("big", nullptr);
    REQUIRE(big.hasValue());
    CHECK((*big)["text"].get<std::string>().size() == 20u * 1024 * 1024);

    std::string payload(20 * 1024 * 1024, 'y');
    payload[12345] = 'z';
    auto echoed = process->request("echo", {{"payload", payload}});
    REQUIRE(echoed.hasValue());
    CHECK((*echoed)["payload"].get<std::string>() == payload);
}

TEST_CASE("a request past its timeout kills the bridge", "[pt2]")
{
    FakeBridge bridge;
    auto process = startFake(bridge);
    const pid_t pid = process->pid();
    RequestControl control;
    control.timeoutSeconds = 0.5;
    const auto start = std::chrono::steady_clock::now();
    auto hung = process->request("hang", nullptr, control);
    CHECK(secondsSince(start) < 3);
    REQUIRE_FALSE(hung.hasValue());
    CHECK(hung.error().message == "PyTorch 2 bridge: hang timed out after 0.5 s");
    CHECK_FALSE(process->alive());
    CHECK(reaped(pid));
    auto after = process->request("echo", 1);
    REQUIRE_FALSE(after.hasValue());
    CHECK(after.error().message
          == "PyTorch 2 bridge: cannot run echo: python is no longer running (hang timed out after 0.5 s)");
}

TEST_CASE("cancel from another thread kills the bridge", "[pt2]")
{
    FakeBridge bridge;
    auto process = startFake(bridge);
    std::atomic<bool> cancel = false;
    RequestControl control;
    control.cancel = &cancel;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancel = true;
    });
    const auto start = std::chrono::steady_clock::now();
    auto hung = process->request("hang", nullptr, control);
    canceller.join();
    CHECK(secondsSince(start) < 3);
    REQUIRE_FALSE(hung.hasValue());
    CHECK(hung.error().message == "PyTorch 2 bridge: hang cancelled");
    CHECK_FALSE(process->alive());
}

TEST_CASE("an exiting bridge reports its status and last stderr line", "[pt2]")
{
    FakeBridge bridge;
    auto process = startFake(bridge);
    const pid_t pid = process->pid();
    auto exited = process->request("exit", nullptr);
    REQUIRE_FALSE(exited.hasValue());
    CHECK(exited.error().message == "PyTorch 2 bridge: python exited with status 3 during exit: boom");
    CHECK_FALSE(process->alive());
    CHECK(reaped(pid));
}

TEST_CASE("a line that is not JSON is a protocol error", "[pt2]")
{
    FakeBridge bridge;
    auto process = startFake(bridge);
    auto garbage = process->request("garbage", nullptr);
    REQUIRE_FALSE(garbage.hasValue());
    CHECK(garbage.error().message == "PyTorch 2 bridge: garbage: not a protocol line: this is not json");
    CHECK_FALSE(process->alive());
}

TEST_CASE("a missing command cannot start, a bad one exits", "[pt2]")
{
    FakeBridge bridge;
    auto missing = BridgeProcess::start(PythonCommand{{"/nonexistent/python3", "-X", "dev"}, "test"}, bridge.dir());
    REQUIRE_FALSE(missing.hasValue());
    CHECK(missing.error().message == "cannot start `/nonexistent/python3 -X dev`: No such file or directory");

    auto noSources = BridgeProcess::start(hostPython(), "/nonexistent/python");
    REQUIRE_FALSE(noSources.hasValue());

    auto wrong = BridgeProcess::start(PythonCommand{{"/bin/sh", "-c", "echo 'no torch here' >&2; exit 5"}, "test"},
                                      bridge.dir());
    REQUIRE(wrong.hasValue());
    auto checked = (*wrong)->request("check", nullptr);
    REQUIRE_FALSE(checked.hasValue());
    CHECK(checked.error().message == "PyTorch 2 bridge: python exited with status 5 during check: no torch here");
}

TEST_CASE("destroying an idle bridge ends and reaps it", "[pt2]")
{
    FakeBridge bridge;
    pid_t pid;
    {
        auto process = startFake(bridge);
        pid = process->pid();
        REQUIRE(process->request("echo", 1).hasValue());
    }
    CHECK(reaped(pid));
}
