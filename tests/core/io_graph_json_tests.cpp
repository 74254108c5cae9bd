#include "core/ir/GraphBuilder.h"
#include "TestGraphs.h"

#include "core/io/Base64.h"
#include "core/io/GraphJson.h"
#include "core/ir/GraphCompare.h"
#include "core/ir/Verifier.h"

#include <catch.hpp>

#include <cmath>

using namespace fusebox;

namespace {

std::string errorOf(const std::string &text)
{
    auto result = readGraphJson(text, "g.json");
    REQUIRE_FALSE(result.hasValue());
    return result.error().message;
}

const char *kMinimal = R"({"format": "fusebox-graph", "version": 1, "nodes": [
  {"name": "x", "kind": "input", "type": "Tensor"},
  {"name": "r", "kind": "op", "op": "aten::relu", "type": "Tensor", "args": [{"ref": "x"}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "r"}]]}]})";

} // namespace

TEST_CASE("graph JSON round-trips every kind of argument and metadata", "[io]")
{
    Graph g = test::splitReluCatGraph();
    GraphBuilder build = GraphBuilder::reopen(g);
    build.metadata()["source.format"] = "hand-built";
    NodeId x = g.findByName("x");
    build.addOp("aten::fancy",
                {NoneArg{}, true, int64_t(-3), 2.5, std::nan(""), HUGE_VAL, std::string("mean"), DType::BFloat16,
                 Device{"cuda", 1}, Arg::list({x, Arg::list({int64_t(1), int64_t(2)}, ArgList::Kind::Tuple)}),
                 Arg::list({int64_t(0), NoneArg{}, int64_t(2)}, ArgList::Kind::Slice)},
                {{"dim", int64_t(1)}, {"alpha", 0.1}});
    build.node(g.findByName("fancy")).opaqueBody = "block0():\n  -> ()";
    build.node(g.findByName("fancy")).provenance.createdBy = "batch_linear#1";

    std::string text = writeGraphJson(g);
    auto back = readGraphJson(text, "mem.json");
    REQUIRE(back.hasValue());
    CHECK(verify(back->graph).empty());
    auto diff = firstDifference(g, back->graph);
    INFO(diff.value_or(""));
    CHECK_FALSE(diff.has_value());
    CHECK(writeGraphJson(back->graph) == text);

    // NaN compares unequal to itself; check it came back as NaN.
    const Arg &nanArg = back->graph.node(back->graph.findByName("fancy"))->args()[4];
    CHECK(std::isnan(std::get<double>(nanArg.value)));
}

TEST_CASE("graph JSON embeds weights when asked", "[io]")
{
    Graph g = test::splitReluCatGraph();
    Weight w;
    w.meta = TensorMeta{DType::Float32, std::vector<Dim>{int64_t(2)}, {}, {}};
    w.data = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
              std::byte{5}, std::byte{6}, std::byte{7}, std::byte{255}};
    GraphBuilder::reopen(g).weights().put("w", w);

    auto without = readGraphJson(writeGraphJson(g), "a.json");
    REQUIRE(without.hasValue());
    CHECK(without->graph.weights().size() == 0);

    auto with = readGraphJson(writeGraphJson(g, {.embedWeights = true}), "b.json");
    REQUIRE(with.hasValue());
    REQUIRE(with->graph.weights().get("w"));
    CHECK(with->graph.weights().get("w")->data == w.data);
    CHECK(with->graph.weights().get("w")->meta == w.meta);
}

TEST_CASE("base64 encodes and rejects malformed text", "[io]")
{
    for (size_t n = 0; n < 8; ++n) {
        std::vector<std::byte> bytes;
        for (size_t i = 0; i < n; ++i)
            bytes.push_back(std::byte(i * 37 + 1));
        auto back = decodeBase64(encodeBase64(bytes));
        REQUIRE(back);
        CHECK(*back == bytes);
    }
    CHECK(encodeBase64({std::byte('M'), std::byte('a')}) == "TWE=");
    CHECK_FALSE(decodeBase64("TWE"));
    CHECK_FALSE(decodeBase64("T=E="));
    CHECK_FALSE(decodeBase64("TW!="));
}

TEST_CASE("graph JSON errors name the JSON path or the line", "[io]")
{
    REQUIRE(readGraphJson(kMinimal, "g.json").hasValue());

    CHECK(errorOf("{\"format\": \"fusebox-graph\",\n \"version\": }")
          == "g.json:2:13: invalid JSON: syntax error while parsing value - unexpected '}'; "
             "expected '[', '{', or a literal");
    CHECK(errorOf(R"({"format": "onnx", "version": 1, "nodes": []})")
          == "g.json: /format: expected \"fusebox-graph\", found string \"onnx\"");
    CHECK(errorOf(R"({"format": "fusebox-graph", "version": 7, "nodes": []})")
          == "g.json: /version: version 7 is not supported (this Fusebox reads 1..1)");
    CHECK(errorOf(R"({"format": "fusebox-graph", "version": 1})") == "g.json: /nodes: missing");

    std::string badRef = kMinimal;
    badRef.replace(badRef.find("{\"ref\": \"x\"}"), 12, "{\"ref\": \"y\"}");
    CHECK(errorOf(badRef) == "g.json: /nodes/1/args/0/ref: unknown node 'y' (nodes must be listed before their users)");

    std::string badKind = kMinimal;
    badKind.replace(badKind.find("\"op\", \"op\""), 10, "\"opp\", \"op\"");
    CHECK(errorOf(badKind) == "g.json: /nodes/1/kind: expected input, op, constant or output, found 'opp'");

    std::string badDtype = kMinimal;
    badDtype.replace(badDtype.find("\"type\": \"Tensor\"}"), 17,
                     "\"type\": \"Tensor\", \"meta\": {\"dtype\": \"f33\"}}");
    CHECK(errorOf(badDtype) == "g.json: /nodes/0/meta/dtype: unknown dtype 'f33'");

    std::string badShape = kMinimal;
    badShape.replace(badShape.find("\"type\": \"Tensor\"}"), 17,
                     "\"type\": \"Tensor\", \"meta\": {\"shape\": [1, 2.5]}}");
    CHECK(errorOf(badShape) == "g.json: /nodes/0/meta/shape/1: expected an integer, found number 2.5");

    std::string noOutput
        = R"({"format": "fusebox-graph", "version": 1, "nodes": [{"name": "x", "kind": "input", "type": "Tensor"}]})";
    CHECK(errorOf(noOutput) == "g.json: /nodes: no node of kind \"output\"");

    std::string dup = kMinimal;
    dup.replace(dup.find("\"name\": \"r\""), 11, "\"name\": \"x\"");
    CHECK(errorOf(dup) == "g.json: /nodes/1/name: duplicate node name 'x'");
}

TEST_CASE("graph JSON file errors name the path", "[io]")
{
    auto missing = loadGraphJson("/nonexistent/dir/g.json");
    REQUIRE_FALSE(missing.hasValue());
    CHECK(missing.error().message == "/nonexistent/dir/g.json: cannot open for reading");
    Graph g = test::splitReluCatGraph();
    Status s = saveGraphJson(g, "/nonexistent/dir/out.json");
    REQUIRE_FALSE(s.isOk());
    CHECK(s.error().message == "/nonexistent/dir/out.json: cannot open for writing");
}
