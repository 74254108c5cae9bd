// torch.export importer: ExportedProgram JSON and .pt2 archives (built here with libzip).
#include "core/io/Base64.h"
#include "core/io/ExportedProgram.h"
#include "core/io/JsonSupport.h"
#include "core/io/TorchPickle.h"
#include "core/ir/Verifier.h"

#include <catch.hpp>
#include <nlohmann/json.hpp>
#include <zip.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

using namespace fusebox;
using nlohmann::json;

namespace {

const std::string kFixture = std::string(FUSEBOX_SOURCE_DIR) + "/tests/fixtures/pt2/split_cat_linear.json";

json fixture()
{
    auto text = json_support::readTextFile(kFixture);
    REQUIRE(text.hasValue());
    return json::parse(*text);
}

std::string scratchPath(const std::string &name)
{
    const std::filesystem::path dir = std::filesystem::path(FUSEBOX_BINARY_DIR) / "pt2-tests";
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

/// Writes a zip holding the given entries (stored uncompressed when `store`).
void writeZip(const std::string &path, const std::vector<std::pair<std::string, std::string>> &entries,
              bool store = false)
{
    int code = 0;
    zip_t *zip = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    REQUIRE(zip);
    for (const auto &[name, bytes] : entries) {
        zip_source_t *source = zip_source_buffer(zip, bytes.data(), bytes.size(), 0);
        REQUIRE(source);
        const zip_int64_t index = zip_file_add(zip, name.c_str(), source, ZIP_FL_OVERWRITE);
        REQUIRE(index >= 0);
        if (store)
            zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
    }
    REQUIRE(zip_close(zip) == 0);
}

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

std::string floatBytes(const std::vector<float> &values)
{
    std::string bytes(values.size() * sizeof(float), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

std::vector<float> floatsOf(const Weight &weight)
{
    std::vector<float> values(weight.data.size() / sizeof(float));
    std::memcpy(values.data(), weight.data.data(), values.size() * sizeof(float));
    return values;
}

json payloadMeta(const std::string &pathName, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                 int64_t offset = 0)
{
    json meta = {{"dtype", 7}, {"requires_grad", false}, {"device", {{"type", "cpu"}, {"index", nullptr}}},
                 {"storage_offset", {{"as_int", offset}}}, {"layout", 7}};
    for (int64_t s : sizes)
        meta["sizes"].push_back({{"as_int", s}});
    for (int64_t s : strides)
        meta["strides"].push_back({{"as_int", s}});
    return {{"path_name", pathName}, {"is_param", true}, {"use_pickle", false}, {"tensor_meta", meta}};
}

/// The current layout: archive/models/model.json, raw payloads, a weights config.
/// tower.scale is a strided view (offset 2, stride 2) of a 10-float storage.
std::vector<std::pair<std::string, std::string>> currentLayoutEntries()
{
    std::vector<float> weight(32), bias{0.5f, 1.5f, 2.5f, 3.5f}, shared(10);
    for (int i = 0; i < 32; ++i)
        weight[i] = float(i);
    for (int i = 0; i < 10; ++i)
        shared[i] = float(100 + i);
    json config = {{"config",
                    {{"tower.proj.weight", payloadMeta("weight_0", {4, 8}, {8, 1})},
                     {"tower.proj.bias", payloadMeta("weight_1", {4}, {1})},
                     {"tower.scale", payloadMeta("weight_2", {4}, {2}, 2)}}}};
    return {{"archive/archive_format", "pt2"},
            {"archive/archive_version", "0"},
            {"archive/models/model.json", fixture().dump()},
            {"archive/data/weights/model_weights_config.json", config.dump()},
            {"archive/data/weights/weight_0", floatBytes(weight)},
            {"archive/data/weights/weight_1", floatBytes(bias)},
            {"archive/data/weights/weight_2", floatBytes(shared)},
            {"archive/data/constants/model_constants_config.json", R"({"config": {}})"},
            {"archive/.data/version", "6\n"}};
}

/// A pickle (protocol 2, as torch.save writes it) of {key: tensor}: each tensor
/// a _rebuild_tensor_v2 of a FloatStorage record "data/<storage>".
struct PickledTensor {
    std::string key, storage;
    int64_t numel, offset;
    std::vector<int64_t> sizes, strides;
};

std::string pickleInt(int64_t value)
{
    std::string out = "J";
    for (int i = 0; i < 4; ++i)
        out += char((value >> (8 * i)) & 0xff);
    return out;
}

std::string pickleStr(const std::string &text)
{
    return "X" + pickleInt(int64_t(text.size())).substr(1) + text;
}

std::string pickleInts(const std::vector<int64_t> &values)
{
    std::string out = "(";
    for (int64_t v : values)
        out += pickleInt(v);
    return out + "t";
}

std::string stateDictPickle(const std::vector<PickledTensor> &tensors)
{
    std::string p = std::string("\x80\x02}q\x00(", 6);
    for (const PickledTensor &t : tensors) {
        p += pickleStr(t.key);
        p += "ctorch._utils\n_rebuild_tensor_v2\n(";
        p += "(" + pickleStr("storage") + "ctorch\nFloatStorage\n" + pickleStr(t.storage) + pickleStr("cpu")
             + pickleInt(t.numel) + "tQ";
        p += pickleInt(t.offset) + pickleInts(t.sizes) + pickleInts(t.strides);
        p += std::string("\x89", 1) + "ccollections\nOrderedDict\n)R";
        p += "tR";
    }
    return p + "u.";
}

/// A torch.save zip (archive/data.pkl, archive/data/<key>, archive/byteorder) in memory.
std::string torchSaveZip(const std::string &pickle, const std::vector<std::pair<std::string, std::string>> &storages,
                         const std::string &byteorder = "little")
{
    const std::string path = scratchPath("torch-save.tmp");
    std::vector<std::pair<std::string, std::string>> entries{{"archive/data.pkl", pickle},
                                                             {"archive/byteorder", byteorder}};
    for (const auto &[key, bytes] : storages)
        entries.push_back({"archive/data/" + key, bytes});
    entries.push_back({"archive/version", "3\n"});
    writeZip(path, entries);
    auto bytes = json_support::readTextFile(path);
    REQUIRE(bytes.hasValue());
    return *bytes;
}

/// The fixture's three constants as torch.save would keep them: the weight
/// and the scale in one storage (the scale a strided view at offset 32).
std::string fixtureStateDict(const std::string &byteorder = "little")
{
    std::vector<float> shared(42), bias{0.5f, 1.5f, 2.5f, 3.5f};
    for (int i = 0; i < 42; ++i)
        shared[i] = float(i);
    std::string sharedBytes = floatBytes(shared), biasBytes = floatBytes(bias);
    if (byteorder == "big")
        for (std::string *bytes : {&sharedBytes, &biasBytes})
            for (size_t at = 0; at + 4 <= bytes->size(); at += 4)
                std::reverse(bytes->begin() + at, bytes->begin() + at + 4);
    return torchSaveZip(stateDictPickle({{"tower.proj.weight", "0", 42, 0, {4, 8}, {8, 1}},
                                         {"tower.proj.bias", "1", 4, 0, {4}, {1}},
                                         {"tower.scale", "0", 42, 32, {4}, {2}}}),
                        {{"0", sharedBytes}, {"1", biasBytes}}, byteorder);
}

std::string errorOfJson(const json &document)
{
    auto result = readExportedProgramJson(document.dump(), {nullptr, "model.json"});
    REQUIRE_FALSE(result.hasValue());
    return result.error().message;
}

std::string errorOfFile(const std::string &path)
{
    auto result = readExportedProgramFile(path);
    REQUIRE_FALSE(result.hasValue());
    return result.error().message;
}

bool anyWarningContains(const LoadedModel &model, const std::string &text)
{
    for (const std::string &w : model.warnings)
        if (w.find(text) != std::string::npos)
            return true;
    return false;
}

const Node &named(const Graph &g, const std::string &name)
{
    NodeId id = g.findByName(name);
    REQUIRE(id.isValid());
    return *g.node(id);
}

OpSchemaRegistry exportSchemas()
{
    OpSchemaRegistry registry;
    registry.add({"aten::split", "Tensor",
                  {{"self", "Tensor", {}, false}, {"split_size", "SymInt", {}, false}, {"dim", "int", "0", false}},
                  {{"", "Tensor[]", {}, false}}, false});
    registry.add({"aten::linear", "",
                  {{"input", "Tensor", {}, false}, {"weight", "Tensor", {}, false}, {"bias", "Tensor?", "None", false}},
                  {{"", "Tensor", {}, false}}, false});
    return registry;
}

} // namespace

TEST_CASE("exported program JSON becomes an FX-like graph", "[io][pt2]")
{
    auto result = readExportedProgramFile(kFixture);
    REQUIRE(result.hasValue());
    const Graph &g = result->graph;
    CHECK(verify(g).empty());
    // x + 3 constants + split, 3 getitems, cat, linear, mul, sym_size, view, to + output.
    CHECK(g.size() == 15);
    CHECK(g.inputs().size() == 1);
    CHECK(g.metadata.at("source.format") == "torch.export");
    CHECK(g.metadata.at("torch_export.schema_version") == "8.8");

    const Node &x = named(g, "x");
    CHECK(x.kind() == NodeKind::Input);
    CHECK(x.meta.dtype == DType::Float32);
    REQUIRE(x.meta.shape);
    CHECK((*x.meta.shape)[0] == Dim(std::string("s0")));
    CHECK((*x.meta.shape)[1] == Dim(int64_t(12)));
    CHECK(x.meta.strides == std::vector<int64_t>{12, 1});
    CHECK(x.meta.device == "cpu");

    const Node &weight = named(g, "p_tower_proj_weight");
    CHECK(weight.kind() == NodeKind::Constant);
    CHECK(weight.weightKey == "tower.proj.weight");
    CHECK(named(g, "b_tower_scale").weightKey == "tower.scale");

    // The folded getitems come back as nodes named by the output tensors.
    const Node &split = *g.node(g.nodesWithOp("aten::split").at(0));
    CHECK(split.overload == "Tensor");
    CHECK(split.type == "Tensor[]");
    CHECK(split.provenance.originalSpelling == "torch.ops.aten.split.Tensor");
    CHECK(split.args() == std::vector<Arg>{g.findByName("x"), int64_t(4), int64_t(1)});
    CHECK(split.provenance.source.file == "/home/user/model.py");
    CHECK(split.provenance.source.line == 18);
    CHECK(g.nodesWithOp("getitem").size() == 3);
    const Node &second = named(g, "getitem_1");
    CHECK(second.op == "getitem");
    CHECK(second.args() == std::vector<Arg>{split.id(), int64_t(1)});
    CHECK(second.meta.toString() == "f32[s0, 4]");

    const Node &cat = named(g, "cat");
    CHECK(cat.op == "aten::cat");
    CHECK(cat.overload.empty()); // "default" is the empty overload, as in libtorch
    CHECK(cat.args()[0] == Arg::list({g.findByName("getitem_2"), g.findByName("getitem")}));
    CHECK(cat.provenance.scope == "tower");

    const Node &linear = named(g, "linear");
    CHECK(linear.provenance.scope == "tower.proj");
    CHECK(linear.provenance.source.line == 21);
    CHECK(linear.args()[1] == Arg(weight.id()));

    const Node &size = named(g, "sym_size_int");
    CHECK(size.type == "SymInt");
    CHECK(named(g, "view").args()[1] == Arg::list({size.id(), int64_t(4)}));

    const Node &to = named(g, "to");
    CHECK(to.args() == std::vector<Arg>{g.findByName("view"), DType::BFloat16});
    REQUIRE(to.kwargs().size() == 1);
    CHECK(to.kwargs()[0] == NamedArg{"memory_format", int64_t(0)}); // c10 contiguous_format
    CHECK(to.meta.dtype == DType::BFloat16);

    CHECK(g.outputValues() == std::vector<NodeId>{to.id()});
    CHECK(anyWarningContains(*result, "weights not loaded: a bare ExportedProgram JSON holds no weights"));
}

TEST_CASE("exported program arguments are normalised to known schemas", "[io][pt2]")
{
    json doc = fixture();
    // Older files have no NamedArgument.kind: the names place the arguments.
    for (json &node : doc["graph_module"]["graph"]["nodes"])
        for (json &input : node["inputs"])
            input.erase("kind");
    auto &linearInputs = doc["graph_module"]["graph"]["nodes"][2]["inputs"];
    std::swap(linearInputs[0], linearInputs[2]); // bias, weight, input

    const OpSchemaRegistry schemas = exportSchemas();
    auto result = readExportedProgramJson(doc.dump(), {&schemas, "model.json"});
    REQUIRE(result.hasValue());
    const Graph &g = result->graph;
    CHECK(named(g, "linear").args()
          == std::vector<Arg>{g.findByName("cat"), g.findByName("p_tower_proj_weight"),
                              g.findByName("p_tower_proj_bias")});
    CHECK(named(g, "linear").kwargs().empty());
    // Without a schema, kind-less arguments stay positional in file order.
    CHECK(named(g, "to").args().size() == 3);
}

TEST_CASE("exported program tuple outputs, mutations and newer versions give warnings, not failures", "[io][pt2]")
{
    json doc = fixture();
    json &graph = doc["graph_module"]["graph"];
    doc["schema_version"] = {{"major", 9}, {"minor", 0}};
    // var_mean returns two tensors: one getitem per output, named by them.
    graph["nodes"].push_back({{"target", "torch.ops.aten.var_mean.correction"},
                              {"inputs", {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "to"}}}}}, {"kind", 1}},
                                          {{"name", "future"}, {"arg", {{"as_quantum", 3}}}, {"kind", 2}}}},
                              {"outputs", {{{"as_tensor", {{"name", "var"}}}}, {{"as_tensor", {{"name", "mean"}}}}}},
                              {"metadata", {{"nn_module_stack", {{"L__self___tower", {"L['self'].tower", "Tower"}}}}}}});
    graph["tensor_values"]["var"] = graph["tensor_values"]["cat"];
    graph["tensor_values"]["mean"] = graph["tensor_values"]["cat"];
    auto &outputs = doc["graph_module"]["signature"]["output_specs"];
    outputs.insert(outputs.begin(), json{{"buffer_mutation", {{"arg", {{"name", "mul"}}}, {"buffer_name", "tower.scale"}}}});
    outputs.push_back({{"user_output", {{"arg", {{"as_tensor", {{"name", "mean"}}}}}}}});
    doc["graph_module"]["signature"]["input_specs"].push_back({{"token", {{"arg", {{"name", "token"}}}}}});

    auto result = readExportedProgramJson(doc.dump(), {nullptr, "model.json"});
    REQUIRE(result.hasValue());
    const Graph &g = result->graph;
    CHECK(verify(g).empty());
    const Node &varMean = *g.node(g.nodesWithOp("aten::var_mean").at(0));
    CHECK(varMean.type == "(Tensor, Tensor)");
    CHECK(varMean.provenance.scope == "tower");
    CHECK(varMean.kwargs().at(0).value.isNone());
    CHECK_FALSE(varMean.opaqueBody.empty());
    CHECK(named(g, "mean").args() == std::vector<Arg>{varMean.id(), int64_t(1)});
    CHECK(named(g, "mean").provenance.scope == "tower");
    CHECK(g.outputValues() == std::vector<NodeId>{g.findByName("to"), g.findByName("mean")});

    CHECK(anyWarningContains(*result, "model.json: schema_version 9.0 is newer than the 8.17"));
    CHECK(anyWarningContains(*result, "graph_module.graph.nodes[7].inputs[1].arg: unknown Argument kind 'as_quantum'"));
    CHECK(anyWarningContains(*result, "output_specs[0]: buffer mutation output of 'tower.scale' skipped"));
    CHECK(anyWarningContains(*result, "input_specs[4]: effect token input skipped"));
}

TEST_CASE("module paths of every exporter spelling become dotted scopes", "[io][pt2]")
{
    auto scopeOf = [](json stack) {
        json doc = fixture();
        doc["graph_module"]["graph"]["nodes"][1]["metadata"]["nn_module_stack"] = std::move(stack);
        auto result = readExportedProgramJson(doc.dump());
        REQUIRE(result.hasValue());
        return named(result->graph, "cat").provenance.scope;
    };
    CHECK(scopeOf("L__self__,,M;L__self___layers_0,L['self'].layers[0],torch.nn.Sequential") == "layers.0");
    CHECK(scopeOf("a,getattr(L['self'].layers, '2'),T") == "layers.2");
    CHECK(scopeOf("a,L['self']._modules['enc']['blk'],T") == "enc.blk");
    CHECK(scopeOf("a,layers.slice(1, None, None),T") == "layers.slice(1, None, None)");
    CHECK(scopeOf("a,self.head,T") == "head");
    CHECK(scopeOf(json::array({json::array({"k", "tower.proj", "Linear"})})) == "tower.proj");
    CHECK(scopeOf(json{{"k", {{"path", "L['self'].enc"}}}}) == "enc");
    CHECK(scopeOf(12) == "");
}

TEST_CASE("current .pt2 archives load raw weights into the weight store", "[io][pt2]")
{
    const std::string path = scratchPath("current.pt2");
    writeZip(path, currentLayoutEntries());
    CHECK(looksLikeExportedProgram(path));

    auto result = readExportedProgramFile(path);
    REQUIRE(result.hasValue());
    INFO((result->warnings.empty() ? std::string() : result->warnings.front()));
    CHECK(result->warnings.empty());
    const Graph &g = result->graph;
    CHECK(g.size() == 15);
    CHECK(g.metadata.at("torch_export.model") == "model");
    CHECK(g.metadata.at("source.path") == path);
    REQUIRE(g.weights().size() == 3);
    auto weight = g.weights().get("tower.proj.weight");
    REQUIRE(weight);
    CHECK(weight->meta.toString() == "f32[4, 8]");
    CHECK(floatsOf(*weight)[31] == 31.0f);
    CHECK(floatsOf(*g.weights().get("tower.proj.bias")) == std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f});
    // Gathered from the shared storage: offset 2, stride 2 -> elements 2, 4, 6, 8.
    CHECK(floatsOf(*g.weights().get("tower.scale")) == std::vector<float>{102, 104, 106, 108});
}

TEST_CASE("current .pt2 archives with unreadable weights still open", "[io][pt2]")
{
    auto entries = currentLayoutEntries();
    json config = {{"config",
                    {{"tower.proj.weight", payloadMeta("weight_0", {4, 8}, {8, 1})},
                     {"tower.proj.bias", payloadMeta("weight_1", {4}, {1})}}}};
    config["config"]["tower.proj.bias"]["use_pickle"] = true;
    for (auto &[name, bytes] : entries) {
        if (name.ends_with("model_weights_config.json")) {
            name = "archive/data/weights/model_model_param_config.json"; // the older spec name
            bytes = config.dump();
        }
        if (name.ends_with("weight_0"))
            bytes.resize(20); // too short for f32[4, 8]
    }
    const std::string path = scratchPath("partial.pt2");
    writeZip(path, entries);
    auto result = readExportedProgramFile(path);
    REQUIRE(result.hasValue());
    CHECK(result->graph.weights().size() == 0);
    // A pickled payload is a torch.save file; these bytes are not one.
    CHECK(anyWarningContains(*result, "weights not loaded: tower.proj.bias (" + path
                                          + "/archive/data/weights/weight_1: not a torch.save zip (no zip signature))"));
    CHECK(anyWarningContains(*result, "weights not loaded: tower.proj.weight (data/weights/weight_0: payload has 20 "
                                      "bytes, the tensor needs 128)"));
    CHECK(anyWarningContains(*result, "weights not loaded: tower.scale (no entry in the archive's payload configs)"));
}

TEST_CASE("torch.export.save archives load their torch.save weights", "[io][pt2]")
{
    for (const std::string byteorder : {"little", "big"}) {
        INFO(byteorder);
        const std::string path = scratchPath("save-layout-" + byteorder + ".pt2");
        writeZip(path, {{"serialized_exported_program.json", fixture().dump()},
                        {"serialized_state_dict.pt", fixtureStateDict(byteorder)},
                        {"serialized_constants.pt", torchSaveZip(std::string("\x80\x02}q\x00.", 6), {})},
                        {"version", "8.8"}});
        CHECK(looksLikeExportedProgram(path));
        auto result = readExportedProgramFile(path);
        REQUIRE(result.hasValue());
        INFO((result->warnings.empty() ? std::string() : result->warnings.front()));
        CHECK(result->warnings.empty());
        const Graph &g = result->graph;
        CHECK(g.size() == 15);
        CHECK(g.metadata.at("source.format") == "torch.export (.pt2, torch.export.save layout)");
        CHECK(g.metadata.at("torch_export.archive_version") == "8.8");
        REQUIRE(g.weights().size() == 3);
        CHECK(g.weights().get("tower.proj.weight")->meta.toString() == "f32[4, 8]");
        CHECK(floatsOf(*g.weights().get("tower.proj.weight"))[31] == 31.0f);
        CHECK(floatsOf(*g.weights().get("tower.proj.bias")) == std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f});
        CHECK(floatsOf(*g.weights().get("tower.scale")) == std::vector<float>{32, 34, 36, 38});
    }
}

TEST_CASE("torch.export.save archives with unreadable weights still open", "[io][pt2]")
{
    const std::string path = scratchPath("save-layout-broken.pt2");
    writeZip(path, {{"serialized_exported_program.json", fixture().dump()},
                    {"serialized_state_dict.pt", std::string("\x80\x02}q\x00.", 6)},
                    {"version", "1"}});
    auto result = readExportedProgramFile(path);
    REQUIRE(result.hasValue());
    CHECK(result->graph.weights().size() == 0);
    REQUIRE(result->warnings.size() == 1);
    CHECK(result->warnings[0]
          == path + ": weights not loaded: tower.proj.weight, tower.proj.bias, tower.scale (" + path
                 + "/serialized_state_dict.pt: a torch.save file in the legacy (pre-1.6, not zip) format, which "
                   "Fusebox does not read)");

    // A state dict without one of the constants, and one of the wrong shape.
    const std::string partial = scratchPath("save-layout-partial.pt2");
    writeZip(partial, {{"serialized_exported_program.json", fixture().dump()},
                       {"serialized_state_dict.pt",
                        torchSaveZip(stateDictPickle({{"tower.proj.weight", "0", 32, 0, {8, 4}, {4, 1}},
                                                      {"tower.proj.bias", "1", 4, 0, {4}, {1}}}),
                                     {{"0", floatBytes(std::vector<float>(32))}, {"1", floatBytes({1, 2, 3, 4})}})}});
    auto some = readExportedProgramFile(partial);
    REQUIRE(some.hasValue());
    CHECK(some->graph.weights().size() == 1);
    CHECK(anyWarningContains(*some, "weights not loaded: tower.proj.weight (payload shape [8, 4] differs from the "
                                    "graph's [4, 8])"));
    CHECK(anyWarningContains(*some, "weights not loaded: tower.scale (in neither serialized_state_dict.pt nor "
                                    "serialized_constants.pt)"));
}

TEST_CASE("torch.save pickles: malformed input gives an error, never a crash", "[io][pt2]")
{
    const std::string pickle = stateDictPickle({{"w", "0", 4, 0, {2, 2}, {2, 1}}});
    auto whole = torch_pickle::parsePickle(pickle);
    REQUIRE(whole.hasValue());
    REQUIRE(whole->tensors.count("w"));
    CHECK(whole->tensors.at("w").dtype == DType::Float32);
    CHECK(whole->tensors.at("w").sizes == std::vector<int64_t>{2, 2});
    CHECK(whole->tensors.at("w").storageKey == "0");
    for (size_t n = 0; n < pickle.size(); ++n) {
        auto cut = torch_pickle::parsePickle(pickle.substr(0, n));
        CHECK_FALSE(cut.hasValue());
    }
    for (size_t i = 0; i < pickle.size(); ++i)
        for (char c : {'\0', '\xff', '(', 't', 'R', 'h', 'Q', '.'}) {
            std::string flipped = pickle;
            flipped[i] = c;
            (void)torch_pickle::parsePickle(flipped); // error or value, no crash
        }
    CHECK(torch_pickle::parsePickle("").error().message == "the pickle ends without STOP at byte 0");
    CHECK(torch_pickle::parsePickle(std::string("\x80\x02X\xff\xff\xff\x7f", 7)).error().message
          == "a length of 2147483647 bytes runs past the end of the pickle at byte 2");
    CHECK(torch_pickle::parsePickle(std::string("\x80\x02h\x05.", 5)).error().message
          == "memo entry 5 was never stored at byte 2");
    // Nesting a million lists deep is freed without recursion.
    std::string deep = std::string("\x80\x02", 2);
    for (int i = 0; i < 1000000; ++i)
        deep += "]";
    for (int i = 0; i < 999999; ++i)
        deep += "a";
    deep += ".";
    CHECK(torch_pickle::parsePickle(deep).hasValue());

    // A tensor whose view runs past its storage.
    auto file = torch_pickle::TorchSaveFile::open(
        torchSaveZip(stateDictPickle({{"w", "0", 4, 2, {2, 2}, {2, 1}}}), {{"0", floatBytes({1, 2, 3, 4})}}), "t.pt");
    REQUIRE(file.hasValue());
    auto loaded = file->load(file->contents().tensors.at("w"));
    REQUIRE_FALSE(loaded.hasValue());
    CHECK(loaded.error().message == "archive/data/0: payload has 16 bytes, the tensor needs 24");
    CHECK(torch_pickle::TorchSaveFile::open("abc", "t.pt").error().message
          == "t.pt: not a torch.save zip (no zip signature)");
    CHECK(torch_pickle::TorchSaveFile::open(torchSaveZip(".", {}), "t.pt").error().message
          == "t.pt: archive/data.pkl: STOP with an empty stack at byte 0");
}

TEST_CASE("early ExportedProgram JSON: bare-number schema versions and torch 2.1's signature", "[io][pt2]")
{
    // torch 2.2 wrote "schema_version": 3, torch 2.1 wrote 1 (docs/torch-export.md).
    json doc = fixture();
    doc["schema_version"] = 3;
    for (auto &[name, meta] : doc["graph_module"]["graph"]["tensor_values"].items())
        meta["storage_offset"] = 0;
    auto v3 = readExportedProgramJson(doc.dump(), {nullptr, "model.json"});
    REQUIRE(v3.hasValue());
    CHECK(v3->graph.metadata.at("torch_export.schema_version") == "3");
    CHECK(v3->graph.size() == 15);

    // Schema 1: the signature as maps, TensorValue{meta}, a tensor constant
    // embedded as graph.constants (base64 of a torch.save zip).
    json old = fixture();
    old["schema_version"] = 1;
    json &module = old["graph_module"];
    module["signature"] = {{"inputs_to_parameters",
                            {{"p_tower_proj_weight", "tower.proj.weight"}, {"p_tower_proj_bias", "tower.proj.bias"}}},
                           {"inputs_to_buffers", json::object()},
                           {"user_inputs", {"x"}},
                           {"user_outputs", {"to"}},
                           {"buffers_to_mutate", json::object()},
                           {"backward_signature", nullptr}};
    json &graph = module["graph"];
    json inputs = json::array();
    for (const json &input : graph["inputs"])
        if (input["as_tensor"]["name"] != "b_tower_scale")
            inputs.push_back(input);
    graph["inputs"] = inputs;
    graph["tensor_values"].erase("b_tower_scale");
    for (auto &[name, meta] : graph["tensor_values"].items())
        meta = json{{"meta", meta}};
    // torch.save(tensor): a top-level tensor (no dict).
    std::string tensorPickle = std::string("\x80\x02", 2) + "ctorch._utils\n_rebuild_tensor_v2\n((" + pickleStr("storage")
                               + "ctorch\nFloatStorage\n" + pickleStr("0") + pickleStr("cpu") + pickleInt(4) + "tQ"
                               + pickleInt(0) + pickleInts({4}) + pickleInts({1}) + "\x89" + "ccollections\nOrderedDict\n)RtR.";
    const std::string zip = torchSaveZip(tensorPickle, {{"0", floatBytes({4, 3, 2, 1})}});
    std::vector<std::byte> zipBytes(zip.size());
    std::memcpy(zipBytes.data(), zip.data(), zip.size());
    graph["constants"] = {{"b_tower_scale", encodeBase64(zipBytes)}};
    auto v1 = readExportedProgramJson(old.dump(), {nullptr, "model.json"});
    REQUIRE(v1.hasValue());
    INFO((v1->warnings.empty() ? std::string() : v1->warnings.front()));
    CHECK(v1->warnings.empty());
    const Graph &g = v1->graph;
    CHECK(g.metadata.at("torch_export.schema_version") == "1");
    CHECK(g.size() == 15);
    CHECK(named(g, "p_tower_proj_weight").weightKey == "tower.proj.weight");
    CHECK(named(g, "b_tower_scale").kind() == NodeKind::Constant);
    REQUIRE(g.weights().get("b_tower_scale"));
    CHECK(floatsOf(*g.weights().get("b_tower_scale")) == std::vector<float>{4, 3, 2, 1});
    CHECK(g.outputValues().size() == 1);
}

TEST_CASE("malformed exported programs give errors that name the JSON path", "[io][pt2]")
{
    json doc = fixture();
    auto with = [&](auto &&edit) {
        json copy = doc;
        edit(copy);
        return errorOfJson(copy);
    };
    CHECK(with([](json &d) { d["graph_module"]["graph"]["nodes"][3]["target"] = 12; })
          == "model.json: graph_module.graph.nodes[3].target: expected a string, found number 12");
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"] = json::object(); }),
               Catch::Contains("graph_module.graph.nodes: expected an array, found object"));
    CHECK(with([](json &d) { d["graph_module"]["signature"]["input_specs"][0]["parameter"].erase("parameter_name"); })
          == "model.json: graph_module.signature.input_specs[0].parameter.parameter_name: missing");
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][1] = {{"as_int", "12"}}; }),
               Catch::Contains("graph_module.graph.tensor_values.x.sizes[1].as_int: expected an integer, found string"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["tensor_values"].erase("cat"); }),
               Catch::Contains("graph_module.graph.nodes[1].outputs[0].as_tensor.name: tensor 'cat' has no entry in "
                               "graph_module.graph.tensor_values"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"][1]["inputs"][0]["kind"] = 7; }),
               Catch::Contains("graph_module.graph.nodes[1].inputs[0].kind: expected an ArgumentKind"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"][2]["inputs"][0]["arg"]["as_tensor"]["name"] = "nope"; }),
               Catch::Contains("graph_module.graph.nodes[2].inputs[0].arg.as_tensor.name: unknown value 'nope'"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"][2]["inputs"][0]["arg"]["as_int"] = 1; }),
               Catch::Contains("graph_module.graph.nodes[2].inputs[0].arg: expected a one-key Argument union, found keys"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"][4]["outputs"][0] = json::object(); }),
               Catch::Contains("graph_module.graph.nodes[4].outputs[0]: expected a one-key Argument union, found an "
                               "empty object"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"][3]["outputs"][0]["as_tensor"]["name"] = "linear"; }),
               Catch::Contains("graph_module.graph.nodes[3].outputs[0].as_tensor.name: value 'linear' is defined twice"));
    CHECK_THAT(with([](json &d) { d["schema_version"]["major"] = "8"; }),
               Catch::Contains("schema_version.major: expected an integer, found string \"8\""));
    CHECK_THAT(with([](json &d) { d.erase("graph_module"); }), Catch::Contains("model.json: graph_module: missing"));
    CHECK(errorOfJson(json::array({1, 2})) == "model.json: document: expected an object, found array [1,2]");

    const std::string text = doc.dump(1);
    auto truncated = readExportedProgramJson(text.substr(0, text.size() / 2), {nullptr, "model.json"});
    REQUIRE_FALSE(truncated.hasValue());
    CHECK_THAT(truncated.error().message, Catch::StartsWith("model.json:") && Catch::Contains("invalid JSON"));
}

TEST_CASE("broken .pt2 archives give errors that name the file and entry", "[io][pt2]")
{
    const std::string noModel = scratchPath("no-model.pt2");
    writeZip(noModel, {{"archive/archive_format", "pt2"}, {"archive/data/weights/weight_0", "abcd"}});
    CHECK_FALSE(looksLikeExportedProgram(noModel));
    CHECK(errorOfFile(noModel)
          == noModel + ": no exported program in the archive (expected models/<name>.json or "
                       "serialized_exported_program.json); it holds archive/archive_format, archive/data/weights/weight_0");

    const std::string garbage = scratchPath("garbage.pt2");
    writeFile(garbage, std::string("PK\x03\x04", 4) + " this is not a zip");
    CHECK_FALSE(looksLikeExportedProgram(garbage));
    CHECK_THAT(errorOfFile(garbage), Catch::StartsWith(garbage + ": not a readable zip archive ("));

    // A whole archive cut in half loses its central directory.
    const std::string whole = scratchPath("whole.pt2");
    writeZip(whole, currentLayoutEntries());
    auto bytes = json_support::readTextFile(whole);
    REQUIRE(bytes.hasValue());
    const std::string cut = scratchPath("cut.pt2");
    writeFile(cut, bytes->substr(0, bytes->size() / 2));
    CHECK_THAT(errorOfFile(cut), Catch::Contains("not a readable zip archive"));

    // A flipped byte inside a stored model entry fails its CRC check.
    const std::string flipped = scratchPath("flipped.pt2");
    writeZip(flipped, {{"models/model.json", fixture().dump()}}, true);
    auto stored = json_support::readTextFile(flipped);
    REQUIRE(stored.hasValue());
    const size_t at = stored->find("\"graph_module\"");
    REQUIRE(at != std::string::npos);
    (*stored)[at + 1] = 'G';
    writeFile(flipped, *stored);
    CHECK_THAT(errorOfFile(flipped), Catch::Contains(flipped + "/models/model.json: corrupt entry ("));

    // A bad document inside an archive names the entry and the JSON path.
    json doc = fixture();
    doc["graph_module"]["graph"]["nodes"][0]["inputs"] = "split";
    const std::string badJson = scratchPath("bad-json.pt2");
    writeZip(badJson, {{"archive/models/model.json", doc.dump()}});
    CHECK(errorOfFile(badJson)
          == badJson + "/archive/models/model.json: graph_module.graph.nodes[0].inputs: expected an array, found string "
                       "\"split\"");

    CHECK_THAT(errorOfFile(scratchPath("missing.pt2")), Catch::Contains("cannot open for reading"));
    CHECK_FALSE(looksLikeExportedProgram(scratchPath("missing.pt2")));
    CHECK_FALSE(looksLikeExportedProgram(std::string(FUSEBOX_SOURCE_DIR) + "/README.md"));
    CHECK(looksLikeExportedProgram(kFixture));
}
