// What the fuzz targets of the JSON and archive readers found (fuzz/*_fuzz.cpp
// other than fx_text, whose findings are in io_fx_fuzz_findings_tests.cpp),
// one case each, on the smallest input that showed it.

#include "core/io/ExportedProgram.h"
#include "core/io/GraphJson.h"
#include "core/io/PassConfig.h"

#include <catch.hpp>

using namespace fusebox;

TEST_CASE("JSON fuzz findings: a key with a line break is escaped in the error's path, which stays one line",
          "[io][fuzz]")
{
    // pass_config_fuzz: the number overflow's path quoted the key as it was.
    auto overflow = readPassConfig("{\"pre_grad_fusion_options\": {\"a\\nb\": {\"c\": 1e999}}}", "p.json");
    REQUIRE_FALSE(overflow.hasValue());
    CHECK(overflow.error().message
          == "p.json:1:44: at pre_grad_fusion_options.a\\nb.c: number overflow parsing '1e999' (it does not fit a "
             "double)");
    auto rule = readPassConfig("{\"pre_grad_fusion_options\": {\"a\\nb\\t\\u0001\": 5}}", "p.json");
    REQUIRE_FALSE(rule.hasValue());
    CHECK(rule.error().message
          == "p.json: /pre_grad_fusion_options/a\\nb\\t\\x01: expected an object of options, found number 5");
    auto meta = readGraphJson("{\"format\": \"fusebox-graph\", \"version\": 1, \"metadata\": {\"x\\ny\": 1}, \"nodes\": []}",
                              "g.json");
    REQUIRE_FALSE(meta.hasValue());
    CHECK(meta.error().message == "g.json: /metadata/x\\ny: expected a string, found number 1");
}
