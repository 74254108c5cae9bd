#include "core/io/GraphJson.h"
#include "core/io/PassConfig.h"
#include "core/ir/Spelling.h"
#include "patterns/Catalog.h"
#include "patterns/PassConfiguration.h"

#include <catch.hpp>

using namespace fusebox;

namespace {

class Dummy final : public HorizontalPattern {
public:
    Dummy(std::string name, PassStage stage)
        : HorizontalPattern(std::move(name), stage, 1, {"aten::relu"}, "dummy")
    {}
    std::optional<std::string> key(const Graph &, NodeId, MatchTrace &) const override { return std::nullopt; }
    LogicalResult fuse(PatternRewriter &, const std::vector<NodeId> &) const override { return failure(); }
};

PatternSet dummySet()
{
    PatternSet set;
    set.add(std::make_unique<Dummy>("batch_linear", PassStage::PreGrad));
    set.add(std::make_unique<Dummy>("batch_relu", PassStage::PreGrad));
    set.add(std::make_unique<Dummy>("batch_aten_relu", PassStage::PostGrad));
    return set;
}

} // namespace

TEST_CASE("pass configs read Inductor's shape and round-trip", "[io]")
{
    auto config = readPassConfig(R"({
      "pre_grad_fusion_options": {"batch_linear": {"min_fuse_set_size": 3, "fuse_nodes_with_same_users": true}},
      "post_grad_fusion_options": {"batch_aten_relu": {}},
      "rejected": [{"pattern": "batch_relu", "signature": "batch_relu|aten::relu|tower|00ff", "anchor": "relu_3"}]})",
                                 "passes.json");
    REQUIRE(config.hasValue());
    CHECK(std::get<int64_t>(config->preGradFusionOptions["batch_linear"]["min_fuse_set_size"]) == 3);
    CHECK(std::get<bool>(config->preGradFusionOptions["batch_linear"]["fuse_nodes_with_same_users"]));
    REQUIRE(config->rejected.size() == 1);
    CHECK(config->rejected[0].anchor == "relu_3");
    auto back = readPassConfig(writePassConfig(*config), "again.json");
    REQUIRE(back.hasValue());
    CHECK(*back == *config);
}

TEST_CASE("pass config errors name the JSON path", "[io]")
{
    auto bad = readPassConfig(R"({"pre_grad_fusion_options": {"batch_linear": {"min_fuse_set_size": "5"}}})", "p.json");
    REQUIRE_FALSE(bad.hasValue());
    CHECK(bad.error().message
          == "p.json: /pre_grad_fusion_options/batch_linear/min_fuse_set_size: expected a number or bool, found string "
             "\"5\"");
    auto section = readPassConfig(R"({"pre_grad_options": {}})", "p.json");
    REQUIRE_FALSE(section.hasValue());
    CHECK(section.error().message
          == "p.json: /pre_grad_options: unknown section (expected pre_grad_fusion_options, post_grad_fusion_options, "
             "disabled_passes, custom_patterns or rejected)");
    auto rejected = readPassConfig(R"({"rejected": [{"pattern": "x"}]})", "p.json");
    REQUIRE_FALSE(rejected.hasValue());
    CHECK(rejected.error().message == "p.json: /rejected/0/signature: missing");
}

TEST_CASE("configuring patterns enables what the config names", "[patterns]")
{
    PatternSet set = dummySet();
    PassConfig config;
    config.preGradFusionOptions["batch_linear"]["min_fuse_set_size"] = int64_t(3);
    REQUIRE(configurePatterns(set, config).isOk());
    CHECK(set.isEnabled("batch_linear"));
    CHECK_FALSE(set.isEnabled("batch_relu"));
    CHECK(set.find("batch_linear")->options().getInt("min_fuse_set_size") == 3);
    CHECK(set.find("batch_relu")->options().getInt("min_fuse_set_size") == 5);

    PassConfig exported = passConfigFor(set);
    CHECK(exported.preGradFusionOptions.size() == 1);
    CHECK(std::get<int64_t>(exported.preGradFusionOptions["batch_linear"]["max_fuse_set_size"]) == 300);

    PassConfig typo;
    typo.preGradFusionOptions["batch_lienar"] = {};
    CHECK(configurePatterns(set, typo).error().message
          == "pre_grad_fusion_options/batch_lienar: unknown rule (did you mean 'batch_linear'?)");
    PassConfig wrongStage;
    wrongStage.preGradFusionOptions["batch_aten_relu"] = {};
    CHECK(configurePatterns(set, wrongStage).error().message
          == "pre_grad_fusion_options/batch_aten_relu: is a post_grad rule; list it under post_grad_fusion_options");
    // Inductor 2.6 ignores options a pass does not read: accepted, and said.
    PassConfig badOption;
    badOption.preGradFusionOptions["batch_relu"]["min_fuse_size"] = int64_t(2);
    std::vector<std::string> notes;
    REQUIRE(configurePatterns(set, badOption, &notes).isOk());
    CHECK(set.isEnabled("batch_relu"));
    CHECK(notes
          == std::vector<std::string>{
              "pre_grad_fusion_options/batch_relu/min_fuse_size: ignored, as Inductor 2.6 ignores options a pass "
              "does not read (did you mean 'min_fuse_set_size'?); batch_relu takes: max_fuse_search_depth, "
              "max_fuse_set_size, min_fuse_set_size"});
}

TEST_CASE("pass configs are accepted as Inductor 2.6 accepts them, and refused where it refuses", "[patterns]")
{
    PatternSet set = builtinCatalog();
    auto config = readPassConfig(R"({
      "pre_grad_fusion_options": {"batch_linear": {"counter": 2}, "split_cat_pass": {"counter": 0}},
      "post_grad_fusion_options": {"group_linear": {"require_fbgemm": true}, "batch_aten_add": {"require_fbgemm": false},
                                   "pad_aten_mm_pass": {}, "normalization_aten_pass": {}}})",
                                 "p.json");
    REQUIRE(config.hasValue());
    std::vector<std::string> notes;
    REQUIRE(configurePatterns(set, *config, &notes).isOk());
    // group_linear with require_fbgemm: dropped, as open-source 2.6 drops it.
    CHECK_FALSE(set.isEnabled("group_linear"));
    CHECK(set.isEnabled("batch_aten_add"));
    CHECK(set.isEnabled("batch_linear"));
    CHECK(set.isEnabled("split_cat_pass"));
    CHECK(set.isEnabled("normalization_aten_pass")); // modelled: no note
    REQUIRE(notes.size() == 4);
    CHECK(notes[0]
          == "pre_grad_fusion_options/batch_linear/counter: ignored: Inductor 2.6 runs a group/batch fusion once");
    CHECK(notes[1]
          == "pre_grad_fusion_options/split_cat_pass/counter: 0: the pass never runs (range(counter) is empty), as in "
             "Inductor 2.6");
    CHECK(notes[2]
          == "post_grad_fusion_options/group_linear: requires fbgemm, which open-source PyTorch lacks: Inductor 2.6 "
             "drops the fusion (group_batch_fusion.py has_fbgemm), and so does Fusebox");
    CHECK(notes[3].starts_with("post_grad_fusion_options/pad_aten_mm_pass: a pass of Inductor 2.6 that changes "
                               "no graph (it registers no pattern;"));

    // What 2.6 refuses (a KeyError, a TypeError) stays refused.
    for (const auto &[text, message] : std::vector<std::pair<std::string, std::string>>{
             {R"({"pre_grad_fusion_options": {"pad_aten_mm_pass": {}}})",
              "pre_grad_fusion_options/pad_aten_mm_pass: unknown rule"},
             {R"({"pre_grad_fusion_options": {"decompose_mm_pass": {}}})",
              "pre_grad_fusion_options/decompose_mm_pass: is a post_grad rule; list it under post_grad_fusion_options"},
             {R"({"pre_grad_fusion_options": {"merge_splits_pass": {"counter": 1.5}}})",
              "pre_grad_fusion_options/merge_splits_pass/counter: expected an integer (Inductor runs the pass "
              "range(counter) times)"}}) {
        auto bad = readPassConfig(text, "p.json");
        REQUIRE(bad.hasValue());
        Status s = configurePatterns(set, *bad);
        REQUIRE_FALSE(s.isOk());
        CHECK(s.error().message.starts_with(message));
    }
}

TEST_CASE("spelling suggestions", "[ir]")
{
    CHECK(editDistance("kitten", "sitting") == 3);
    // A second guess only when about as close as the first: bilinear is
    // three edits from "lienar", linear one.
    CHECK(closestMatches("aten::lienar", {"aten::linear", "aten::bilinear", "aten::relu"})
          == std::vector<std::string>{"aten::linear"});
    CHECK(closestMatches("aten::rlu", {"aten::relu", "aten::elu", "aten::selu"})
          == std::vector<std::string>{"aten::elu", "aten::relu", "aten::selu"});
    CHECK(didYouMean("batch_lienar", {"batch_linear", "cat_linear"}) == " (did you mean 'batch_linear'?)");
    CHECK(didYouMean("zzz", {"aten::relu"}).empty());
    // A swap of adjacent letters is one edit, and a same-length candidate
    // comes before one that drops a letter at the same distance.
    CHECK(editDistance("rleu", "relu") == 1);
    CHECK(closestMatches("aten::rleu", {"aten::elu", "aten::glu", "aten::relu"}).front() == "aten::relu");
    // A doubled letter typed once too often: the word without it comes first
    // (issue 14: 'aten::reluu' offered relu6 and relu_ but not relu).
    CHECK(closestMatches("aten::reluu", {"aten::relu6", "aten::relu_", "aten::relu"}).front() == "aten::relu");
    CHECK(didYouMean("aten::reluu", {"aten::relu6", "aten::relu_", "aten::relu"})
          == " (did you mean 'aten::relu' or 'aten::relu6'?)");
}

TEST_CASE("pass config syntax errors give line and column", "[io]")
{
    auto bad = readPassConfig("{\n  \"rejected\": [,]\n}", "p.json");
    REQUIRE_FALSE(bad.hasValue());
    CHECK(bad.error().message.rfind("p.json:2:16: invalid JSON: ", 0) == 0);
}

TEST_CASE("pass configs carry custom patterns, referenced or embedded", "[io][pattern]")
{
    auto config = readPassConfig(R"({
      "custom_patterns": [{"file": "fusions.patterns"},
                          {"text": "pattern p {\n match { y = aten::neg(x) }\n replace { y = aten::neg(x) }\n}\n"}]})",
                                 "passes.json");
    REQUIRE(config.hasValue());
    REQUIRE(config->customPatterns.size() == 2);
    CHECK(config->customPatterns[0].file == "fusions.patterns");
    CHECK(config->customPatterns[1].text.starts_with("pattern p {"));
    auto back = readPassConfig(writePassConfig(*config), "again.json");
    REQUIRE(back.hasValue());
    CHECK(*back == *config);

    auto neither = readPassConfig(R"({"custom_patterns": [{}]})", "p.json");
    REQUIRE_FALSE(neither.hasValue());
    CHECK(neither.error().message == "p.json: /custom_patterns/0: expected either \"file\" or \"text\"");
    auto notList = readPassConfig(R"({"custom_patterns": {"file": "x"}})", "p.json");
    REQUIRE_FALSE(notList.hasValue());
    CHECK(notList.error().message == "p.json: /custom_patterns: expected an array, found object {\"file\":\"x\"}");
}

TEST_CASE("pass configs keep the order of their rules, the order Inductor runs them in", "[io][schedule]")
{
    const char *text = R"({
      "pre_grad_fusion_options": {"split_cat_pass": {"counter": 2}, "batch_relu": {}, "normalization_pass": {},
                                  "batch_linear": {"min_fuse_set_size": 2}},
      "post_grad_fusion_options": {"batch_aten_relu": {}, "batch_aten_add": {}}})";
    auto config = readPassConfig(text, "passes.json");
    REQUIRE(config.hasValue());
    CHECK(config->preGradOrder
          == std::vector<std::string>{"split_cat_pass", "batch_relu", "normalization_pass", "batch_linear"});
    CHECK(config->postGradOrder == std::vector<std::string>{"batch_aten_relu", "batch_aten_add"});
    // Written in that order, and read back equal.
    const std::string written = writePassConfig(*config);
    CHECK(written.find("split_cat_pass") < written.find("batch_relu"));
    CHECK(written.find("batch_relu") < written.find("normalization_pass"));
    auto again = readPassConfig(written, "again.json");
    REQUIRE(again.hasValue());
    CHECK(*again == *config);
}

TEST_CASE("every rule takes Inductor's counter option, it must be a count", "[io][schedule]")
{
    PatternSet set = dummySet();
    auto config = readPassConfig(R"({"pre_grad_fusion_options": {"batch_relu": {"counter": 3}}})", "p.json");
    REQUIRE(config.hasValue());
    REQUIRE(configurePatterns(set, *config).isOk());
    CHECK(set.find("batch_relu")->options().getInt("counter") == 3);
    auto bad = readPassConfig(R"({"pre_grad_fusion_options": {"batch_relu": {"counter": true}}})", "p.json");
    REQUIRE(bad.hasValue());
    // A fusion ignores counter, whatever it is (Inductor 2.6 never reads it there).
    CHECK(configurePatterns(set, *bad).isOk());
}

TEST_CASE("a JSON number too large for a double is an error naming the file, position and JSON path", "[io]")
{
    // Found by fuzzing (issue 15): nlohmann throws out_of_range.406, which
    // nothing caught, and fusebox-pass aborted (exit 134).
    const std::string text = R"({"pre_grad_fusion_options": {"batch_linear": {"min_fuse_set_size": 1e999}}})";
    auto config = readPassConfig(text, "passes.json");
    REQUIRE_FALSE(config);
    CHECK(config.error().message
          == "passes.json:1:68: at pre_grad_fusion_options.batch_linear.min_fuse_set_size: number overflow parsing "
             "'1e999' (it does not fit a double)");
    // Inside arrays, by index; graph JSON and every reader share the parser.
    auto graph = readGraphJson("{\"nodes\": [1, {\"a\": 2},\n [3, -1e400]]}", "g.json");
    REQUIRE_FALSE(graph);
    CHECK(graph.error().message.rfind("g.json:2:6: at nodes[2][1]: number overflow parsing '-1e400'", 0) == 0);
}
