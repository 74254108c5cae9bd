// torch.export importer: .pt2 archives (built here with libzip), their
// weights (raw or torch.save pickles), and damaged archives and pickles.
#include "ExportTestSupport.h"

using namespace fusebox;
using namespace fusebox::exporttest;

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
    CHECK(g.metadata().at("torch_export.model") == "model");
    CHECK(g.metadata().at("source.path") == path);
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
    CHECK(
        anyWarningContains(*result, "weights not loaded: tower.proj.bias (" + path
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
        CHECK(g.metadata().at("source.format") == "torch.export (.pt2, torch.export.save layout)");
        CHECK(g.metadata().at("torch_export.archive_version") == "8.8");
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
    auto file = torch_pickle::TorchSaveFile::open(torchSaveZip(stateDictPickle({{"w", "0", 4, 2, {2, 2}, {2, 1}}}),
                                                               {{"0", floatBytes({1, 2, 3, 4})}}),
                                                  "t.pt");
    REQUIRE(file.hasValue());
    auto loaded = file->load(file->contents().tensors.at("w"));
    REQUIRE_FALSE(loaded.hasValue());
    CHECK(loaded.error().message == "archive/data/0: payload has 16 bytes, the tensor needs 24");
    CHECK(torch_pickle::TorchSaveFile::open("abc", "t.pt").error().message
          == "t.pt: not a torch.save zip (no zip signature)");
    CHECK(torch_pickle::TorchSaveFile::open(torchSaveZip(".", {}), "t.pt").error().message
          == "t.pt: archive/data.pkl: STOP with an empty stack at byte 0");
}

TEST_CASE("broken .pt2 archives give errors that name the file and entry", "[io][pt2]")
{
    const std::string noModel = scratchPath("no-model.pt2");
    writeZip(noModel, {{"archive/archive_format", "pt2"}, {"archive/data/weights/weight_0", "abcd"}});
    CHECK_FALSE(looksLikeExportedProgram(noModel));
    CHECK(errorOfFile(noModel)
          == noModel
                 + ": no exported program in the archive (expected models/<name>.json or "
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
          == badJson
                 + "/archive/models/model.json: graph_module.graph.nodes[0].inputs: expected an array, found string "
                   "\"split\"");

    CHECK_THAT(errorOfFile(scratchPath("missing.pt2")), Catch::Contains("cannot open for reading"));
    CHECK_FALSE(looksLikeExportedProgram(scratchPath("missing.pt2")));
    CHECK_FALSE(looksLikeExportedProgram(std::string(FUSEBOX_SOURCE_DIR) + "/README.md"));
    CHECK(looksLikeExportedProgram(kFixture));
}

TEST_CASE("names an archive holds are quoted on one line in its warnings", "[io][pt2][fuzz]")
{
    // pt2_archive_fuzz (CI, stop 45): a warning quoted a name read from the
    // archive (another model's entry, a payload's path_name) with its line
    // break, and took two lines. Every warning of the reader is one line.
    auto entries = currentLayoutEntries();
    entries.emplace_back("archive/models/x\ny.json", fixture().dump());
    for (auto &[name, bytes] : entries)
        if (name.ends_with("model_weights_config.json")) {
            json config = json::parse(bytes);
            config["config"]["tower.proj.bias"]["path_name"] = "gone\nhere";
            bytes = config.dump();
        }
    const std::string path = scratchPath("newline-names.pt2");
    writeZip(path, entries);
    auto result = readExportedProgramFile(path);
    REQUIRE(result.hasValue());
    REQUIRE(result->warnings.size() >= 2);
    for (const std::string &warning : result->warnings) {
        INFO(warning);
        CHECK(warning.find('\n') == std::string::npos);
    }
    CHECK(anyWarningContains(*result, "imported 'model', not x\\ny"));
    CHECK(anyWarningContains(*result, "weights not loaded: tower.proj.bias ("));
}
