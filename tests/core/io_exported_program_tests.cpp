// torch.export importer: ExportedProgram JSON (its graph, arguments,
// outputs, versions and errors). Archives and pickles: io_pt2_archive_tests.cpp.
#include "ExportTestSupport.h"
#include "core/ir/GraphCompare.h"

#include <functional>
#include <set>

using namespace fusebox;
using namespace fusebox::exporttest;

TEST_CASE("exported program JSON becomes an FX-like graph", "[io][pt2]")
{
    auto result = readExportedProgramFile(kFixture);
    REQUIRE(result.hasValue());
    const Graph &g = result->graph;
    CHECK(verify(g).empty());
    // x + 3 constants + split, 3 getitems, cat, linear, mul, sym_size, view, to + output.
    CHECK(g.size() == 15);
    CHECK(g.inputs().size() == 1);
    CHECK(g.metadata().at("source.format") == "torch.export");
    CHECK(g.metadata().at("torch_export.schema_version") == "8.8");

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
                              {"inputs",
                               {{{"name", "self"}, {"arg", {{"as_tensor", {{"name", "to"}}}}}, {"kind", 1}},
                                {{"name", "future"}, {"arg", {{"as_quantum", 3}}}, {"kind", 2}}}},
                              {"outputs", {{{"as_tensor", {{"name", "var"}}}}, {{"as_tensor", {{"name", "mean"}}}}}},
                              {"metadata", {{"nn_module_stack", {{"L__self___tower", {"L['self'].tower", "Tower"}}}}}}});
    graph["tensor_values"]["var"] = graph["tensor_values"]["cat"];
    graph["tensor_values"]["mean"] = graph["tensor_values"]["cat"];
    auto &outputs = doc["graph_module"]["signature"]["output_specs"];
    outputs.insert(outputs.begin(),
                   json{{"buffer_mutation", {{"arg", {{"name", "mul"}}}, {"buffer_name", "tower.scale"}}}});
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

TEST_CASE("early ExportedProgram JSON: bare-number schema versions and torch 2.1's signature", "[io][pt2]")
{
    // torch 2.2 wrote "schema_version": 3, torch 2.1 wrote 1 (docs/torch-export.md).
    json doc = fixture();
    doc["schema_version"] = 3;
    for (auto &[name, meta] : doc["graph_module"]["graph"]["tensor_values"].items())
        meta["storage_offset"] = 0;
    auto v3 = readExportedProgramJson(doc.dump(), {nullptr, "model.json"});
    REQUIRE(v3.hasValue());
    CHECK(v3->graph.metadata().at("torch_export.schema_version") == "3");
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
    std::string tensorPickle = std::string("\x80\x02", 2) + "ctorch._utils\n_rebuild_tensor_v2\n(("
                               + pickleStr("storage") + "ctorch\nFloatStorage\n" + pickleStr("0") + pickleStr("cpu")
                               + pickleInt(4) + "tQ" + pickleInt(0) + pickleInts({4}) + pickleInts({1}) + "\x89"
                               + "ccollections\nOrderedDict\n)RtR.";
    const std::string zip = torchSaveZip(tensorPickle, {{"0", floatBytes({4, 3, 2, 1})}});
    std::vector<std::byte> zipBytes(zip.size());
    std::memcpy(zipBytes.data(), zip.data(), zip.size());
    graph["constants"] = {{"b_tower_scale", encodeBase64(zipBytes)}};
    auto v1 = readExportedProgramJson(old.dump(), {nullptr, "model.json"});
    REQUIRE(v1.hasValue());
    INFO((v1->warnings.empty() ? std::string() : v1->warnings.front()));
    CHECK(v1->warnings.empty());
    const Graph &g = v1->graph;
    CHECK(g.metadata().at("torch_export.schema_version") == "1");
    CHECK(g.size() == 15);
    CHECK(named(g, "p_tower_proj_weight").weightKey == "tower.proj.weight");
    CHECK(named(g, "b_tower_scale").kind() == NodeKind::Constant);
    REQUIRE(g.weights().get("b_tower_scale"));
    CHECK(floatsOf(*g.weights().get("b_tower_scale")) == std::vector<float>{4, 3, 2, 1});
    CHECK(g.outputValues().size() == 1);
}

namespace {

/// Rewrites every union of `doc` (a one-key object whose key is a member of
/// schema.py's Argument, SymInt, InputSpec or OutputSpec) with `spell`.
void respellUnions(json &doc, const std::function<json(const std::string &, const json &)> &spell)
{
    static const std::set<std::string> members = {"as_none",     "as_tensor",      "as_tensors",     "as_int",
                                                  "as_ints",     "as_float",       "as_floats",      "as_string",
                                                  "as_sym_int",  "as_sym_ints",    "as_scalar_type", "as_memory_format",
                                                  "as_layout",   "as_bool",        "as_name",        "as_expr",
                                                  "user_input",  "parameter",      "buffer",         "tensor_constant",
                                                  "user_output", "buffer_mutation"};
    if (doc.is_object()) {
        for (auto &item : doc.items())
            respellUnions(item.value(), spell);
        if (doc.size() == 1 && members.contains(doc.begin().key()))
            doc = spell(doc.begin().key(), doc.begin().value());
    } else if (doc.is_array()) {
        for (json &item : doc)
            respellUnions(item, spell);
    }
}

} // namespace

TEST_CASE("every union spelling torch.export has written reads as the one-key union", "[io][pt2]")
{
    // A June-2024 .pt2 written by torch 2.2 was refused: 2.1 and 2.2 wrote a
    // union dataclass whole (every member, the unset ones null); nightlies of
    // early 2024 wrote {"$type", "$value"}. Both must read as the fixture does.
    const auto reference = readExportedProgramJson(fixture().dump(), {nullptr, "model.json"});
    REQUIRE(reference.hasValue());
    size_t unions = 0;
    json whole = fixture();
    respellUnions(whole, [&](const std::string &key, const json &value) {
        ++unions;
        json spelled = {{key, value}};
        for (const char *other : {"as_float", "as_bool", "user_output", "token"})
            if (key != other)
                spelled[other] = nullptr;
        return spelled;
    });
    CHECK(unions > 40); // hand count of the fixture: inputs, specs, arguments, outputs
    json tagged = fixture();
    respellUnions(tagged, [](const std::string &key, const json &value) {
        return json{{"$type", key}, {"$value", value}};
    });
    for (const json *doc : {&whole, &tagged}) {
        auto read = readExportedProgramJson(doc->dump(), {nullptr, "model.json"});
        INFO((read ? std::string() : read.error().message));
        REQUIRE(read.hasValue());
        CHECK(read->warnings == reference->warnings);
        const auto difference = firstDifference(read->graph, reference->graph);
        INFO(difference.value_or(""));
        CHECK_FALSE(difference.has_value());
    }

    // Every member null says so, with the path.
    json empty = fixture();
    empty["graph_module"]["signature"]["input_specs"][0] = {{"user_input", nullptr}, {"parameter", nullptr}};
    auto refused = readExportedProgramJson(empty.dump(), {nullptr, "model.json"});
    REQUIRE_FALSE(refused.hasValue());
    CHECK(refused.error().message
          == "model.json: graph_module.signature.input_specs[0]: expected a one-key InputSpec union, found keys "
             "parameter, user_input, every one null");
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
    CHECK_THAT(with([](json &d) {
                   d["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][1] = {{"as_int", "12"}};
               }),
               Catch::Contains(
                   "graph_module.graph.tensor_values.x.sizes[1].as_int: expected an integer, found string"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["tensor_values"].erase("cat"); }),
               Catch::Contains("graph_module.graph.nodes[1].outputs[0].as_tensor.name: tensor 'cat' has no entry in "
                               "graph_module.graph.tensor_values"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"][1]["inputs"][0]["kind"] = 7; }),
               Catch::Contains("graph_module.graph.nodes[1].inputs[0].kind: expected an ArgumentKind"));
    CHECK_THAT(with([](json &d) {
                   d["graph_module"]["graph"]["nodes"][2]["inputs"][0]["arg"]["as_tensor"]["name"] = "nope";
               }),
               Catch::Contains("graph_module.graph.nodes[2].inputs[0].arg.as_tensor.name: unknown value 'nope'"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"][2]["inputs"][0]["arg"]["as_int"] = 1; }),
               Catch::Contains(
                   "graph_module.graph.nodes[2].inputs[0].arg: expected a one-key Argument union, found keys"));
    CHECK_THAT(with([](json &d) { d["graph_module"]["graph"]["nodes"][4]["outputs"][0] = json::object(); }),
               Catch::Contains("graph_module.graph.nodes[4].outputs[0]: expected a one-key Argument union, found an "
                               "empty object"));
    CHECK_THAT(with([](json &d) {
                   d["graph_module"]["graph"]["nodes"][3]["outputs"][0]["as_tensor"]["name"] = "linear";
               }),
               Catch::Contains(
                   "graph_module.graph.nodes[3].outputs[0].as_tensor.name: value 'linear' is defined twice"));
    CHECK_THAT(with([](json &d) { d["schema_version"]["major"] = "8"; }),
               Catch::Contains("schema_version.major: expected an integer, found string \"8\""));
    CHECK_THAT(with([](json &d) { d.erase("graph_module"); }), Catch::Contains("model.json: graph_module: missing"));
    CHECK(errorOfJson(json::array({1, 2})) == "model.json: document: expected an object, found array [1,2]");

    const std::string text = doc.dump(1);
    auto truncated = readExportedProgramJson(text.substr(0, text.size() / 2), {nullptr, "model.json"});
    REQUIRE_FALSE(truncated.hasValue());
    CHECK_THAT(truncated.error().message, Catch::StartsWith("model.json:") && Catch::Contains("invalid JSON"));
}
