// Verification of graphs libtorch 1.13 cannot run, through the bridge.
#include "Pt2TestSupport.h"

using namespace fusebox;
using namespace fusebox::testing;

TEST_CASE("run --verify on an AOT graph with an op libtorch 1.13 lacks verifies through PyTorch 2", "[pt2][verify]")
{
    const Capture &c = captured("tests/pt2/models/attention.py");
    const std::string graph = c.file("aot_forward.py");
    REQUIRE(readFile(graph).find("_scaled_dot_product_flash_attention_for_cpu") != std::string::npos);
    const std::string report = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/attention-report.json";
    RunResult r = runPass("run " + graph + " --verify -o " + std::string(FUSEBOX_BINARY_DIR)
                          + "/pt2-fixtures/attention-out.py --report " + report);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    auto j = nlohmann::json::parse(readFile(report));
    CHECK(j["rewrites"].size() >= 1);
    CHECK(j["verification"]["passed"] == true);
    CHECK(j["verification"]["engine"].get<std::string>().find("through the bridge") != std::string::npos);
    CHECK(r.output.find("verification (PyTorch 2.") != std::string::npos);
}

TEST_CASE("the bridge's verifier catches an unsafe rewrite and it is undone", "[pt2][verify]")
{
    const Capture &c = captured("tests/pt2/models/attention.py");
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures";
    std::ofstream(dir + "/unsafe.patterns") << "pattern unsafe_relu_to_neg {\n    benefit = 1\n"
                                               "    match {\n        r = aten::relu(x)\n    }\n"
                                               "    replace {\n        r = aten::neg(x)\n    }\n}\n";
    std::ofstream(dir + "/no-builtins.json") << "{}\n";
    RunResult r = runPass("run " + c.file("aot_forward.py") + " --patterns " + dir + "/unsafe.patterns --config " + dir
                          + "/no-builtins.json --verify -o " + dir + "/unsafe-out.py --report " + dir
                          + "/unsafe-report.json");
    INFO(r.output);
    auto j = nlohmann::json::parse(readFile(dir + "/unsafe-report.json"));
    // Eight relus in the model (tests/pt2/models/attention.py): each rewrite is undone.
    CHECK(j["undone"].size() == 8);
    CHECK(j["undone"][0]["reason"].get<std::string>().find("max |diff|") != std::string::npos);
    CHECK(j["verification"]["passed"] == true);
    CHECK(r.exitCode == 0);
}

TEST_CASE("run --measure times a graph libtorch 1.13 cannot run in PyTorch 2, before and after",
          "[pt2][verify][latency]")
{
    const Capture &c = captured("tests/pt2/models/attention.py");
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures";
    RunResult r = runPass("run " + c.file("aot_forward.py") + " --measure --measure-runs 7 --measure-warmup 1 -o " + dir
                          + "/attention-measured.py --report " + dir + "/attention-latency.json");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    auto j = nlohmann::json::parse(readFile(dir + "/attention-latency.json"));
    const auto &latency = j["latency"];
    CHECK(latency["engine"].get<std::string>().find("through the bridge") != std::string::npos);
    CHECK(latency["warmup"] == 1);
    for (const char *side : {"before", "after"}) {
        const auto &s = latency[side];
        CHECK(s["runs"] == 7);
        CHECK(s["samples_ms"].size() == 7);
        CHECK(s["min_ms"].get<double>() > 0);
        CHECK(s["min_ms"].get<double>() <= s["median_ms"].get<double>());
        CHECK(s["median_ms"].get<double>() <= s["max_ms"].get<double>());
    }
    CHECK(latency["speedup"].get<double>()
          == Approx(latency["before"]["median_ms"].get<double>() / latency["after"]["median_ms"].get<double>()));
    // The printed lines say what the report says.
    CHECK(r.output.find("latency: before ") != std::string::npos);
    CHECK(r.output.find("(median of 7, PyTorch 2.") != std::string::npos);
    CHECK(r.output.find("  before median ") != std::string::npos);
}
