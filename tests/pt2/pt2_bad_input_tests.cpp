// The bridge's answers to bad input: one line, nothing half-written, and the
// next request works.
#include "Pt2TestSupport.h"

#include <filesystem>

#include <sys/stat.h>

using namespace fusebox;
using namespace fusebox::testing;

namespace {

std::string writeScript(const std::string &name, const std::string &text)
{
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/bad-scripts";
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
}

bool oneLine(const std::string &message)
{
    return !message.empty() && message.find('\n') == std::string::npos;
}

} // namespace

TEST_CASE("a script that raises: its file:line, one line, nothing written", "[pt2][bad-input]")
{
    const std::string script
        = writeScript("raises.py",
                      "import torch\n\n\ndef broken():\n    raise ValueError('no weights here')\n\n\nbroken()\n");
    const std::string out = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/bad-out-raises";
    std::filesystem::remove_all(out);
    auto r = pt2Bridge().capture(script, out);
    REQUIRE(!r);
    INFO(r.error().message);
    CHECK(oneLine(r.error().message));
    CHECK(r.error().message.find(script + ":5") != std::string::npos);
    CHECK(r.error().message.find("ValueError: no weights here") != std::string::npos);
    CHECK(std::filesystem::is_empty(out));
    // The bridge still serves.
    CHECK(pt2Bridge().check().hasValue());
}

TEST_CASE("a script that defines no model", "[pt2][bad-input]")
{
    const std::string script = writeScript("empty.py", "x = 1\n");
    auto r = pt2Bridge().capture(script, std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/bad-out-empty");
    REQUIRE(!r);
    CHECK(oneLine(r.error().message));
    CHECK(r.error().message.find("defines neither `model` and `example_inputs` nor get_model_and_inputs()")
          != std::string::npos);
}

TEST_CASE("a script that loops forever is killed after the timeout", "[pt2][bad-input]")
{
    const std::string script = writeScript("loops.py", "while True:\n    pass\n");
    RunResult r = runPass("capture " + script + " -o " + std::string(FUSEBOX_BINARY_DIR)
                          + "/pt2-fixtures/bad-out-loop --timeout 8 --quiet");
    INFO(r.output);
    CHECK(r.exitCode == 1);
    CHECK(r.output.find("capture timed out after 8 s") != std::string::npos);
}

TEST_CASE("a syntax error names the script's line", "[pt2][bad-input]")
{
    const std::string script = writeScript("syntax.py", "import torch\nmodel = (\n");
    auto r = pt2Bridge().capture(script, std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/bad-out-syntax");
    REQUIRE(!r);
    INFO(r.error().message);
    CHECK(oneLine(r.error().message));
    CHECK(r.error().message.find("SyntaxError") != std::string::npos);
    CHECK(r.error().message.find(script) != std::string::npos);
}

TEST_CASE("an unwritable output folder is refused before anything runs", "[pt2][bad-input]")
{
    const std::string out = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/not-a-folder";
    std::ofstream(out) << "a file";
    RunResult r = runPass("capture " + sourcePath("tests/pt2/models/recsys_gated.py") + " -o " + out + "/sub --quiet");
    INFO(r.output);
    CHECK(r.exitCode == 1);
    CHECK(r.output.find("cannot create the output folder") != std::string::npos);
}

TEST_CASE("a Python without torch, and one with torch older than 2.4", "[pt2][bad-input]")
{
    // Debian 12's own python3 has torch 1.13; `python3 -S` hides site-packages, so no torch.
    RunResult old = runPass("pt2 --check --python /usr/bin/python3");
    INFO(old.output);
    CHECK(old.exitCode == 1);
    CHECK(old.output.find("has torch 1.13") != std::string::npos);
    CHECK(old.output.find("needs torch >= 2.4") != std::string::npos);

    RunResult none = runPass("pt2 --check --python '/usr/bin/python3 -S'");
    INFO(none.output);
    CHECK(none.exitCode == 1);
    CHECK(none.output.find("has no torch") != std::string::npos);

    RunResult missing = runPass("pt2 --check --python /nonexistent/python3");
    INFO(missing.output);
    CHECK(missing.exitCode == 1);
    CHECK(missing.output.find("cannot start") != std::string::npos);
}

TEST_CASE("pt2 --check reports the reference PyTorch", "[pt2][cli]")
{
    RunResult r = runPassForJson("pt2 --check --schemas --json");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    auto j = nlohmann::json::parse(r.standardOutput);
    CHECK(j["torch"].get<std::string>().rfind("2.", 0) == 0);
    CHECK(j["schemas"].get<int>() > 3000);
    for (const char *capability : {"capture", "inductor", "verify", "schemas", "apply_patterns"})
        CHECK(std::find(j["capabilities"].begin(), j["capabilities"].end(), capability) != j["capabilities"].end());
}
