// Exported Inductor patterns, run for real: each example pattern file,
// exported with `--to inductor` and applied with apply(gm) in PyTorch 2,
// makes as many replacements as Fusebox's engine on the same graph, and the
// outputs stay equal.
#include "Pt2TestSupport.h"

#include "core/io/PatternFile.h"
#include "patterns/custom/PatternExport.h"

#include <filesystem>
#include <set>

using namespace fusebox;
using namespace fusebox::testing;

TEST_CASE("every example pattern file, exported to Inductor, replaces what Fusebox replaces", "[pt2][patterns]")
{
    const Capture &c = captured("tests/pt2/models/pattern_targets.py");
    const std::string graph = c.file("exported.py");
    const std::string work = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/patterns";
    std::filesystem::create_directories(work);
    std::ofstream(work + "/no-builtins.json") << "{}\n";

    int checkedFiles = 0;
    for (const auto &entry : std::filesystem::directory_iterator(sourcePath("resources/patterns"))) {
        const std::string path = entry.path().string();
        INFO(path);
        auto file = readPatternFile(path);
        REQUIRE(file.hasValue());
        PatternExport exported = exportInductorPatterns(*file);
        CHECK(exported.text.find("def apply(gm):") != std::string::npos);

        // Fusebox runs exactly the patterns the module holds.
        std::set<std::string> skipped;
        for (const auto &[name, why] : exported.skipped)
            skipped.insert(name);
        PatternFile subset = *file;
        std::erase_if(subset.patterns, [&](const auto &d) { return skipped.count(d.name) != 0; });
        if (subset.patterns.empty()) {
            WARN(path << ": no pattern can be exported to Inductor (" << exported.skipped.front().second << ")");
            continue;
        }
        const std::string stem = entry.path().stem().string();
        const std::string subsetPath = work + "/" + stem + ".patterns";
        std::ofstream(subsetPath) << writePatternFile(subset);
        RunResult run = runPass("run " + graph + " --patterns " + subsetPath + " --config " + work
                                + "/no-builtins.json --verify -o " + work + "/" + stem + "_fusebox.py --report " + work
                                + "/" + stem + "_report.json");
        INFO(run.output);
        REQUIRE(run.exitCode == 0);
        auto report = nlohmann::json::parse(readFile(work + "/" + stem + "_report.json"));
        int64_t fuseboxApplied = 0;
        for (const auto &[name, counter] : report["counters"].items())
            fuseboxApplied += counter["applied"].get<int64_t>();
        CHECK(report["verification"]["passed"] == true);

        auto applied = pt2Bridge().applyPatterns(exported.text, readFile(graph));
        REQUIRE(applied.hasValue());
        INFO(applied->message);
        CHECK(applied->replacements == fuseboxApplied);
        CHECK(applied->replacements > 0);
        CHECK(applied->outputsEqual);
        CHECK(applied->maxAbsDiff <= 1e-4);
        ++checkedFiles;
    }
    CHECK(checkedFiles >= 2);
}
