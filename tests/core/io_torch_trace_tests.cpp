// The TORCH_TRACE log reader (core/io/TorchTrace.h): logs written here, whose
// structure is known line by line, and the six public sample logs of
// ../shared/pt2-samples/trace (tlparse's test inputs), whose counts were taken
// with a separate script (grep for the glog prefix, json.loads of each
// envelope: the figures below).

#include "FxTestSchemas.h"
#include "core/io/TorchTrace.h"
#include "core/io/TorchTraceGraphs.h"
#include "core/io/TorchTraceLines.h"

#include <catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

using namespace fusebox;
namespace fs = std::filesystem;

namespace {

const char *kGraph = R"(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 8][8, 1]cpu"):
        l_x_ = L_x_
        relu: "f32[4, 8][8, 1]cpu" = torch.relu(l_x_);  l_x_ = None
        sigmoid: "f32[4, 8][8, 1]cpu" = torch.sigmoid(relu);  relu = None
        return (sigmoid,)
        )";

/// One envelope line (and its payload) as torch/_logging/_internal.py writes it.
std::string envelope(const std::string &json, const std::string *payload = nullptr)
{
    std::string line = "V1207 10:00:00.000000 4242 torch/_logging/structured.py:22] " + json;
    if (payload) {
        line.insert(line.size() - 1, ", \"has_payload\": \"" + md5Hex(*payload) + "\"");
        size_t start = 0;
        while (true) {
            const size_t end = payload->find('\n', start);
            line += "\n\t" + payload->substr(start, end == std::string::npos ? std::string::npos : end - start);
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
    }
    return line + "\n";
}

std::string ids(int frame, int compile, int attempt = 0)
{
    return "\"frame_id\": " + std::to_string(frame) + ", \"frame_compile_id\": " + std::to_string(compile)
           + ", \"attempt\": " + std::to_string(attempt);
}

std::string writeLog(const std::string &name, const std::string &text)
{
    const fs::path dir = fs::path(FUSEBOX_BINARY_DIR) / "test-output" / "torch-trace";
    fs::create_directories(dir);
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

/// A log of two compiles: 0/0 with three graphs (a fusion pass logged between
/// before and after), 0/1 served from the FX graph cache, and one broken line.
std::string twoCompileLog()
{
    const std::string graph = kGraph;
    const std::string version = "{\n\"pytorch_version\": \"2.14.1\"\n}";
    const std::string reasons = "[\n\"0/0: tensor 'x' size mismatch at index 0. expected 4, actual 8\"\n]";
    std::string log;
    log += envelope(R"({"artifact": {"name": "torch_version", "encoding": "json"}})", &version);
    log += envelope(R"({"str": ["/src/model.py", 0]})");
    log += envelope("{\"dynamo_start\": {\"stack\": [{\"line\": 12, \"name\": \"forward\", \"filename\": 0}]}, "
                    + ids(0, 0) + "}");
    log += envelope("{\"dynamo_output_graph\": {}, " + ids(0, 0) + "}", &graph);
    log += envelope("{\"artifact\": {\"name\": \"before_pre_grad_graph\", \"encoding\": \"string\"}, " + ids(0, 0) + "}",
                    &graph);
    log += envelope("{\"chromium_event\": {}, " + ids(0, 0) + "}", &reasons); // skipped, payload and all
    log += envelope("{\"artifact\": {\"name\": \"optimus_BatchReLuPreGradFusion\", \"encoding\": \"string\"}, "
                        + ids(0, 0) + "}",
                    &graph);
    log += "W1207 10:00:01.000000 4242 torch/x.py:1] {\"broken\": \n"; // line 26 (counted below)
    log += envelope("{\"artifact\": {\"name\": \"after_pre_grad_graph\", \"encoding\": \"string\"}, " + ids(0, 0) + "}",
                    &graph);
    log += envelope("{\"artifact\": {\"name\": \"fx_graph_cache_miss\", \"encoding\": \"json\"}, " + ids(0, 0) + "}",
                    &version);
    log += "some other logging line, skipped as tlparse skips it\n";
    log += envelope("{\"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, " + ids(0, 1) + "}",
                    &reasons);
    log += envelope("{\"dynamo_output_graph\": {}, " + ids(0, 1) + "}", &graph);
    log += envelope("{\"artifact\": {\"name\": \"fx_graph_cache_hit\", \"encoding\": \"json\"}, " + ids(0, 1) + "}",
                    &version);
    log += envelope(
        R"({"compilation_metrics": {"compile_id": "0/1", "co_name": "forward", "co_filename": "/src/model.py", "co_firstlineno": 12, "fail_type": null, "fail_reason": null}})");
    return log;
}

int lineOf(const std::string &text, const std::string &needle)
{
    const size_t at = text.find(needle);
    REQUIRE(at != std::string::npos);
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

} // namespace

TEST_CASE("A TORCH_TRACE log is indexed compile by compile, payloads by range", "[torch_trace]")
{
    const std::string text = twoCompileLog();
    const std::string path = writeLog("two_compiles.log", text);
    REQUIRE(isTorchTracePath(path));
    auto log = indexTorchTrace(path);
    REQUIRE(log);
    CHECK(log->torchVersion == "2.14.1");
    REQUIRE(log->compiles.size() == 2);
    const TraceCompile &first = log->compiles[0];
    CHECK(first.id.str() == "0/0");
    CHECK(first.frame == "forward (model.py:12)");
    CHECK(first.cacheEvents == std::vector<std::string>{"fx_graph_cache_miss"});
    CHECK_FALSE(first.fxGraphCacheHit());
    REQUIRE(first.graphs().size() == 4);
    CHECK(first.graphs()[2]->kind == "optimus_BatchReLuPreGradFusion");
    CHECK(first.graphs()[2]->line == lineOf(text, "optimus_BatchReLuPreGradFusion"));
    const TraceCompile &second = log->compiles[1];
    CHECK(second.id.str() == "0/1");
    CHECK(second.fxGraphCacheHit());
    CHECK(second.recompileReason == "0/0: tensor 'x' size mismatch at index 0. expected 4, actual 8");
    CHECK(second.frame == "forward (model.py:12)");
    // The broken line is one warning with its line number; the rest was read.
    REQUIRE(log->warnings.size() == 1);
    CHECK(log->warnings[0].rfind("two_compiles.log:" + std::to_string(lineOf(text, "{\"broken\"")) + ": ", 0) == 0);

    // Every payload reads back as it was written, its md5 checked.
    for (const TraceLog::GraphRef &graph : log->graphs()) {
        std::vector<std::string> warnings;
        auto payload = readTracePayload(*log, *graph.payload, &warnings);
        REQUIRE(payload);
        CHECK(*payload == kGraph);
        CHECK(warnings.empty());
    }
}

TEST_CASE("A graph inside a log opens by its address, as a file would", "[torch_trace]")
{
    const std::string path = writeLog("addressed.log", twoCompileLog());
    auto log = indexTorchTrace(path);
    REQUIRE(log);
    const FxReadOptions options{.schemas = &fxtest::testSchemas()};
    size_t opened = 0;
    for (const TraceLog::GraphRef &graph : log->graphs()) {
        const TraceGraphAddress address = traceGraphAddress(*log, graph);
        auto parsed = TraceGraphAddress::parse(address.str());
        REQUIRE(parsed);
        auto found = findTraceGraph(*log, *parsed);
        REQUIRE(found);
        CHECK(found->payload == graph.payload);
        auto model = readTraceGraph(*log, graph, options);
        REQUIRE(model);
        // input, relu, sigmoid, output
        CHECK(model->graph.size() == 4);
        CHECK(model->graph.metadata().at("source.path") == path + "#" + address.str());
        ++opened;
    }
    CHECK(opened == 5);

    auto split = splitTraceGraphPath(path + "#0/0/before_pre_grad_graph");
    REQUIRE(split);
    CHECK(split->first == path);
    auto text = readGraphSourceText(path + "#0/0/before_pre_grad_graph");
    REQUIRE(text);
    CHECK(*text == kGraph);
    auto missing = locateTraceGraph(path + "#0/0/after_post_grad_graph");
    REQUIRE(missing);
    REQUIRE_FALSE(*missing);
    CHECK(missing->error().message.find("it has dynamo_output_graph, before_pre_grad_graph") != std::string::npos);
    auto noCompile = locateTraceGraph(path + "#3/0/dynamo_output_graph");
    REQUIRE(noCompile);
    REQUIRE_FALSE(*noCompile);
    CHECK(noCompile->error().message.find("no compile 3/0") != std::string::npos);
}

TEST_CASE("Compile ids and graph addresses are written and read as PyTorch writes them", "[torch_trace]")
{
    for (const char *text : {"0/0", "0/1_1", "!2/0/0", "!2", "3/7@2", "0/0_1@3"}) {
        auto id = TraceCompileId::parse(text);
        REQUIRE(id);
        CHECK(id->str() == text);
    }
    for (const char *bad : {"", "0", "0/x", "a/b/c", "0/0_", "!x", "0/0@1", "0/0/0/0"})
        CHECK_FALSE(TraceCompileId::parse(bad));
    auto ranked = TraceGraphAddress::parse("1/0/0/optimus_PreGradBatchLinearFusion");
    REQUIRE(ranked);
    CHECK(ranked->rank == 1);
    CHECK(ranked->compileId.str() == "0/0");
    auto dotted = TraceGraphAddress::parse("0/0/torch._functorch.config");
    REQUIRE(dotted);
    CHECK(dotted->kind == "torch._functorch.config");
    CHECK(dotted->occurrence == 0);
    auto second = TraceGraphAddress::parse("0/0/aot_forward_graph.1");
    REQUIRE(second);
    CHECK(second->kind == "aot_forward_graph");
    CHECK(second->occurrence == 1);
    auto autograd = TraceGraphAddress::parse("2/!1/0/0/dynamo_output_graph");
    REQUIRE(autograd);
    CHECK(autograd->rank == 2);
    CHECK(autograd->compileId.str() == "!1/0/0");
}

TEST_CASE("A damaged log reads as far as it goes, each damage one warning", "[torch_trace]")
{
    std::string text = twoCompileLog();
    SECTION("an edited payload: md5 mismatch")
    {
        const size_t at = text.find("torch.sigmoid");
        text.replace(at, 13, "torch.tanh   ");
        auto log = indexTorchTrace(writeLog("edited.log", text));
        REQUIRE(log);
        std::vector<std::string> warnings;
        auto payload = readTracePayload(*log, *log->graphs().front().payload, &warnings);
        REQUIRE(payload);
        REQUIRE(warnings.size() == 1);
        CHECK(warnings[0].find("md5") != std::string::npos);
        CHECK(warnings[0].rfind("edited.log:", 0) == 0);
    }
    SECTION("a log cut mid-line")
    {
        text.resize(text.find("optimus_BatchReLuPreGradFusion") + 300);
        auto log = indexTorchTrace(writeLog("cut.log", text));
        REQUIRE(log);
        REQUIRE(log->warnings.size() == 1);
        CHECK(log->warnings[0].find("ends mid-line") != std::string::npos);
        CHECK(log->warnings[0].find("optimus_BatchReLuPreGradFusion payload") != std::string::npos);
        // The graphs before the cut are all there.
        CHECK(log->graphs().size() == 3);
    }
    SECTION("bytes that are not UTF-8")
    {
        const std::string envelope = "{\"artifact\": {\"name\": \"after_pre_grad_graph\", \"encoding\": \"string";
        text.insert(text.find(envelope) + envelope.size(), "\xff\xfe");
        auto log = indexTorchTrace(writeLog("binary.log", text));
        REQUIRE(log);
        CHECK(log->warnings.size() == 2); // the broken line and this one
        CHECK(log->graphs().size() == 4);
    }
}

TEST_CASE("An artifact named otherwise than Inductor names its graphs is listed, not addressed as a graph",
          "[torch_trace]")
{
    // Found by torch_trace_fuzz: a damaged artifact name that looked like a
    // graph's gave an address that did not read back.
    const std::string graph = kGraph;
    const std::string odd = "before_pre_grad:00:00.000000 4242 torch/_loggin_graph";
    std::string text;
    text += envelope("{\"dynamo_output_graph\": {}, " + ids(0, 0) + "}", &graph);
    text += envelope("{\"artifact\": {\"name\": \"" + odd + "\", \"encoding\": \"string\"}, " + ids(0, 0) + "}", &graph);
    auto log = indexTorchTrace(writeLog("odd_name.log", text));
    REQUIRE(log);
    REQUIRE(log->graphs().size() == 1);
    CHECK(log->graphs().front().payload->kind == "dynamo_output_graph");
    REQUIRE(log->compiles.size() == 1);
    CHECK(std::any_of(log->compiles.front().payloads.begin(), log->compiles.front().payloads.end(),
                      [&](const TracePayload &p) { return p.kind == odd && !p.isGraph; }));
    for (const TraceLog::GraphRef &g : log->graphs()) {
        const std::string address = traceGraphAddress(*log, g).str();
        auto parsed = TraceGraphAddress::parse(address);
        REQUIRE(parsed);
        CHECK(parsed->str() == address);
    }
    CHECK_FALSE(isTraceGraphKind(odd));
    CHECK(isTraceGraphKind("optimus_PreGradBatchLinearFusion"));
}

TEST_CASE("A Dynamo reset numbers compiles again: the second 0/0 is 0/0@2", "[torch_trace]")
{
    const std::string graph = kGraph;
    std::string text;
    for (int run = 0; run < 2; ++run) {
        text += envelope("{\"dynamo_start\": {\"stack\": []}, " + ids(0, 0) + "}");
        text += envelope("{\"dynamo_output_graph\": {}, " + ids(0, 0) + "}", &graph);
    }
    auto log = indexTorchTrace(writeLog("reset.log", text));
    REQUIRE(log);
    REQUIRE(log->compiles.size() == 2);
    CHECK(log->compiles[1].id.str() == "0/0@2");
    auto address = TraceGraphAddress::parse("0/0@2/dynamo_output_graph");
    REQUIRE(address);
    auto found = findTraceGraph(*log, *address);
    REQUIRE(found);
    CHECK(found->compile == &log->compiles[1]);
}

TEST_CASE("An address without a rank names the unranked compile or the one rank that has it", "[torch_trace]")
{
    // Found by torch_trace_fuzz: in a log holding 0/0 on rank 1 and 0/0 with
    // no rank, the unranked graph's address found rank 1's.
    const std::string graph = kGraph;
    auto compile = [&](const std::string &rank) {
        return envelope("{\"dynamo_output_graph\": {}, " + ids(0, 0) + rank + "}", &graph);
    };
    auto log = indexTorchTrace(writeLog("mixed_ranks.log", compile(", \"rank\": 1") + compile("")));
    REQUIRE(log);
    REQUIRE(log->graphs().size() == 2);
    for (const TraceLog::GraphRef &g : log->graphs()) {
        const TraceGraphAddress address = traceGraphAddress(*log, g);
        INFO(address.str());
        auto found = findTraceGraph(*log, address);
        REQUIRE(found);
        CHECK(found->payload == g.payload);
    }
    CHECK(traceGraphAddress(*log, log->graphs()[0]).str() == "1/0/0/dynamo_output_graph");
    CHECK(traceGraphAddress(*log, log->graphs()[1]).str() == "0/0/dynamo_output_graph");

    // Ranks alone: the rank may be left out where one rank has the compile,
    // and must be named where several do.
    auto one = indexTorchTrace(writeLog("one_rank.log", compile(", \"rank\": 3")));
    REQUIRE(one);
    auto found = findTraceGraph(*one, *TraceGraphAddress::parse("0/0/dynamo_output_graph"));
    REQUIRE(found);
    CHECK(found->compile->rank == 3);
    auto two = indexTorchTrace(writeLog("two_ranks.log", compile(", \"rank\": 0") + compile(", \"rank\": 1")));
    REQUIRE(two);
    auto ambiguous = findTraceGraph(*two, *TraceGraphAddress::parse("0/0/dynamo_output_graph"));
    REQUIRE_FALSE(ambiguous);
    CHECK(ambiguous.error().message.find("compile 0/0 ran on 2 ranks (0, 1): name one, as RANK/0/0/dynamo_output_graph")
          != std::string::npos);
    CHECK(findTraceGraph(*two, *TraceGraphAddress::parse("1/0/0/dynamo_output_graph")));
}

TEST_CASE("The public sample logs: every graph found and opened", "[torch_trace]")
{
    const fs::path samples = fs::path(FUSEBOX_SOURCE_DIR) / ".." / "shared" / "pt2-samples" / "trace";
    REQUIRE(fs::is_directory(samples));
    struct Expected {
        size_t compiles, graphs;
    };
    // Counted apart from Fusebox: envelopes with has_payload whose key (or
    // artifact name) is a graph kind, and distinct compile ids (a Dynamo
    // reset starts a new compile).
    const std::map<std::string, Expected> expected = {
        {"artifacts.log", {1, 2}},
        {"cache_hit_miss.log", {6, 11}},
        {"comp_failure.log", {1, 1}},
        {"export.log", {0, 0}},
        {"multi_rank_logs_dedicated_log_torch_trace_rank_1.log", {15, 80}},
        {"simple.log", {1, 3}},
    };
    for (const auto &[name, counts] : expected) {
        INFO(name);
        auto log = indexTorchTrace((samples / name).string());
        REQUIRE(log);
        CHECK(log->compiles.size() == counts.compiles);
        CHECK(log->graphs().size() == counts.graphs);
        // export.log's six non-JSON lines are other logging (tlparse skips them too).
        CHECK(log->warnings.empty());
        for (const TraceLog::GraphRef &graph : log->graphs()) {
            auto model = readTraceGraph(*log, graph, {.schemas = &fxtest::testSchemas()});
            INFO(traceGraphAddress(*log, graph).str());
            CHECK(model);
            if (model)
                CHECK(model->graph.size() > 1);
        }
    }
    // The multi-rank sample: rank from the file name, 10 of its 15 compiles
    // served from the FX graph cache.
    auto ranked = indexTorchTrace((samples / "multi_rank_logs_dedicated_log_torch_trace_rank_1.log").string());
    REQUIRE(ranked);
    CHECK(ranked->compiles.front().rank == 1);
    CHECK(std::count_if(ranked->compiles.begin(), ranked->compiles.end(),
                        [](const TraceCompile &c) { return c.fxGraphCacheHit(); })
          == 10);
    auto failed = indexTorchTrace((samples / "comp_failure.log").string());
    REQUIRE(failed);
    CHECK_FALSE(failed->compiles.front().failure.empty());
}

TEST_CASE("A compile's Optimus steps: the pre-grad passes, then the post-grad ones from before_post_grad_graph",
          "[torch_trace]")
{
    const std::string graph = kGraph;
    auto artifact = [&](const std::string &name) {
        return envelope("{\"artifact\": {\"name\": \"" + name + "\", \"encoding\": \"string\"}, " + ids(0, 0) + "}",
                        &graph);
    };
    std::string text;
    text += envelope("{\"dynamo_output_graph\": {}, " + ids(0, 0) + "}", &graph);
    for (const char *name :
         {"before_pre_grad_graph", "optimus_BatchReLuPreGradFusion", "after_pre_grad_graph", "before_joint_graph",
          "before_post_grad_graph", "optimus_BatchAddPostGradFusion", "split_cat_aten_pass_post_grad"})
        text += artifact(name);
    text += envelope("{\"inductor_post_grad_graph\": {}, " + ids(0, 0) + "}", &graph);
    auto log = indexTorchTrace(writeLog("optimus_stages.log", text));
    REQUIRE(log);
    REQUIRE(log->compiles.size() == 1);
    std::vector<std::string> kinds;
    for (const TracePayload *payload : optimusStepsOf(log->compiles[0]))
        kinds.push_back(payload->kind);
    // Counted by hand from the log above: the joint graph and the envelope
    // graphs are no Optimus stage.
    CHECK(kinds
          == std::vector<std::string>{"before_pre_grad_graph", "optimus_BatchReLuPreGradFusion", "after_pre_grad_graph",
                                      "before_post_grad_graph", "optimus_BatchAddPostGradFusion",
                                      "split_cat_aten_pass_post_grad"});
    const auto steps = optimusStepsOf(log->compiles[0]);
    CHECK(isOptimusStart(*steps[0]));
    CHECK(isOptimusStart(*steps[3]));
    CHECK_FALSE(isOptimusStart(*steps[4]));

    // No post-grad pass logged: the sequence ends at after_pre_grad_graph.
    std::string preOnly;
    for (const char *name : {"before_pre_grad_graph", "after_pre_grad_graph", "before_post_grad_graph"})
        preOnly += artifact(name);
    auto pre = indexTorchTrace(writeLog("optimus_pre_only.log", preOnly));
    REQUIRE(pre);
    CHECK(optimusStepsOf(pre->compiles[0]).size() == 2);
}
