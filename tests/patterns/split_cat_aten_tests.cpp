// normalization_aten_pass, split_cat_aten_pass and select_cat_aten_pass on
// AOT forward graphs as PyTorch 2.14 prints them. The expected graphs and
// counters are Inductor's own: each model below was captured with
// torch._dynamo's aot_autograd in the Debian testing root (torch 2.14.1) and
// run through the bridge's post-grad Optimus (python/fusebox_bridge/inductor.py)
// with the same config; the oracle suite checks the same through the bridge.

#include "InductorRunSupport.h"
#include "SplitCatTestSupport.h"

#include "core/io/FxText.h"
#include "core/io/PassConfig.h"
#include "core/ir/GraphBuilder.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/ir/ShapeInference.h"
#include "patterns/InductorProfile.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"
#include "../core/FxTestSchemas.h"

using namespace fusebox;
using namespace fusebox::test::sc;

namespace {

const OpSchemaRegistry &atenSchemas()
{
    static const OpSchemaRegistry registry = [] {
        OpSchemaRegistry r = fxtest::testSchemas();
        r.add(fxtest::schema("aten::select.int(Tensor self, int dim, SymInt index)"));
        r.add(fxtest::schema(
            "aten::slice.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)"));
        return r;
    }();
    return registry;
}

Graph readAot(const std::string &text)
{
    auto loaded = readFxText(text, {&atenSchemas(), "aot_forward.py"});
    INFO((loaded ? "" : loaded.error().message));
    REQUIRE(loaded.hasValue());
    inferShapes(loaded->graph);
    return std::move(loaded->graph);
}

// x.split(4, 1): the sections re-joined in order, and out of order.
const char *const kSplitCat = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[2, 16][16, 1]cpu"):
        split = torch.ops.aten.split.Tensor(arg0_1, 4, 1)
        getitem = split[0]
        getitem_1 = split[1]
        getitem_2 = split[2]
        getitem_3 = split[3]
        cat = torch.ops.aten.cat.default([getitem, getitem_1, getitem_2, getitem_3], 1)
        relu = torch.ops.aten.relu.default(cat)
        cat_1 = torch.ops.aten.cat.default([getitem_1, getitem_2, getitem, getitem_3], 1)
        add = torch.ops.aten.add.Tensor(relu, cat_1)
        return (add,)
)";

// torch.cat([x[:, 0], x[:, 1], x[:, 2]], dim=1).
const char *const kSelectCat = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[2, 3, 5][15, 5, 1]cpu"):
        select = torch.ops.aten.select.int(arg0_1, 1, 0)
        select_1 = torch.ops.aten.select.int(arg0_1, 1, 1)
        select_2 = torch.ops.aten.select.int(arg0_1, 1, 2)
        cat = torch.ops.aten.cat.default([select, select_1, select_2], 1)
        relu = torch.ops.aten.relu.default(cat)
        return (relu,)
)";

using test::ScheduleRun;

ScheduleRun runPostGrad(const std::string &text, const std::string &configJson, std::string_view version)
{
    return test::runInductorSchedule(text, atenSchemas(), configJson, version, "aot_forward.py");
}

const Node &only(const Graph &g, std::string_view op)
{
    for (NodeId id : g.nodeIds())
        if (g.node(id)->isOp() && g.node(id)->op == op)
            return *g.node(id);
    FAIL("no " << op);
    throw;
}

} // namespace

TEST_CASE("normalization_aten_pass writes every cat's dim, and under 2.14 every split's, as a keyword",
          "[patterns][post_grad]")
{
    const std::string config = R"({"post_grad_fusion_options": {"normalization_aten_pass": {}}})";
    // Inductor 2.14: {'normalization_aten_pass': 3, 'pattern_matcher_count': 3, 'pattern_matcher_nodes': 3}.
    ScheduleRun v214 = runPostGrad(kSplitCat, config, "2.14");
    CHECK(v214.counters
          == std::map<std::string, size_t>{{"normalization_aten_pass", 3},
                                           {"pattern_matcher_count", 3},
                                           {"pattern_matcher_nodes", 3}});
    const Node &split = only(v214.graph, "aten::split_with_sizes");
    CHECK(expr(v214.graph, split.id()) == "split_with_sizes(arg0_1, [4, 4, 4, 4])");
    CHECK(split.kwarg("dim")->asInt() == 1);
    for (NodeId id : v214.graph.nodesWithOp("aten::cat")) {
        CHECK(v214.graph.node(id)->args().size() == 1);
        CHECK(v214.graph.node(id)->kwarg("dim")->asInt() == 1);
    }
    // Inductor 2.6 normalizes the cats alone (2 and 2, 2).
    ScheduleRun v26 = runPostGrad(kSplitCat, config, "2.6");
    CHECK(v26.counters
          == std::map<std::string, size_t>{{"normalization_aten_pass", 2},
                                           {"pattern_matcher_count", 2},
                                           {"pattern_matcher_nodes", 2}});
    CHECK(countOps(v26.graph, "aten::split") == 1);

    // The form survives FX text: written with dim=..., read back as a keyword.
    const std::string text = writeFxText(v214.graph);
    CHECK(text.find("dim = 1") != std::string::npos);
    Graph again = readAot(text);
    CHECK(only(again, "aten::split_with_sizes").kwarg("dim") != nullptr);
    // A cat already in the form is counted again, as Inductor rebuilds it,
    // and left as it is.
    auto rerun = readPassConfig(config, "post.json");
    PatternSet set = builtinCatalog();
    REQUIRE(configurePatterns(set, *rerun, *findInductorProfile("2.14")).isOk());
    DriverResult second = runPassSchedule(PassSchedule::Inductor, set, *rerun, again);
    CHECK(second.inductorCounters["normalization_aten_pass"] == 2);
    CHECK(second.inductorCounters["pattern_matcher_count"] == 3);
    CHECK(second.rewrites.empty());
}

TEST_CASE("split_cat_aten_pass merges runs of a split's getitems in cats whose dim is a keyword",
          "[patterns][post_grad]")
{
    const std::string config = R"({"post_grad_fusion_options": {"normalization_aten_pass": {},
        "split_cat_aten_pass": {"threshold_to_cat": 2}}})";
    // Inductor 2.14: {'normalization_aten_pass': 3, 'pattern_matcher_count': 4, 'pattern_matcher_nodes': 6,
    // 'split_cat_aten_pass': 2}; cat([arg0_1], dim=1) and cat([slice(arg0_1, 1, 4, 12), getitem, getitem_3], dim=1).
    ScheduleRun run = runPostGrad(kSplitCat, config, "2.14");
    CHECK(run.counters
          == std::map<std::string, size_t>{{"normalization_aten_pass", 3},
                                           {"pattern_matcher_count", 4},
                                           {"pattern_matcher_nodes", 6},
                                           {"split_cat_aten_pass", 2}});
    CHECK(outputs(run.graph)
          == std::vector<std::string>{"add.Tensor(relu(cat([arg0_1])), cat([slice.Tensor(arg0_1, "
                                      "1, 4, 12, 1), getitem(split_with_sizes(arg0_1, [4, 4, 4, 4]), 0), "
                                      "getitem(split_with_sizes(arg0_1, [4, 4, 4, 4]), 3)]))"});
    CHECK(countOps(run.graph, "getitem") == 2);

    // Without normalization_aten_pass the cats' dims are positional: the
    // pattern does not match, and Why Not says what to run first.
    PatternSet set = builtinCatalog();
    Graph g = readAot(kSplitCat);
    MatchTrace trace(MatchTrace::Mode::Explain);
    const auto *rule = static_cast<const VerticalPattern *>(set.find("split_cat_aten_pass"));
    CHECK_FALSE(rule->match(g, named(g, "cat"), trace).has_value());
    REQUIRE(trace.failure());
    CHECK(trace.failure()->actual.find("run normalization_aten_pass first") != std::string::npos);
    // Under 2.6 the pass does not exist.
    auto v26 = readPassConfig(config, "post.json");
    CHECK_FALSE(configurePatterns(set, *v26, *findInductorProfile("2.6")).isOk());
}

TEST_CASE("select_cat_aten_pass turns a cat of every select of x into a view of x", "[patterns][post_grad]")
{
    const std::string config
        = R"({"post_grad_fusion_options": {"normalization_aten_pass": {}, "select_cat_aten_pass": {}}})";
    // Inductor 2.14: {'normalization_aten_pass': 1, 'pattern_matcher_count': 2, 'pattern_matcher_nodes': 3,
    // 'select_cat_aten_pass': 1}; relu(view(arg0_1, (2, 15))).
    ScheduleRun run = runPostGrad(kSelectCat, config, "2.14");
    CHECK(run.counters
          == std::map<std::string, size_t>{{"normalization_aten_pass", 1},
                                           {"pattern_matcher_count", 2},
                                           {"pattern_matcher_nodes", 3},
                                           {"select_cat_aten_pass", 1}});
    CHECK(outputs(run.graph) == std::vector<std::string>{"relu(view(arg0_1, [2, 15]))"});
    CHECK(countOps(run.graph, "aten::select") == 0);

    // The cat's third select reads another tensor while x's third select
    // is read elsewhere: Inductor 2.14 counts x's readers and would replace
    // the cat by x.view all the same; Fusebox refuses.
    const std::string other = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[2, 3, 5][15, 5, 1]cpu", arg1_1: "f32[2, 3, 5][15, 5, 1]cpu"):
        select = torch.ops.aten.select.int(arg0_1, 1, 0)
        select_1 = torch.ops.aten.select.int(arg0_1, 1, 1)
        select_2 = torch.ops.aten.select.int(arg0_1, 1, 2)
        select_3 = torch.ops.aten.select.int(arg1_1, 1, 2)
        cat = torch.ops.aten.cat.default([select, select_1, select_3], 1)
        relu = torch.ops.aten.relu.default(cat)
        return (relu, select_2)
)";
    ScheduleRun refused = runPostGrad(other, config, "2.14");
    CHECK(countOps(refused.graph, "aten::view") == 0);
}

TEST_CASE("the post-grad aten passes see neither a Dynamo graph nor a batch fusion's packet calls",
          "[patterns][post_grad]")
{
    // A Dynamo graph is pre-grad as read, whatever ATen calls it holds or a
    // rewrite adds later: the reader records the stage once.
    const char *const dynamo = R"(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[2, 16]"):
        l_x_ = L_x_
        split = torch.ops.aten.split.Tensor(l_x_, 8, 1)
        getitem = split[0]
        getitem_1 = split[1]
        cat = torch.cat([getitem_1, getitem], 1)
        cat_1 = torch.ops.aten.cat.default([getitem, getitem_1], 1)
        return (cat, cat_1)
)";
    auto loaded = readFxText(dynamo, {&atenSchemas(), "dynamo.py"});
    REQUIRE(loaded.hasValue());
    CHECK(loaded->graph.metadata().at("source.stage") == "pre_grad");
    const Graph aot = readAot(kSelectCat);
    CHECK(aot.metadata().at("source.stage") == "post_grad");
    PatternSet set = builtinCatalog();
    GreedyDriver driver(set);
    for (const Match &m : driver.findMatches(loaded->graph)) {
        INFO(m.pattern);
        CHECK(m.pattern.find("_aten") == std::string::npos);
    }

    // The select-cat graph with its selects and cat spelled as a post-grad
    // batch fusion writes them (graph.call_function(aten.select, ...),
    // decompose_stack's aten.cat): packets, which normalization_aten_pass
    // (find_nodes(target=aten.cat.default)) and select_cat_aten_pass
    // (CallFunction(aten.cat.default, ListOf(aten.select.int))) pass by.
    const std::string config
        = R"({"post_grad_fusion_options": {"normalization_aten_pass": {}, "select_cat_aten_pass": {}}})";
    auto parsed = readPassConfig(config, "post.json");
    REQUIRE(parsed.hasValue());
    PatternSet post = builtinCatalog();
    REQUIRE(configurePatterns(post, *parsed, *findInductorProfile("2.14")).isOk());
    auto runWithPackets = [&](bool selects, bool cat) {
        Graph g = readAot(kSelectCat);
        GraphBuilder build = GraphBuilder::reopen(g);
        for (NodeId id : g.nodeIds()) {
            const Node &n = *g.node(id);
            if (n.isOp() && n.op == "aten::select" && selects)
                build.node(id).provenance.originalSpelling = "torch.ops.aten.select";
            if (n.isOp() && n.op == "aten::cat" && cat)
                build.node(id).provenance.originalSpelling = "torch.ops.aten.cat";
        }
        DriverResult result = runPassSchedule(PassSchedule::Inductor, post, *parsed, g);
        std::map<std::string, size_t> counters;
        for (const auto &[name, n] : result.inductorCounters)
            if (n)
                counters[name] = n;
        return counters;
    };
    // As written (select.int, cat.default): both passes fire.
    CHECK(runWithPackets(false, false)
          == std::map<std::string, size_t>{{"normalization_aten_pass", 1},
                                           {"pattern_matcher_count", 2},
                                           {"pattern_matcher_nodes", 3},
                                           {"select_cat_aten_pass", 1}});
    // Packet selects: the cat is normalized, select_cat_aten_pass never matches.
    CHECK(runWithPackets(true, false)
          == std::map<std::string, size_t>{{"normalization_aten_pass", 1},
                                           {"pattern_matcher_count", 1},
                                           {"pattern_matcher_nodes", 1}});
    // A packet cat too: neither pass visits it.
    CHECK(runWithPackets(true, true).empty());
}
