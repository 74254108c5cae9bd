// Real PyTorch 2 files in place of hand-written ones: the Dynamo graph, the
// bare ExportedProgram JSON and the .pt2 archive torch 2.6 writes for one
// small split/cat model, read through the CLI. (The hand-written
// tests/fixtures/pt2/split_cat_linear.json stays only for the core unit
// tests of the JSON decoder, which run without PyTorch 2.)
#include "Pt2TestSupport.h"

using namespace fusebox;
using namespace fusebox::testing;

TEST_CASE("a generated Dynamo graph reads with the ops PyTorch recorded", "[pt2][fixtures]")
{
    const Capture &c = captured("tests/pt2/models/split_cat_linear.py");
    auto dynamo = inspectJson(c.file("dynamo.py"));
    CHECK(dynamo["format"] == "fx-text");
    CHECK(dynamo["op_histogram"]["aten::cat"] == 1);
    CHECK(dynamo["op_histogram"]["aten::split"] == 1);
    CHECK(fuseboxHistogram(dynamo) == normalisedHistogram(c.result.histograms.at("exported.pt2")));
}

TEST_CASE("fusebox-pass opens torch 2.6's torch.export programs, bare and archived", "[pt2][fixtures][cli]")
{
    const Capture &c = captured("tests/pt2/models/split_cat_linear.py");
    const auto pytorch = normalisedHistogram(c.result.histograms.at("exported.pt2"));
    int64_t ops = 0;
    for (const auto &[op, n] : pytorch)
        ops += n;
    for (const char *file : {"exported_program.json", "exported.pt2"}) {
        INFO(file);
        auto inspected = inspectJson(c.file(file));
        CHECK(inspected["format"].get<std::string>().rfind("torch.export", 0) == 0);
        CHECK(fuseboxHistogram(inspected) == pytorch);
        CHECK(inspected["ops"] == ops);
        // The engine's rules work on it unchanged.
        RunResult matches = runPass("matches " + c.file(file));
        INFO(matches.output);
        CHECK(matches.exitCode == 0);
        // ... and it converts to FX text that reads back with the same ops.
        const std::string text = c.file(std::string(file) + ".converted.py");
        RunResult converted = runPass("convert " + c.file(file) + " -o " + text);
        INFO(converted.output);
        REQUIRE(converted.exitCode == 0);
        CHECK(fuseboxHistogram(inspectJson(text)) == pytorch);
    }
}
