// The TorchScript exporter: archives re-imported by Fusebox and loaded and
// run by Python's torch.jit.load (tests/fixtures/check_export.py).
#include "Fixtures.h"
#include "core/ir/GraphBuilder.h"
#include "RunPass.h"

#include <catch.hpp>

#include "ExecutorTestGraphs.h"

#include "core/torch/Executor.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/NumericVerifier.h"
#include "core/torch/TorchScriptExporter.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

using namespace fusebox;
namespace fs = std::filesystem;

namespace {

fs::path outDir()
{
    fs::path dir = fs::path(FUSEBOX_BINARY_DIR) / "export_tests";
    fs::create_directories(dir);
    return dir;
}

LoadedModel loadExported(const std::string &path)
{
    auto model = loadModel(path);
    if (!model)
        FAIL(model.error().message);
    return std::move(model).value();
}

std::vector<HostTensor> run(const Graph &g, const std::vector<HostTensor> &inputs)
{
    auto outputs = runGraph(g, inputs);
    if (!outputs)
        FAIL(outputs.error().message);
    return std::move(outputs).value();
}

std::string exportOrFail(const Graph &g, const std::string &name)
{
    const std::string path = (outDir() / name).string();
    Status status = exportTorchScript(g, path);
    if (!status)
        FAIL(status.error().message);
    REQUIRE(fs::exists(path));
    return path;
}

nlohmann::json writeTensors(const fs::path &dir, const std::string &prefix, const std::vector<HostTensor> &tensors)
{
    nlohmann::json specs = nlohmann::json::array();
    for (size_t i = 0; i < tensors.size(); ++i) {
        const std::string file = prefix + std::to_string(i) + ".bin";
        std::ofstream out(dir / file, std::ios::binary);
        out.write(reinterpret_cast<const char *>(tensors[i].data.data()),
                  static_cast<std::streamsize>(tensors[i].data.size()));
        std::vector<int64_t> shape;
        for (const Dim &d : *tensors[i].meta.shape)
            shape.push_back(std::get<int64_t>(d));
        specs.push_back({{"file", file}, {"shape", shape}, {"dtype", std::string(shortName(tensors[i].meta.dtype))}});
    }
    return specs;
}

/// A case directory for check_export.py: the inputs and the outputs expected.
std::string writeCase(const std::string &name, const std::string &exported, const std::string &original,
                      const std::vector<HostTensor> &inputs, const std::vector<HostTensor> &outputs)
{
    fs::path dir = outDir() / (name + ".case");
    fs::remove_all(dir);
    fs::create_directories(dir);
    nlohmann::json manifest = {{"exported", exported},
                               {"precision", 1e-4},
                               {"inputs", writeTensors(dir, "input", inputs)},
                               {"outputs", writeTensors(dir, "output", outputs)}};
    if (!original.empty())
        manifest["original"] = original;
    std::ofstream(dir / "manifest.json") << manifest.dump(1);
    return dir.string();
}

using PythonResult = testing::RunResult;

PythonResult checkInPython(const std::vector<std::string> &caseDirs)
{
    std::string command = "/usr/bin/python3 " + std::string(FUSEBOX_SOURCE_DIR) + "/tests/fixtures/check_export.py";
    for (const std::string &dir : caseDirs)
        command += " '" + dir + "'";
    return testing::runCommand(command);
}

/// Exports the fixture's graph, re-imports the archive, and compares both
/// graphs' outputs and libtorch's run of the original archive.
void checkRoundTrip(const std::string &model)
{
    INFO(model);
    LoadedModel original = loadExported(fixture(model + ".pt"));
    const std::string path = exportOrFail(original.graph, model + ".exported.pt");
    LoadedModel back = loadExported(path);
    CHECK(back.warnings.empty());
    CHECK(back.graph.metadata().at("source.input_shapes") == "fusebox/inputs.json");
    REQUIRE(back.graph.inputs().size() == original.graph.inputs().size());
    for (size_t i = 0; i < back.graph.inputs().size(); ++i) {
        const Node &in = *back.graph.node(back.graph.inputs()[i]);
        CHECK(in.name == original.graph.node(original.graph.inputs()[i])->name);
        CHECK(in.meta.toString() == original.graph.node(original.graph.inputs()[i])->meta.toString());
    }
    // Constants come back as constants named as before (buffers of the module).
    CHECK(back.graph.weights().byteSize() == original.graph.weights().byteSize());
    for (NodeId id : original.graph.nodeIds()) {
        const Node &n = *original.graph.node(id);
        if (n.kind() == NodeKind::Constant)
            CHECK(back.graph.findByName(n.name).isValid());
    }

    auto inputs = randomInputs(original.graph, 11);
    REQUIRE(inputs);
    std::vector<HostTensor> expected = run(original.graph, *inputs);
    VerificationResult r = compareOutputs(expected, run(back.graph, *inputs), {});
    INFO(r.message);
    CHECK(r.passed);
    CHECK(r.maxAbsDiff == 0);
    auto libtorch = runTorchScriptModule(path, *inputs);
    REQUIRE(libtorch);
    CHECK(compareOutputs(expected, *libtorch, {}).passed);
}

} // namespace

TEST_CASE("exported demo and resnet18 re-import with shapes, names and the same outputs", "[torch]")
{
    checkRoundTrip("recsys_demo");
    checkRoundTrip("resnet18");
}

TEST_CASE("exported archives load in Python and return what the original model returns", "[torch]")
{
    std::vector<std::string> cases;
    for (const std::string model : {"recsys_demo", "resnet18", "multi_output"}) {
        LoadedModel m = loadExported(fixture(model + ".pt"));
        const std::string path = exportOrFail(m.graph, model + ".python.pt");
        auto inputs = randomInputs(m.graph, 4);
        REQUIRE(inputs);
        cases.push_back(writeCase(model, path, fixture(model + ".pt"), *inputs, run(m.graph, *inputs)));
    }
    // A rewritten graph (batch_linear's ops, three outputs) and split/cat
    // rewrites (slice, movedim, select, a dtype cast), checked against the
    // graphs before the rewrite.
    for (const auto &[name, before, after] :
         {std::tuple{"linears", test::linearsGraph(false), test::linearsGraph(true)},
          std::tuple{"split_cat", test::splitCatGraph(false), test::splitCatGraph(true)}}) {
        const std::string path = exportOrFail(after, std::string(name) + ".python.pt");
        auto inputs = randomInputs(before, 4);
        REQUIRE(inputs);
        cases.push_back(writeCase(name, path, "", *inputs, run(before, *inputs)));
    }
    // A planted mismatch shows that the check can fail: the demo archive
    // against the outputs of another input set. One Python run for all cases
    // (starting Python with torch takes seconds).
    LoadedModel demo = loadExported(fixture("recsys_demo.pt"));
    auto inputs = randomInputs(demo.graph, 4);
    auto otherInputs = randomInputs(demo.graph, 5);
    REQUIRE(inputs);
    REQUIRE(otherInputs);
    cases.push_back(writeCase("planted_mismatch", (outDir() / "recsys_demo.python.pt").string(), "", *inputs,
                              run(demo.graph, *otherInputs)));

    PythonResult r = checkInPython(cases);
    INFO(r.output);
    CHECK(r.exitCode == 1);
    // Every failure line is the planted case's.
    std::istringstream lines(r.output);
    std::string line;
    int failures = 0;
    while (std::getline(lines, line)) {
        CHECK(line.rfind("planted_mismatch.case (", 0) == 0); // the five real cases passed
        failures += line.find("(exported): output 0: max |diff|") != std::string::npos;
    }
    CHECK(failures == 1);
}

TEST_CASE("fusebox-pass run writes a .pt stock PyTorch loads, for every example pattern file", "[torch][cli]")
{
    // Each example pattern file on the demo, through the CLI as a user runs
    // it, then torch.jit.load in Python against the original archive's own
    // outputs. linear_relu_fusion's replacement is fusebox::linear_relu,
    // which stock PyTorch does not have: by default the archive holds the
    // ATen ops it is defined by (issue 14: it used to fail to load).
    LoadedModel demo = loadExported(fixture("recsys_demo.pt"));
    auto inputs = randomInputs(demo.graph, 6);
    REQUIRE(inputs);
    const std::vector<HostTensor> expected = run(demo.graph, *inputs);
    std::vector<std::string> cases;
    bool decomposedSome = false;
    for (const auto &entry : fs::directory_iterator(fs::path(FUSEBOX_SOURCE_DIR) / "resources" / "patterns")) {
        if (entry.path().extension() != ".patterns")
            continue;
        const std::string name = entry.path().stem().string();
        INFO(name);
        const std::string out = (outDir() / (name + ".run.pt")).string();
        const testing::RunResult r = testing::runPass("run " + fixture("recsys_demo.pt") + " --patterns "
                                                      + entry.path().string() + " --schedule greedy -o " + out);
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
        if (name == "linear_relu_fusion") {
            // It fired, and its op went out decomposed.
            CHECK(r.output.find("note: wrote fusebox::linear_relu as the ATen ops") != std::string::npos);
            decomposedSome = true;
            LoadedModel back = loadExported(out);
            CHECK(back.graph.nodesWithOp("fusebox::linear_relu").empty());
        }
        cases.push_back(writeCase(name + ".run", out, fixture("recsys_demo.pt"), *inputs, expected));
    }
    CHECK(cases.size() == 3);
    CHECK(decomposedSome);
    PythonResult r = checkInPython(cases);
    INFO(r.output);
    CHECK(r.exitCode == 0);

    // --keep-fusebox-ops keeps them, and says that stock PyTorch cannot load it.
    const std::string kept = (outDir() / "linear_relu_fusion.kept.pt").string();
    const testing::RunResult keep = testing::runPass(
        "run " + fixture("recsys_demo.pt") + " --patterns " + FUSEBOX_SOURCE_DIR
        + "/resources/patterns/linear_relu_fusion.patterns --schedule greedy "
          "--keep-fusebox-ops -o "
        + kept);
    INFO(keep.output);
    CHECK(keep.exitCode == 0);
    CHECK(keep.output.find("warning: " + kept + " keeps fusebox::linear_relu") != std::string::npos);
    CHECK_FALSE(loadExported(kept).graph.nodesWithOp("fusebox::linear_relu").empty());
}

TEST_CASE("export errors are one line naming the file", "[torch]")
{
    const std::string cfPath = (outDir() / "control_flow.exported.pt").string();
    LoadedModel cf = loadExported(fixture("control_flow.pt"));
    Status opaque = exportTorchScript(cf.graph, cfPath);
    REQUIRE_FALSE(opaque);
    CHECK(opaque.error().message.rfind(cfPath + ": cannot export: %", 0) == 0);
    CHECK(opaque.error().message.find("(prim::If): control flow cannot be lowered") != std::string::npos);
    CHECK_FALSE(fs::exists(cfPath));

    const std::string nowhere = (outDir() / "no" / "such" / "dir" / "x.pt").string();
    Status unwritable = exportTorchScript(test::linearNoBiasGraph(false), nowhere);
    REQUIRE_FALSE(unwritable);
    INFO(unwritable.error().message);
    CHECK(unwritable.error().message.rfind(nowhere + ": cannot export: ", 0) == 0);
    CHECK(unwritable.error().message.find('\n') == std::string::npos);

    // Without static input shapes there is no fusebox/inputs.json to write.
    Graph symbolic;
    GraphBuilder build(symbolic);
    NodeId x = build.addInput("x", TensorMeta{DType::Float32, std::vector<Dim>{std::string("s0")}, {}, {}});
    build.setOutputs({build.addOp("aten::relu", {x})});
    const std::string path = exportOrFail(symbolic, "symbolic.pt");
    LoadedModel back = loadExported(path);
    CHECK(back.graph.metadata().at("source.input_shapes") == "none");
    REQUIRE(back.graph.outputValues().size() == 1);
    CHECK(back.graph.node(back.graph.outputValues()[0])->op == "aten::relu");
}
