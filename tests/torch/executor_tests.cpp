// The executor, the numeric verifier and the latency benchmark (core/torch/).
// References: libtorch running the original archive (runTorchScriptModule,
// torch::jit::load + forward, no freezing); Python checks the exporter.
#include "Fixtures.h"
#include "core/ir/GraphBuilder.h"
#include <catch.hpp>

#include "ExecutorTestGraphs.h"

#include "core/io/GraphJson.h"
#include "core/rewrite/PatternRewriter.h"
#include "core/torch/Executor.h"
#include "core/torch/LatencyBenchmark.h"
#include "core/torch/LatencyComparison.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/NumericVerifier.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

using namespace fusebox;

namespace {

LoadedModel load(const std::string &path)
{
    auto model = loadModel(path);
    if (!model)
        FAIL(model.error().message);
    return std::move(model).value();
}

std::vector<HostTensor> inputsOrFail(const Graph &g, uint64_t seed)
{
    auto inputs = randomInputs(g, seed);
    if (!inputs)
        FAIL(inputs.error().message);
    return std::move(inputs).value();
}

const Node *lastWithOp(const Graph &g, std::string_view op)
{
    const Node *found = nullptr;
    for (NodeId id : g.nodeIds())
        if (g.node(id)->op == op)
            found = g.node(id);
    return found;
}

std::vector<int64_t> int64s(const HostTensor &t)
{
    std::vector<int64_t> values(t.data.size() / sizeof(int64_t));
    std::memcpy(values.data(), t.data.data(), t.data.size());
    return values;
}

/// Runs the fixture's graph and its archive on the same random inputs.
void checkAgainstLibtorch(const std::string &model, size_t outputCount)
{
    INFO(model);
    LoadedModel m = load(fixture(model + ".pt"));
    std::vector<HostTensor> inputs = inputsOrFail(m.graph, 3);
    std::vector<std::string> names;
    auto executor = Executor::create(m.graph);
    if (!executor)
        FAIL(executor.error().message);
    auto outputs = executor->run(inputs, &names);
    if (!outputs)
        FAIL(outputs.error().message);
    auto reference = runTorchScriptModule(fixture(model + ".pt"), inputs);
    if (!reference)
        FAIL(reference.error().message);
    REQUIRE(outputs->size() == outputCount);
    REQUIRE(names.size() == outputCount);
    for (size_t i = 0; i < outputCount; ++i) {
        CHECK(names[i] == m.graph.node(m.graph.outputValues()[i])->name);
        // The values computed, not just their metadata: the graph recorded it.
        CHECK((*outputs)[i].meta.shape == m.graph.node(m.graph.outputValues()[i])->meta.shape);
    }
    VerificationResult r = compareOutputs(*reference, *outputs, names);
    INFO(r.message);
    CHECK(r.passed);
    CHECK(r.maxAbsDiff <= 1e-5);
}

} // namespace

TEST_CASE("runGraph computes what libtorch computes for the demo, resnet18 and multi-output models", "[torch]")
{
    checkAgainstLibtorch("recsys_demo", 1);
    checkAgainstLibtorch("resnet18", 1);
    checkAgainstLibtorch("multi_output", 3);
}

TEST_CASE("randomInputs are seeded and keep indices inside the embedding tables", "[torch]")
{
    LoadedModel m = load(fixture("recsys_demo.pt"));
    std::vector<HostTensor> a = inputsOrFail(m.graph, 1);
    REQUIRE(a.size() == 3);
    CHECK(a[0].meta.toString() == "f32[8, 128]");
    CHECK(a[2].meta.toString() == "i64[8, 6]");
    CHECK(inputsOrFail(m.graph, 1)[0].data == a[0].data);
    CHECK(inputsOrFail(m.graph, 2)[0].data != a[0].data);

    // The ids reach aten::embedding through select: bounded by the 50 rows.
    std::vector<int64_t> ids = int64s(a[2]);
    CHECK(*std::min_element(ids.begin(), ids.end()) >= 0);
    CHECK(*std::max_element(ids.begin(), ids.end()) < 50);
    CHECK(*std::max_element(ids.begin(), ids.end()) >= 2);

    // An index input with no known table: 0 or 1.
    Graph g;
    GraphBuilder buildG(g);
    NodeId x = buildG.addInput("x", TensorMeta{DType::Int64, test::shapeOf({64}), {}, {}});
    buildG.setOutputs({buildG.addOp("aten::mul", {x, int64_t(2)})});
    std::vector<int64_t> small = int64s(inputsOrFail(g, 0).at(0));
    CHECK(*std::max_element(small.begin(), small.end()) == 1);
    CHECK(*std::min_element(small.begin(), small.end()) == 0);

    Graph symbolic;
    GraphBuilder(symbolic).addInput("x",
                                    TensorMeta{DType::Float32, std::vector<Dim>{std::string("s0"), int64_t(8)}, {}, {}});
    auto error = randomInputs(symbolic, 0);
    REQUIRE_FALSE(error);
    CHECK(error.error().message == "%x: input shape [s0, 8] is not static (give the model's input shapes)");
}

TEST_CASE("the executor checks its inputs and names a failing node", "[torch]")
{
    Graph g = test::linearNoBiasGraph(false);
    auto executor = Executor::create(g);
    REQUIRE(executor);
    CHECK(executor->inputCount() == 1);
    auto none = executor->run({});
    REQUIRE_FALSE(none);
    CHECK(none.error().message == "the graph has 1 inputs, 0 given");

    HostTensor ints;
    ints.meta = TensorMeta{DType::Int64, test::shapeOf({4, 8}), {}, {}};
    ints.data.resize(32 * sizeof(int64_t));
    auto wrongType = executor->run({ints});
    REQUIRE_FALSE(wrongType);
    CHECK(wrongType.error().message == "input 0 (%x): f32 expected, i64 given");

    // A shape the weight does not fit: libtorch's message, with the node.
    auto wrongShape = executor->run({test::floats({4, 5}, 1)});
    REQUIRE_FALSE(wrongShape);
    INFO(wrongShape.error().message);
    CHECK(wrongShape.error().message.rfind("%linear (aten::linear): ", 0) == 0);
    CHECK(wrongShape.error().message.find("4x5") != std::string::npos);
    CHECK(wrongShape.error().message.find('\n') == std::string::npos);
    // Another batch size is fine: the lowered graph is shape-generic.
    auto other = executor->run({test::floats({2, 8}, 1)});
    REQUIRE(other);
    CHECK(other->at(0).meta.toString() == "f32[2, 6]");
}

TEST_CASE("graphs that cannot be lowered give one-line errors naming the node", "[torch]")
{
    // Control flow stays opaque text in the IR.
    LoadedModel cf = load(fixture("control_flow.pt"));
    auto opaque = runGraph(cf.graph, inputsOrFail(cf.graph, 0));
    REQUIRE_FALSE(opaque);
    CHECK(opaque.error().message.rfind("%If (prim::If): control flow cannot be lowered", 0) == 0);

    // A graph JSON written without --weights has constants without payloads.
    const std::string path = std::string(FUSEBOX_BINARY_DIR) + "/executor_no_weights.json";
    REQUIRE(saveGraphJson(test::linearNoBiasGraph(false), path));
    auto json = loadGraphJson(path);
    REQUIRE(json);
    auto missing = runGraph(json->graph, inputsOrFail(json->graph, 0));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message
          == "%w: constant has no payload (weight 'w' is not in the graph's weight store; graph JSON written "
             "without --weights?)");
    auto verify = verifyEquivalent(test::linearNoBiasGraph(false), json->graph);
    REQUIRE_FALSE(verify);
    CHECK(verify.error().message.rfind("after: %w: constant has no payload", 0) == 0);
    std::filesystem::remove(path);

    // An op no schema accepts.
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({2}, "cpu"));
    build.setOutputs({build.addOp("aten::relu", {x, int64_t(3)}, {}, "bad")});
    auto bad = runGraph(g, {test::floats({2}, 0)});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.rfind("%bad (aten::relu): no schema of aten::relu accepts (Tensor, 3): ", 0) == 0);
}

TEST_CASE("verifyEquivalent passes a graph against itself and against a semantics-preserving rewrite", "[torch]")
{
    LoadedModel before = load(fixture("recsys_demo.pt"));
    auto self = verifyEquivalent(before.graph, before.graph, {.iterations = 2, .seed = 5});
    REQUIRE(self);
    CHECK(self->passed);
    CHECK(self->maxAbsDiff == 0);
    CHECK(self->worstOutput == 0);
    CHECK(self->message == "1 output matches within 1e-04 + 1e-04*|expected| (max |diff| 0) on 2 input sets");

    // relu(x) -> clamp_min(x, 0) on the interaction layer.
    LoadedModel after = load(fixture("recsys_demo.pt"));
    PatternRewriter rewriter(after.graph);
    const Node *relu = lastWithOp(after.graph, "aten::relu");
    REQUIRE(relu);
    NodeId clamp = rewriter.createOp("aten::clamp_min", {relu->args()[0], int64_t(0)}, {}, relu->id(), relu->meta);
    rewriter.replaceAndErase(relu->id(), clamp);
    REQUIRE_FALSE(lastWithOp(after.graph, "aten::relu") == relu);
    auto r = verifyEquivalent(before.graph, after.graph);
    REQUIRE(r);
    INFO(r->message);
    CHECK(r->passed);
    CHECK(r->maxAbsDiff <= 1e-6);
}

TEST_CASE("verifyEquivalent fails a semantic change and names the output", "[torch]")
{
    LoadedModel before = load(fixture("recsys_demo.pt"));
    const std::string outputName = before.graph.node(before.graph.outputValues().at(0))->name;

    SECTION("relu replaced by sigmoid")
    {
        LoadedModel after = load(fixture("recsys_demo.pt"));
        PatternRewriter rewriter(after.graph);
        const Node *relu = lastWithOp(after.graph, "aten::relu");
        REQUIRE(relu);
        NodeId sigmoid = rewriter.createOp("aten::sigmoid", {relu->args()[0]}, {}, relu->id(), relu->meta);
        rewriter.replaceAndErase(relu->id(), sigmoid);
        auto r = verifyEquivalent(before.graph, after.graph);
        REQUIRE(r);
        INFO(r->message);
        CHECK_FALSE(r->passed);
        CHECK(r->worstOutput == 0);
        CHECK(r->worstOutputName == outputName);
        CHECK(r->message.rfind("output 0 (%" + outputName + "): max |diff| ", 0) == 0);
        CHECK(r->message.find("> 1e-04 + 1e-04*|expected|") != std::string::npos);
        CHECK(r->maxAbsDiff > 1e-3);
    }
    SECTION("the two halves of a cat swapped")
    {
        LoadedModel after = load(fixture("recsys_demo.pt"));
        const Node *cat = nullptr;
        for (NodeId id : after.graph.nodeIds()) {
            const Node &n = *after.graph.node(id);
            if (n.op == "aten::cat" && n.args()[0].items()->size() == 2)
                cat = &n;
        }
        REQUIRE(cat);
        std::vector<Arg> items = *cat->args()[0].items();
        std::swap(items[0], items[1]);
        PatternRewriter rewriter(after.graph);
        rewriter.setArgs(cat->id(), {Arg::list(items), cat->args()[1]});
        auto r = verifyEquivalent(before.graph, after.graph, {.iterations = 3});
        REQUIRE(r);
        INFO(r->message);
        CHECK_FALSE(r->passed);
        CHECK(r->message.rfind("output 0 (%" + outputName + "): ", 0) == 0);
        CHECK(r->message.find("(input set 0, seed 0)") != std::string::npos);
    }
}

TEST_CASE("Optimus-style rewrites lower and keep their semantics", "[torch]")
{
    auto check = [](const Graph &before, const Graph &after) {
        auto r = verifyEquivalent(before, after, {.iterations = 2});
        if (!r)
            FAIL(r.error().message);
        INFO(r->message);
        CHECK(r->passed);
        return r.value();
    };
    check(test::linearsGraph(false), test::linearsGraph(true));
    check(test::linearNoBiasGraph(false), test::linearNoBiasGraph(true));
    check(test::layerNormsGraph(false), test::layerNormsGraph(true));
    VerificationResult splits = check(test::splitCatGraph(false), test::splitCatGraph(true));
    CHECK(splits.maxAbsDiff == 0);

    // The same rewrite with the weights stacked in the wrong order fails on
    // the first two outputs; the message names the worst one.
    auto wrong = verifyEquivalent(test::linearsGraph(false), test::linearsGraph(true, /*swapWeights=*/true));
    REQUIRE(wrong);
    INFO(wrong->message);
    CHECK_FALSE(wrong->passed);
    CHECK((wrong->worstOutputName == "linear" || wrong->worstOutputName == "linear_1"));
    CHECK(wrong->message.rfind("output " + std::to_string(wrong->worstOutput) + " (%" + wrong->worstOutputName
                                   + "): max |diff| ",
                               0)
          == 0);
}

TEST_CASE("integer outputs are compared exactly, dtype and shape must match", "[torch]")
{
    auto graph = [](const std::string &op, Arg other) {
        Graph g;
        GraphBuilder build(g);
        NodeId x = build.addInput("x", TensorMeta{DType::Int64, test::shapeOf({16}), {}, {}});
        build.setOutputs({build.addOp(op, {x, other}, {}, "y")});
        return g;
    };
    Graph doubled = graph("aten::mul", int64_t(2));
    Graph added = graph("aten::add", Arg(doubled.inputs()[0]));
    auto same = verifyEquivalent(doubled, added);
    REQUIRE(same);
    CHECK(same->passed);

    auto offByOne = verifyEquivalent(doubled, graph("aten::add", int64_t(1)));
    REQUIRE(offByOne);
    INFO(offByOne->message);
    CHECK_FALSE(offByOne->passed);
    CHECK(offByOne->message.find("> 0 (compared exactly)") != std::string::npos);

    HostTensor a = test::floats({2, 3}, 1);
    HostTensor b = test::floats({3, 2}, 1);
    b.meta.shape = test::shapeOf({3, 2});
    VerificationResult shapes = compareOutputs({a}, {b}, {"out"});
    CHECK_FALSE(shapes.passed);
    CHECK(shapes.message == "output 0 (%out): shape [2, 3] expected, [3, 2] got");
    VerificationResult counts = compareOutputs({a}, {a, a}, {});
    CHECK_FALSE(counts.passed);
    CHECK(counts.message == "1 outputs expected, 2 got");
    // Within the tolerance: |diff| <= 1e-4 + 1e-4 * |expected|.
    HostTensor c = a;
    float first;
    std::memcpy(&first, c.data.data(), sizeof first);
    first += 5e-5f;
    std::memcpy(c.data.data(), &first, sizeof first);
    CHECK(compareOutputs({a}, {c}, {}).passed);
    CHECK_FALSE(compareOutputs({a}, {c}, {}, 1e-6).passed);
}

TEST_CASE("latency of a graph and of its archive under optimize_for_inference", "[torch]")
{
    LoadedModel m = load(fixture("recsys_demo.pt"));
    std::vector<HostTensor> inputs = inputsOrFail(m.graph, 0);
    auto ours = measureLatency(m.graph, inputs, 2, 5);
    if (!ours)
        FAIL(ours.error().message);
    CHECK(ours->iterations == 5);
    CHECK(ours->medianMs > 0);
    CHECK(ours->minMs <= ours->medianMs);
    CHECK(ours->medianMs <= ours->maxMs);
    CHECK(ours->meanMs >= ours->minMs);
    CHECK(ours->meanMs <= ours->maxMs);

    auto peer = measureOptimizeForInferenceLatency(fixture("recsys_demo.pt"), inputs, 2, 5);
    if (!peer)
        FAIL(peer.error().message);
    CHECK(peer->medianMs > 0);
    WARN("demo forward: fusebox graph " << ours->medianMs << " ms, optimize_for_inference " << peer->medianMs
                                        << " ms (median of 5)");

    CHECK_FALSE(measureLatency(m.graph, inputs, 0, 0));
    auto missing = measureOptimizeForInferenceLatency(fixture("missing.pt"), inputs, 1, 1);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message.rfind(fixture("missing.pt") + ": ", 0) == 0);
}

namespace {
/// x [192, 192] through `matmuls` linears by the same weight: time grows with the count.
Graph matmulChain(int matmuls)
{
    using namespace fusebox::test;
    Graph g;
    GraphBuilder build(g);
    Arg x = build.addInput("x", f32({192, 192}));
    NodeId w = addWeight(build, "w", {192, 192}, 3);
    for (int i = 0; i < matmuls; ++i)
        x = build.addOp("aten::linear", {x, w, NoneArg{}});
    build.setOutputs({x});
    return g;
}
} // namespace

TEST_CASE("compareLatency times both graphs, alternating, and sees the one that does more work", "[torch]")
{
    const Graph light = matmulChain(1), heavy = matmulChain(24);
    LatencyOptions options;
    options.warmup = 2;
    options.iterations = 9;
    std::vector<int> progress;
    options.progress = [&](int done, int total) {
        CHECK(total == 9);
        progress.push_back(done);
    };
    auto slower = compareLatency(light, heavy, options);
    if (!slower)
        FAIL(slower.error().message);
    CHECK(slower->engine == "libtorch 1.13");
    CHECK(slower->before.samplesMs.size() == 9);
    CHECK(slower->after.samplesMs.size() == 9);
    CHECK(progress == std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9});
    for (const LatencyResult *r : {&slower->before, &slower->after}) {
        CHECK(r->minMs <= r->p25Ms);
        CHECK(r->p25Ms <= r->medianMs);
        CHECK(r->medianMs <= r->p75Ms);
        CHECK(r->p75Ms <= r->maxMs);
    }
    // 24 matmuls of 192x192 against one: measured, the current graph is much slower.
    CHECK(slower->after.medianMs > 4 * slower->before.medianMs);
    CHECK(slower->speedup() < 0.25);
    CHECK(slower->summary().find("slower") != std::string::npos);

    // Cancelled before the first timed run: an Error, nothing measured.
    std::atomic<bool> cancel{true};
    options.cancel = &cancel;
    auto stopped = compareLatency(light, heavy, options);
    REQUIRE_FALSE(stopped);
    CHECK(stopped.error().message == "cancelled");

    options.cancel = nullptr;
    options.iterations = 0;
    CHECK_FALSE(compareLatency(light, heavy, options));
}

TEST_CASE("summarizeLatency: quartiles interpolate as numpy's percentile does", "[torch]")
{
    // numpy.percentile([4, 1, 3, 2, 10], [25, 50, 75]) == [2, 3, 4]; mean 4.
    LatencyResult r = summarizeLatency({4, 1, 3, 2, 10});
    CHECK(r.p25Ms == 2);
    CHECK(r.medianMs == 3);
    CHECK(r.p75Ms == 4);
    CHECK(r.meanMs == 4);
    CHECK(r.minMs == 1);
    CHECK(r.maxMs == 10);
    CHECK(r.samplesMs == std::vector<double>{4, 1, 3, 2, 10});
    // numpy.percentile([1, 2], [25, 50]) == [1.25, 1.5].
    LatencyResult two = summarizeLatency({2, 1});
    CHECK(two.p25Ms == 1.25);
    CHECK(two.medianMs == 1.5);
}
