// Runs the real fusebox-pass binary the way a user would.
#include "Fixtures.h"
#include "RunPass.h"

#include <catch.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>

using fusebox::testing::runPass;
using fusebox::testing::runPassForJson;
using fusebox::testing::RunResult;

namespace {

size_t lineCount(const std::string &text)
{
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

} // namespace

TEST_CASE("fusebox-pass inspect prints libtorch's counts for resnet18", "[torch][cli]")
{
    std::ifstream expectedFile(fixture("resnet18.expected.json"));
    REQUIRE(expectedFile);
    nlohmann::json expected = nlohmann::json::parse(expectedFile);

    RunResult r = runPassForJson("inspect --json " + fixture("resnet18.pt"));
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    nlohmann::json j = nlohmann::json::parse(r.standardOutput);
    // expected.json holds libtorch's own view of the frozen, inlined graph with
    // the folding rule applied (tests/fixtures/make_fixtures.py); ops exclude
    // the input, constant and output nodes.
    const nlohmann::json &ir = expected.at("ir");
    nlohmann::json expectedOps = ir.at("histogram");
    for (const char *kind : {"input", "constant", "output"})
        expectedOps.erase(kind);
    CHECK(j.at("nodes") == ir.at("node_count"));
    CHECK(j.at("op_histogram") == expectedOps);
    CHECK(j.at("op_histogram").at("aten::_convolution") == 20);
    CHECK(j.at("outputs").at(0).at("shape") == "[1, 1000]");
    CHECK(j.at("inputs").at(0).at("shape") == "[1, 3, 224, 224]");

    RunResult text = runPass("inspect " + fixture("resnet18.pt"));
    REQUIRE(text.exitCode == 0);
    CHECK(text.output.find("nodes: " + std::to_string(ir.at("node_count").get<int>())) != std::string::npos);
    CHECK(text.output.find("f32[1, 1000]") != std::string::npos);
    CHECK(text.output.find("20  aten::_convolution") != std::string::npos);
}

TEST_CASE("fusebox-pass fails with one line naming the file", "[torch][cli]")
{
    for (const std::string name : {"garbage.pt", "pickle.pt", "missing.pt"}) {
        RunResult r = runPass("inspect " + fixture(name));
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(lineCount(r.output) == 1);
        CHECK(r.output.rfind("fusebox-pass inspect: " + fixture(name) + ": ", 0) == 0);
    }
    RunResult pickle = runPass("inspect " + fixture("pickle.pt"));
    CHECK(pickle.output.find("torch.save") != std::string::npos);
}

TEST_CASE("fusebox-pass usage errors and help", "[torch][cli]")
{
    RunResult top = runPass("--help");
    CHECK(top.exitCode == 0);
    CHECK(top.output.find("inspect") != std::string::npos);
    CHECK(top.output.find("convert") != std::string::npos);

    RunResult help = runPass("inspect --help");
    CHECK(help.exitCode == 0);
    CHECK(help.output.find("Usage: fusebox-pass inspect MODEL") != std::string::npos);

    CHECK(runPass("frobnicate").exitCode == 2);
    CHECK(runPass("inspect").exitCode == 2);
    CHECK(runPass("inspect a.pt --bogus").exitCode == 2);
    RunResult badShape = runPass("inspect " + fixture("resnet18.pt") + " --input-shape 1,x");
    CHECK(badShape.exitCode == 1);
    CHECK(badShape.output.find("--input-shape '1,x'") != std::string::npos);
    CHECK(runPass("convert " + fixture("resnet18.pt")).exitCode == 2); // -o missing

    // Several inputs in one --input-shape, separated by ';', as the app takes
    // them (issue 14): the same as the option repeated.
    RunResult oneOption = runPass("inspect " + fixture("recsys_demo.pt") + " --input-shape '4,128;4,8,16;4,6'");
    RunResult repeated = runPass("inspect " + fixture("recsys_demo.pt")
                                 + " --input-shape 4,128 --input-shape 4,8,16 --input-shape 4,6");
    CHECK(oneOption.exitCode == 0);
    CHECK(oneOption.output == repeated.output);
    CHECK(oneOption.output.find("f32[4, 8, 16]") != std::string::npos);
    RunResult badSecond = runPass("inspect " + fixture("recsys_demo.pt") + " --input-shape '4,128;4,x'");
    CHECK(badSecond.exitCode == 1);
    CHECK(badSecond.output.find("'4,x' is not a comma-separated list of sizes") != std::string::npos);
}

TEST_CASE("fusebox-pass convert writes graph JSON that inspect reads back", "[torch][cli]")
{
    const std::string out = std::string(FUSEBOX_BINARY_DIR) + "/cli_resnet18.json";
    std::remove(out.c_str());
    RunResult r = runPass("convert " + fixture("resnet18.pt") + " -o " + out);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find("wrote " + out) != std::string::npos);

    RunResult fromJson = runPassForJson("inspect --json " + out);
    RunResult fromPt = runPassForJson("inspect --json " + fixture("resnet18.pt"));
    REQUIRE(fromJson.exitCode == 0);
    nlohmann::json a = nlohmann::json::parse(fromJson.standardOutput), b = nlohmann::json::parse(fromPt.standardOutput);
    CHECK(a.at("op_histogram") == b.at("op_histogram"));
    CHECK(a.at("nodes") == b.at("nodes"));
    CHECK(a.at("outputs") == b.at("outputs"));
}

namespace {

std::string demoModel()
{
    return std::string(FUSEBOX_SOURCE_DIR) + "/resources/demo/recsys_demo.pt";
}
std::string outPath(const std::string &name)
{
    return std::string(FUSEBOX_BINARY_DIR) + "/" + name;
}

nlohmann::json readJson(const std::string &path)
{
    std::ifstream in(path);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

} // namespace

TEST_CASE("fusebox-pass run rewrites the demo model, verifies it and exports a loadable .pt", "[torch][cli]")
{
    const std::string out = outPath("cli_demo_rewritten.pt"), report = outPath("cli_demo_report.json");
    RunResult r = runPass("run " + demoModel() + " -o " + out + " --verify --report " + report);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    nlohmann::json j = readJson(report);
    CHECK(j.at("converged") == true);
    CHECK(j.at("verification").at("passed") == true);
    CHECK(j.at("nodes_after").get<int>() < j.at("nodes_before").get<int>());
    // Both families fire on the demo model.
    for (const char *rule :
         {"normalization_pass", "merge_getitem_cat_pass", "batch_linear", "batch_layernorm", "batch_relu"})
        CHECK(j.at("counters").at(rule).at("applied").get<int>() >= 1);

    // The exported model re-imports with the batched ops, and list indexing
    // comes back as getitem nodes.
    RunResult back = runPassForJson("inspect --json " + out);
    REQUIRE(back.exitCode == 0);
    const nlohmann::json histogram = nlohmann::json::parse(back.standardOutput).at("op_histogram");
    CHECK(histogram.contains("aten::baddbmm"));
    CHECK(histogram.contains("getitem"));
    CHECK_FALSE(histogram.contains("aten::__getitem__"));
}

TEST_CASE("fusebox-pass run on real models: whatever fires verifies", "[torch][cli]")
{
    for (const std::string model : {"resnet18", "mobilenet_v3_small"}) {
        const std::string report = outPath("cli_" + model + "_report.json");
        RunResult r = runPass("run " + fixture(model + ".pt") + " -o " + outPath("cli_" + model + ".json")
                              + " --verify --report " + report);
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
        nlohmann::json j = readJson(report);
        CHECK(j.at("converged") == true);
        CHECK(j.at("verification").at("passed") == true);
        CHECK(j.at("undone").empty());
    }
}

TEST_CASE("fusebox-pass run honours the config and its rejected matches", "[torch][cli]")
{
    // Find the batch_linear matches and reject the first by its signature.
    RunResult m = runPassForJson("matches --json --pattern batch_linear " + demoModel());
    INFO(m.output);
    REQUIRE(m.exitCode == 0);
    nlohmann::json matches = nlohmann::json::parse(m.standardOutput);
    REQUIRE(matches.size() == 2);
    const std::string config = outPath("cli_passes.json");
    {
        nlohmann::json c;
        c["pre_grad_fusion_options"]["batch_linear"] = nlohmann::json::object();
        c["rejected"] = nlohmann::json::array({{{"pattern", "batch_linear"},
                                                {"signature", matches[0].at("signature")},
                                                {"anchor", matches[0].at("anchor")}}});
        std::ofstream(config) << c.dump(2);
    }
    const std::string report = outPath("cli_config_report.json");
    RunResult r = runPass("run " + demoModel() + " --config " + config + " -o " + outPath("cli_config.json")
                          + " --report " + report);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    nlohmann::json j = readJson(report);
    CHECK(j.at("counters").size() == 1);
    CHECK(j.at("counters").at("batch_linear").at("applied") == 1);
    CHECK(j.at("counters").at("batch_linear").at("rejected") == 1);

    {
        std::ofstream(config) << R"({"pre_grad_fusion_options": {"batch_lienar": {}}})";
    }
    // Inductor 2.6 raises KeyError for a pre-grad name it has no pass for ...
    RunResult typo = runPass("run " + demoModel() + " --config " + config + " --inductor-version 2.6 -o "
                             + outPath("x.json"));
    CHECK(typo.exitCode == 1);
    CHECK(typo.output.find("unknown rule (did you mean 'batch_linear'?)") != std::string::npos);
    CHECK(typo.output.find("note: answers follow Inductor 2.6 (--inductor-version 2.6)") != std::string::npos);
    // ... and 2.14 skips it: so does Fusebox, and says so.
    RunResult skipped = runPass("run " + demoModel() + " --config " + config + " --inductor-version 2.14 -o "
                                + outPath("x.json"));
    INFO(skipped.output);
    CHECK(skipped.exitCode == 0);
    CHECK(skipped.output.find("batch_lienar: not a pass of Inductor 2.14 (did you mean 'batch_linear'?); skipped, as "
                              "Inductor 2.14 skips a pre-grad pass it does not know")
          != std::string::npos);
    RunResult old = runPass("run " + demoModel() + " --config " + config + " --inductor-version 2.3 -o "
                            + outPath("x.json"));
    CHECK(old.exitCode == 1);
    CHECK(old.output.find("torch 2.3 is older than 2.4") != std::string::npos);
}

TEST_CASE("fusebox-pass run flags answers that depend on an unknown shape, and --strict fails on them", "[torch][cli]")
{
    // Two linears whose inputs record no shape and have none to infer from:
    // batch_linear cannot key them, so whether Inductor would fuse them is open.
    const std::string model = outPath("cli_unknown_shapes.py");
    std::ofstream(model) << R"(class GraphModule(torch.nn.Module):
    def forward(self, x, y, w0: "f32[6, 8]", w1: "f32[6, 8]"):
        linear = torch._C._nn.linear(x, w0)
        linear_1 = torch._C._nn.linear(y, w1)
        return (linear, linear_1)
)";
    const std::string config = outPath("cli_unknown_shapes.json");
    std::ofstream(config) << R"({"pre_grad_fusion_options": {"batch_linear": {"min_fuse_set_size": 2}}})";
    const std::string report = outPath("cli_unknown_shapes_report.json");
    const std::string common = "run " + model + " --config " + config + " --shapes fusebox --inductor-version 2.14 -o "
                               + outPath("cli_unknown_shapes_out.py");
    RunResult r = runPass(common + " --report " + report);
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(r.output.find("warning: 2 attempts could not be decided because a value's shape is unknown (first: "
                        "batch_linear at %linear")
          != std::string::npos);
    nlohmann::json j = readJson(report);
    REQUIRE(j.at("undecided").size() == 2);
    CHECK(j.at("undecided")[0].at("pattern") == "batch_linear");
    CHECK(j.at("rewrites").empty());
    RunResult strict = runPass(common + " --strict");
    INFO(strict.output);
    CHECK(strict.exitCode == 1);
    CHECK(strict.output.find("error: 2 attempts could not be decided") != std::string::npos);
}

TEST_CASE("fusebox-pass run --report report.md writes the review report's Markdown", "[torch][cli]")
{
    // The same report model, and so the same table and sections, as the
    // IDE's Export Review Report (patterns/RewriteReport.h).
    const std::string report = outPath("cli_demo_report.md");
    RunResult r = runPass("run " + demoModel() + " -o " + outPath("cli_demo_md.json") + " --verify --report " + report);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    std::ifstream in(report);
    const std::string md((std::istreambuf_iterator<char>(in)), {});
    CHECK(md.rfind("# Rewrites of " + demoModel() + "\n", 0) == 0);
    CHECK(md.find("| pattern | matched | applied | rejected | failed verification |") != std::string::npos);
    CHECK(md.find("| batch_linear | ") != std::string::npos);
    CHECK(md.find("## Applied (") != std::string::npos);
    CHECK(md.find("## Failed verification (0)") != std::string::npos);
    CHECK(md.find("verification (") != std::string::npos); // the final check's line
}

TEST_CASE("fusebox-pass explain prints a node's trace and the near-miss summary", "[torch][cli]")
{
    // Inductor's answer by default: the graph as merge_getitem_cat_pass meets
    // it, after batch_layernorm fused the layer norms the cat read.
    RunResult trace = runPass("explain " + demoModel() + " --pattern merge_getitem_cat_pass --node cat");
    INFO(trace.output);
    REQUIRE(trace.exitCode == 0);
    CHECK(trace.output.find("merge_getitem_cat_pass at %cat (Inductor 2.") != std::string::npos);
    // The source line is the followed version's (2.6.0: 1473; 2.14.1: 1523).
    const bool v26 = trace.output.find("(Inductor 2.6)") != std::string::npos;
    CHECK(trace.output.find(std::string("        in split_cat.py:") + (v26 ? "1473" : "1523") + " merge_getitem_cat\n")
          != std::string::npos);
    CHECK(runPass("explain " + demoModel() + " --pattern merge_getitem_cat_pass --node cat --inductor-version 2.6")
              .output.find("        in split_cat.py:1473 merge_getitem_cat\n")
          != std::string::npos);
    CHECK(
        trace.output.find("FAIL  the getitems read a split  — the getitems read %unbind_3 (aten::unbind), not a split "
                          "(%unbind_3: made by batch_layernorm#1)")
        != std::string::npos);
    // Fusebox's greedy search answers on the graph as it is.
    RunResult greedy = runPass("explain " + demoModel()
                               + " --pattern merge_getitem_cat_pass --node cat --schedule greedy");
    INFO(greedy.output);
    CHECK(greedy.output.find("merge_getitem_cat_pass at %cat (Fusebox's greedy search):") != std::string::npos);
    CHECK(greedy.output.find(
              "FAIL  every cat input is a getitem  — cat input %layer_norm (aten::layer_norm) is not a getitem")
          != std::string::npos);
    CHECK(runPass("explain " + demoModel() + " --pattern batch_tanh --schedule fastest").exitCode == 2);

    RunResult summary = runPass("explain " + demoModel() + " --pattern batch_tanh");
    INFO(summary.output);
    REQUIRE(summary.exitCode == 0);
    CHECK(summary.output.find("batch_tanh in Inductor 2.") != std::string::npos);
    CHECK(summary.output.find("'s schedule: attempted at 4 nodes, fires at 0") != std::string::npos);
    CHECK(summary.output.find("%tanh: candidate group of 4 < min_fuse_set_size 5") != std::string::npos);

    RunResult unavailable = runPass("explain " + demoModel() + " --pattern group_linear");
    CHECK(unavailable.output.find("fbgemm") != std::string::npos);

    CHECK(runPass("explain " + demoModel() + " --pattern nope").exitCode == 2);
    RunResult noNode = runPass("explain " + demoModel() + " --pattern batch_tanh --node nothere");
    CHECK(noNode.exitCode == 1);
    CHECK(noNode.output.find("no node named 'nothere'") != std::string::npos);
}
