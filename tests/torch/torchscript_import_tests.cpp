// The TorchScript importer against what libtorch itself reports
// (tests/fixtures/make_fixtures.py writes <model>.expected.json).
#include <catch.hpp>

#include "Fixtures.h"
#include "core/ir/Verifier.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/TorchScriptImporter.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace fusebox;

namespace {

nlohmann::json expectedFor(const std::string &model)
{
    std::ifstream in(fixture(model + ".expected.json"));
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

/// The IR histogram as expected.json writes it: op nodes by op name, the
/// others by kind ("input", "constant", "output").
std::map<std::string, int> opHistogram(const Graph &graph)
{
    std::map<std::string, int> hist;
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        hist[n.isOp() ? n.op : std::string(toString(n.kind()))]++;
    }
    return hist;
}

std::vector<const Node *> nodesWithOp(const Graph &graph, std::string_view op)
{
    std::vector<const Node *> found;
    for (NodeId id : graph.nodeIds())
        if (graph.node(id)->op == op)
            found.push_back(graph.node(id));
    return found;
}

std::vector<Dim> dims(std::initializer_list<int64_t> sizes)
{
    return {sizes.begin(), sizes.end()};
}

std::vector<Dim> dims(const nlohmann::json &shape)
{
    std::vector<Dim> out;
    for (const nlohmann::json &d : shape)
        out.emplace_back(d.get<int64_t>());
    return out;
}

LoadedModel importOrFail(const std::string &path, const TorchScriptImportOptions &options = {})
{
    auto result = importTorchScript(path, options);
    if (!result)
        FAIL(result.error().message);
    return std::move(result).value();
}

/// Node count, op histogram, weights and output metadata equal libtorch's view.
void checkAgainstExpected(const std::string &model)
{
    INFO(model);
    nlohmann::json expected = expectedFor(model);
    LoadedModel loaded = importOrFail(fixture(model + ".pt"));
    const Graph &g = loaded.graph;

    CHECK(formatIssues(verify(g)).empty());
    CHECK(g.size() == expected.at("ir").at("node_count").get<size_t>());
    CHECK(nlohmann::json(opHistogram(g)) == expected.at("ir").at("histogram"));
    // Every TorchScript kind that is not folded keeps its count.
    const std::map<std::string, int> hist = opHistogram(g);
    for (const auto &[kind, count] : expected.at("torchscript").at("histogram").items()) {
        if (kind == "prim::Constant" || kind.ends_with("Construct") || kind.ends_with("Unpack"))
            continue;
        INFO(kind);
        CHECK(hist.count(kind));
        CHECK((hist.count(kind) ? hist.at(kind) : 0) == count.get<int>());
    }

    // Every tensor constant's payload, with libtorch's byte size.
    const nlohmann::json &weights = expected.at("weights");
    CHECK(g.weights().size() == weights.size());
    for (const auto &[key, bytes] : weights.items()) {
        INFO(key);
        auto w = g.weights().get(key);
        REQUIRE(w);
        CHECK(w->data.size() == bytes.get<size_t>());
        CHECK(w->data.size() == static_cast<size_t>(w->meta.numel().value_or(-1)) * elementSize(w->meta.dtype));
    }

    // Shapes propagated from fusebox/inputs.json to the outputs.
    const nlohmann::json &outputs = expected.at("outputs");
    std::vector<NodeId> values = g.outputValues();
    REQUIRE(values.size() == outputs.size());
    for (size_t i = 0; i < values.size(); ++i) {
        const TensorMeta &meta = g.node(values[i])->meta;
        CHECK(meta.shape == std::optional(dims(outputs[i].at("shape"))));
        CHECK(shortName(meta.dtype) == outputs[i].at("dtype").get<std::string>());
    }
    REQUIRE(g.inputs().size() == expected.at("inputs").size());
    for (size_t i = 0; i < g.inputs().size(); ++i)
        CHECK(g.node(g.inputs()[i])->meta.shape == std::optional(dims(expected.at("inputs")[i].at("shape"))));

    CHECK(g.metadata().at("source.format") == "torchscript");
    CHECK(g.metadata().at("source.path") == fixture(model + ".pt"));
    CHECK(g.metadata().at("source.input_shapes") == "fusebox/inputs.json");
}

} // namespace

TEST_CASE("imported models match libtorch's node counts and op histograms", "[torch]")
{
    checkAgainstExpected("resnet18");
    checkAgainstExpected("mobilenet_v3_small");
    checkAgainstExpected("recsys_demo");
    checkAgainstExpected("control_flow");
    checkAgainstExpected("multi_output");
}

TEST_CASE("multi-output nodes get one getitem per used output, returned tuples are flattened", "[torch]")
{
    LoadedModel m = importOrFail(fixture("multi_output.pt"));
    const Graph &g = m.graph;

    auto maxes = nodesWithOp(g, "aten::max");
    REQUIRE(maxes.size() == 1);
    CHECK(maxes[0]->type == "Tuple[Tensor, Tensor]");
    std::vector<NodeId> maxUsers = g.users(maxes[0]->id());
    REQUIRE(maxUsers.size() == 2);
    CHECK(g.node(maxUsers[0])->args()[1] == Arg(int64_t(0)));
    CHECK(g.node(maxUsers[1])->args()[1] == Arg(int64_t(1)));
    CHECK(g.node(maxUsers[1])->meta.toString() == "i64[3]");
    CHECK(g.node(maxUsers[0])->provenance.originalSpelling == "aten::max");

    // topk's indices are unused: only the values get a getitem.
    auto topks = nodesWithOp(g, "aten::topk");
    REQUIRE(topks.size() == 1);
    std::vector<NodeId> topkUsers = g.users(topks[0]->id());
    REQUIRE(topkUsers.size() == 1);
    CHECK(g.node(topkUsers[0])->op == "getitem");
    CHECK(g.node(topkUsers[0])->args()[1] == Arg(int64_t(0)));

    // The returned tuple: the output node lists its three items.
    std::vector<NodeId> outs = g.outputValues();
    REQUIRE(outs.size() == 3);
    CHECK(g.node(outs[0])->op == "aten::add");
    CHECK(g.node(outs[1])->op == "getitem");
    CHECK(g.node(outs[1])->meta.toString() == "f32[3, 2]");
    CHECK(g.node(outs[2])->op == "aten::mul");
}

TEST_CASE("resnet18 imports with shapes, weights and provenance", "[torch]")
{
    LoadedModel m = importOrFail(fixture("resnet18.pt"));
    const Graph &g = m.graph;
    CHECK(m.warnings.empty());

    REQUIRE(g.inputs().size() == 1);
    const Node &x = *g.node(g.inputs()[0]);
    CHECK(x.name == "x");
    CHECK(x.meta.toString() == "f32[1, 3, 224, 224]");

    std::vector<NodeId> outs = g.outputValues();
    REQUIRE(outs.size() == 1);
    CHECK(g.node(outs[0])->op == "aten::linear");
    CHECK(g.node(outs[0])->meta.toString() == "f32[1, 1000]");

    const Node *conv = nullptr;
    for (const Node *n : nodesWithOp(g, "aten::_convolution"))
        if (n->provenance.scope == "layer1.0.conv1")
            conv = n;
    REQUIRE(conv);
    CHECK(conv->provenance.originalSpelling == "aten::_convolution");
    CHECK(conv->provenance.source.isKnown());
    CHECK(conv->provenance.source.file.find("conv.py") != std::string::npos);
    CHECK(conv->provenance.source.line > 0);
    CHECK(conv->meta.toString() == "f32[1, 64, 56, 56]");
    CHECK(conv->meta.device == "cpu");
    REQUIRE(conv->args().size() == 13);
    // The weight is a constant whose payload is the frozen parameter.
    const Node *weight = g.node(conv->args()[1].node());
    REQUIRE(weight);
    CHECK(weight->kind() == NodeKind::Constant);
    CHECK(weight->weightKey == "self.layer1.0.conv1.weight");
    CHECK(weight->name == "layer1_0_conv1_weight");
    CHECK(weight->meta.shape == dims({64, 64, 3, 3}));
    auto payload = g.weights().get(weight->weightKey);
    REQUIRE(payload);
    CHECK(payload->data.size() == 64 * 64 * 3 * 3 * sizeof(float));
    // Folded literals: stride/padding lists and the transposed flag.
    CHECK(conv->args()[3] == Arg::list({Arg(int64_t(1)), Arg(int64_t(1))}));
    CHECK(conv->args()[6] == Arg(false));
    // A conv without bias reads None.
    CHECK(conv->args()[2].isNone());
}

TEST_CASE("the demo model's unpacks become getitem nodes and its lists are folded", "[torch]")
{
    LoadedModel m = importOrFail(fixture("recsys_demo.pt"));
    const Graph &g = m.graph;
    CHECK(m.warnings.empty());
    CHECK(nodesWithOp(g, "prim::ListConstruct").empty());
    CHECK(nodesWithOp(g, "prim::ListUnpack").empty());
    CHECK(nodesWithOp(g, "prim::Constant").empty());

    // The dense split into 16 chunks feeds 16 getitem nodes, in order.
    const Node *denseSplit = nullptr;
    for (const Node *n : nodesWithOp(g, "aten::split"))
        if (n->provenance.scope == "dense")
            denseSplit = n;
    REQUIRE(denseSplit);
    CHECK(denseSplit->overload == "Tensor");
    CHECK(denseSplit->args().size() == 3);
    CHECK(denseSplit->args()[1] == Arg(int64_t(8)));
    std::vector<NodeId> users = g.users(denseSplit->id());
    REQUIRE(users.size() == 16);
    for (size_t i = 0; i < users.size(); ++i) {
        const Node &item = *g.node(users[i]);
        CHECK(item.op == "getitem");
        CHECK(item.args()[1] == Arg(static_cast<int64_t>(i)));
        CHECK(item.meta.toString() == "f32[8, 8]");
        CHECK(item.provenance.originalSpelling == "prim::ListUnpack");
    }
    CHECK(nodesWithOp(g, "getitem").size() == 16 + 8 + 4);

    // cat reads a folded list of node references and an int literal.
    for (const Node *cat : nodesWithOp(g, "aten::cat")) {
        REQUIRE(cat->args().size() == 2);
        REQUIRE(cat->args()[0].isList());
        for (const Arg &item : *cat->args()[0].items())
            CHECK(item.isNode());
        CHECK(cat->args()[1] == Arg(int64_t(1)));
    }
    // Linears of the dense tower read their constant weights [16, 8].
    int denseLinears = 0;
    for (const Node *linear : nodesWithOp(g, "aten::linear")) {
        if (linear->provenance.scope.rfind("dense.branches.", 0) != 0)
            continue;
        ++denseLinears;
        const Node *w = g.node(linear->args()[1].node());
        REQUIRE(w);
        CHECK(w->kind() == NodeKind::Constant);
        CHECK(w->meta.shape == dims({16, 8}));
        CHECK(linear->meta.toString() == "f32[8, 16]");
    }
    CHECK(denseLinears == 16);

    const Node &ids = *g.node(g.inputs()[2]);
    CHECK(ids.name == "ids");
    CHECK(ids.meta.toString() == "i64[8, 6]");
}

TEST_CASE("the committed demo model is small and imports to 200-400 nodes", "[torch]")
{
    const std::string path = std::string(FUSEBOX_SOURCE_DIR) + "/resources/demo/recsys_demo.pt";
    REQUIRE(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) < 1024 * 1024);
    LoadedModel m = importOrFail(path);
    CHECK(m.graph.size() >= 200);
    CHECK(m.graph.size() <= 400);
    CHECK(m.graph.size() == expectedFor("recsys_demo").at("ir").at("node_count").get<size_t>());
}

TEST_CASE("control flow imports as opaque nodes with a warning", "[torch]")
{
    LoadedModel m = importOrFail(fixture("control_flow.pt"));
    const Graph &g = m.graph;
    CHECK(formatIssues(verify(g)).empty());

    auto ifs = nodesWithOp(g, "prim::If");
    REQUIRE(ifs.size() == 1);
    CHECK(ifs[0]->opaqueBody.find("prim::If") != std::string::npos);
    CHECK(ifs[0]->opaqueBody.find("block0") != std::string::npos);
    CHECK(ifs[0]->opaqueBody.find("aten::relu") != std::string::npos);
    // The condition is its first argument; the value the blocks read is captured.
    REQUIRE(!ifs[0]->args().empty());
    CHECK(g.node(ifs[0]->args()[0].node())->op == "aten::Bool");
    const Arg *captures = ifs[0]->kwarg("captures");
    REQUIRE(captures);
    REQUIRE(captures->items());
    CHECK(g.node(captures->items()->at(0).node())->op == "aten::linear");

    auto loops = nodesWithOp(g, "prim::Loop");
    REQUIRE(loops.size() == 1);
    CHECK(loops[0]->opaqueBody.find("aten::add") != std::string::npos);

    int opaqueWarnings = 0;
    for (const std::string &w : m.warnings) {
        if (w.find("opaque") == std::string::npos)
            continue;
        ++opaqueWarnings;
        CHECK(w.rfind(fixture("control_flow.pt") + ": prim::", 0) == 0);
        CHECK(w.find(".py:") != std::string::npos); // the source location
    }
    CHECK(opaqueWarnings == 2);

    // ScalarType arguments become dtypes; scripted scopes come from the call stack.
    auto tos = nodesWithOp(g, "aten::to");
    REQUIRE(tos.size() == 1);
    CHECK(tos[0]->overload == "dtype");
    CHECK(tos[0]->args()[1] == Arg(DType::Float64));
    auto linears = nodesWithOp(g, "aten::linear");
    REQUIRE(linears.size() == 1);
    CHECK(linears[0]->provenance.scope == "linear");
}

TEST_CASE("bad model files give one-line errors that name the file", "[torch]")
{
    auto check = [](const std::string &path, const std::string &expectedMessage) {
        auto r = importTorchScript(path);
        REQUIRE_FALSE(r);
        INFO(r.error().message);
        CHECK(r.error().message.find('\n') == std::string::npos);
        CHECK(r.error().message.rfind(expectedMessage, 0) == 0);
    };
    check(fixture("pickle.pt"),
          fixture("pickle.pt") + ": not a TorchScript archive (it looks like a torch.save pickle)");
    check(fixture("garbage.pt"), fixture("garbage.pt") + ": not a model file (not a zip archive)");
    check(fixture("missing.pt"), fixture("missing.pt") + ": no such file");
    check(fixture("future_version.pt"), fixture("future_version.pt") + ": unsupported TorchScript version (");
    CHECK(importTorchScript(fixture("future_version.pt")).error().message.find("version 99") != std::string::npos);
    check(FUSEBOX_FIXTURE_DIR, std::string(FUSEBOX_FIXTURE_DIR) + ": not a model file (a directory)");
    // A 0-byte file says so (issue 14: it read "not a zip archive"), here and
    // through loadModel whatever its extension.
    const std::string empty = (std::filesystem::temp_directory_path() / "fusebox-empty-model.pt").string();
    for (const char *ext : {".pt", ".py", ".json"}) {
        const std::string path = empty.substr(0, empty.size() - 3) + ext;
        {
            std::ofstream touch(path, std::ios::binary | std::ios::trunc);
        }
        if (std::string(ext) == ".pt")
            check(path, path + ": empty file (0 bytes), not a model");
        auto loaded = loadModel(path);
        REQUIRE_FALSE(loaded);
        CHECK(loaded.error().message == path + ": empty file (0 bytes), not a model");
        std::filesystem::remove(path);
    }
}

TEST_CASE("importTorchScriptFromBytes reads an archive held in memory", "[torch]")
{
    const std::string bytes = readFile(fixture("recsys_demo.pt"));
    REQUIRE(bytes.size() > 1000);
    auto r = importTorchScriptFromBytes(bytes, "demo bytes");
    REQUIRE(r);
    CHECK(r->graph.size() == expectedFor("recsys_demo").at("ir").at("node_count").get<size_t>());
    CHECK(r->graph.metadata().at("source.path") == "demo bytes");
    CHECK(r->graph.node(r->graph.outputValues().at(0))->meta.toString() == "f32[8, 1]");

    auto garbage = importTorchScriptFromBytes(readFile(fixture("garbage.pt")), "garbage bytes");
    REQUIRE_FALSE(garbage);
    CHECK(garbage.error().message == "garbage bytes: not a model file (not a zip archive)");
    auto pickle = importTorchScriptFromBytes(readFile(fixture("pickle.pt")), "pickle bytes");
    REQUIRE_FALSE(pickle);
    CHECK(pickle.error().message == "pickle bytes: not a TorchScript archive (it looks like a torch.save pickle)");
}

TEST_CASE("input shapes from the options override fusebox/inputs.json", "[torch]")
{
    TorchScriptImportOptions options;
    options.inputShapes = {{4, 128}, {4, 8, 16}, {4, 6}};
    LoadedModel m = importOrFail(fixture("recsys_demo.pt"), options);
    CHECK(m.graph.metadata().at("source.input_shapes") == "options");
    CHECK(m.graph.node(m.graph.outputValues().at(0))->meta.toString() == "f32[4, 1]");
    // The dtypes still come from the archive: the ids are int64.
    CHECK(m.graph.node(m.graph.inputs()[2])->meta.toString() == "i64[4, 6]");

    // Without the example run only libtorch's static pass is left: it knows
    // the rank of a convolution, not its sizes.
    TorchScriptImportOptions staticOnly;
    staticOnly.runExampleForShapes = false;
    LoadedModel s = importOrFail(fixture("resnet18.pt"), staticOnly);
    CHECK(s.graph.node(s.graph.inputs()[0])->meta.toString() == "f32[1, 3, 224, 224]");
    const Node *firstConv = nodesWithOp(s.graph, "aten::_convolution").at(0);
    CHECK(firstConv->meta.rank() == 4);
    CHECK_FALSE(firstConv->meta.hasStaticShape());

    TorchScriptImportOptions wrongCount;
    wrongCount.inputShapes = {{1, 3, 224, 224}, {1}};
    LoadedModel r = importOrFail(fixture("resnet18.pt"), wrongCount);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("2 input shapes given for 1 inputs") != std::string::npos);
    CHECK_FALSE(r.graph.node(r.graph.outputValues().at(0))->meta.shape.has_value());
}
