// torch.export archives of every layout PyTorch 2.x has written, with their
// weights, generated at test time by the PyTorch 2 of the bridge (torch 2.6):
// tests/pt2/scripts/export_archives.py writes torch 2.6's own torch.export.save
// archive and, from it, the forms older and newer torch versions wrote (its
// docstring names the versions and the PyTorch sources). Node counts, op
// histograms and weight values are PyTorch's own, computed in that script.
#include "Pt2TestSupport.h"

#include "core/io/Base64.h"
#include "core/io/ExportedProgram.h"

#include <cstring>

using namespace fusebox;
using namespace fusebox::testing;

namespace {

struct Archives {
    std::string dir;
    nlohmann::json result; // what the script printed (files, histogram, nodes, weights)
    std::string file(const std::string &name) const { return dir + "/" + name; }
};

/// Runs the script once per test run in the bridge's Python and writes its
/// files into build/pt2-fixtures/export-archives/.
const Archives &archives()
{
    static const Archives made = [] {
        Archives a;
        a.dir = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/export-archives";
        std::filesystem::remove_all(a.dir);
        std::filesystem::create_directories(a.dir);
        a.result = runPythonForJson(pt2Bridge().command().argv, sourcePath("tests/pt2/scripts/export_archives.py"),
                                    "FUSEBOX-ARCHIVES:");
        for (auto it = a.result["files"].begin(); it != a.result["files"].end(); ++it) {
            auto bytes = decodeBase64(it.value().get<std::string>());
            REQUIRE(bytes.has_value());
            std::ofstream out(a.file(it.key()), std::ios::binary);
            out.write(reinterpret_cast<const char *>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
        }
        return a;
    }();
    return made;
}

std::map<std::string, int64_t> pytorchHistogram()
{
    return normalisedHistogram(archives().result["histogram"].get<std::map<std::string, int64_t>>());
}

/// Every weight the script expects for `file` is in the graph, with torch's
/// dtype, shape and bytes; the graph holds no others.
void checkWeights(const std::string &file)
{
    const Archives &a = archives();
    auto model = readExportedProgramFile(a.file(file));
    INFO(file);
    REQUIRE(model.hasValue());
    const nlohmann::json &expected = a.result["weights"][file];
    const WeightStore &weights = model->graph.weights();
    CHECK(weights.size() == expected.size());
    for (auto it = expected.begin(); it != expected.end(); ++it) {
        INFO(it.key());
        auto weight = weights.get(it.key());
        REQUIRE(weight);
        CHECK(std::string(torchName(weight->meta.dtype)) == it.value()["dtype"].get<std::string>());
        std::vector<Dim> shape;
        for (int64_t d : it.value()["shape"].get<std::vector<int64_t>>())
            shape.push_back(d);
        CHECK(weight->meta.shape == std::optional<std::vector<Dim>>(shape));
        auto bytes = decodeBase64(it.value()["data"].get<std::string>());
        REQUIRE(bytes.has_value());
        CHECK(weight->data == *bytes);
    }
}

} // namespace

TEST_CASE("torch.export archives of every layout read with PyTorch's nodes and ops", "[pt2][export-archives]")
{
    const Archives &a = archives();
    INFO("torch " << a.result["torch"].get<std::string>());
    const auto pytorch = pytorchHistogram();
    for (const char *file : {"save.pt2", "schema3.pt2", "schema1.pt2", "package.pt2", "program.json"}) {
        INFO(file);
        auto inspected = inspectJson(a.file(file));
        CHECK(inspected["format"].get<std::string>().rfind("torch.export", 0) == 0);
        CHECK(inspected["nodes"] == a.result["nodes"]);
        CHECK(fuseboxHistogram(inspected) == pytorch);
        if (std::string(file) != "program.json") {
            INFO(inspected["warnings"].dump());
            CHECK(inspected["warnings"].empty());
        }
    }
}

TEST_CASE("torch 2.6's torch.export.save archive yields torch's weights", "[pt2][export-archives]")
{
    // serialized_state_dict.pt (parameters, persistent buffers, one of them a
    // transposed view) and serialized_constants.pt (a non-persistent buffer, a
    // lifted tensor constant) are torch.save zips inside the archive.
    checkWeights("save.pt2");
    auto model = readExportedProgramFile(archives().file("save.pt2"));
    REQUIRE(model.hasValue());
    CHECK(model->graph.metadata().at("source.format") == "torch.export (.pt2, torch.export.save layout)");
    CHECK(model->graph.metadata().at("torch_export.schema_version") == "8.2");
    CHECK(model->graph.metadata().at("torch_export.archive_version") == "8.2");
}

TEST_CASE("early archives with a bare-number schema_version read, with their weights", "[pt2][export-archives]")
{
    // torch 2.2 wrote "schema_version": 3 (pytorch/pytorch#115712, on release/2.2
    // as #115952; {major, minor} came with #116462 for 2.3), torch 2.1 wrote 1
    // with its older graph signature, TensorValue{meta} entries, graph.constants
    // and serialized_state_dict.json. The script rewrites torch 2.6's archive
    // into those forms (tests/pt2/scripts/export_archives.py says how).
    for (const auto &[file, version] : {std::pair{"schema3.pt2", "3"}, std::pair{"schema1.pt2", "1"}}) {
        INFO(file);
        auto model = readExportedProgramFile(archives().file(file));
        REQUIRE(model.hasValue());
        CHECK(model->warnings.empty());
        CHECK(model->graph.metadata().at("torch_export.schema_version") == version);
        CHECK(model->graph.metadata().at("torch_export.archive_version") == version);
        checkWeights(file);
    }
    // torch 2.1's "key:(path,type)" module stacks still give scopes.
    auto model = readExportedProgramFile(archives().file("schema1.pt2"));
    REQUIRE(model.hasValue());
    const NodeId linear = model->graph.findByName("linear");
    REQUIRE(linear.isValid());
    CHECK(model->graph.node(linear)->provenance.scope == "fc");
}

TEST_CASE("the pt2 package layout yields raw and pickled payloads", "[pt2][export-archives]")
{
    checkWeights("package.pt2");
    auto model = readExportedProgramFile(archives().file("package.pt2"));
    REQUIRE(model.hasValue());
    CHECK(model->graph.metadata().at("source.format") == "torch.export");
    CHECK(model->graph.metadata().at("torch_export.model") == "model");
}

TEST_CASE("malformed torch.export archives: one line naming the file and what was expected", "[pt2][export-archives]")
{
    const Archives &a = archives();
    const std::string bad = a.file("bad-schema-version.pt2");
    auto model = readExportedProgramFile(bad);
    REQUIRE_FALSE(model.hasValue());
    CHECK(model.error().message
          == bad
                 + "/serialized_exported_program.json: schema_version: expected a schema version ({major, minor} "
                   "or a number), found string \"3\"");
    RunResult r = runPass("inspect " + bad + " --json");
    CHECK(r.exitCode != 0);
    CHECK(r.output.find(model.error().message) != std::string::npos);

    // A broken state dict leaves the graph open, its weights named in one warning.
    const std::string brokenState = a.file("bad-state-dict.pt2");
    auto opened = readExportedProgramFile(brokenState);
    REQUIRE(opened.hasValue());
    std::string keys;
    for (const auto &key : a.result["state_dict_keys"])
        keys += (keys.empty() ? "" : ", ") + key.get<std::string>();
    REQUIRE(opened->warnings.size() == 1);
    CHECK(opened->warnings[0]
          == brokenState + ": weights not loaded: " + keys + " (" + brokenState
                 + "/serialized_state_dict.pt: archive/data.pkl: the pickle ends without STOP at byte 12)");
    // The constants file is whole: its tensors still load.
    CHECK(opened->graph.weights().contains("shift"));
    CHECK(opened->graph.weights().contains("scale"));
}
