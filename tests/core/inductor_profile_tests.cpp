// Inductor profiles (patterns/InductorProfile.h): the passes each version's
// config may name, read from both reference roots (torch 2.6.0 and 2.14.1:
// group_batch_fusion.py PRE/POST_GRAD_FUSIONS, split_cat.py
// PRE/POST_GRAD_PATTERNS), and how a version is chosen.
#include "core/io/PassConfig.h"
#include "patterns/Catalog.h"
#include "patterns/InductorProfile.h"
#include "patterns/GroupBatchGraphs.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"

#include <catch.hpp>

#include <algorithm>
#include <set>

using namespace fusebox;

namespace {

std::set<std::string> names(const InductorProfile &p, PassStage stage)
{
    std::set<std::string> out;
    for (const ProfilePass &pass : p.passes)
        if (pass.stage == stage)
            out.insert(std::string(pass.name));
    return out;
}

const std::set<std::string> kNewIn214 = {"batch_dropout",
                                         "cat_linear",
                                         "einsum_to_pointwise_pass",
                                         "move_view_after_cat_aten_pass",
                                         "select_cat_aten_pass",
                                         "split_cat_aten_pass"};

} // namespace

TEST_CASE("Inductor profiles: 2.6 has 36 nameable passes, 2.14 the same and 6 more", "[patterns][profile]")
{
    const InductorProfile *v26 = findInductorProfile("2.6");
    const InductorProfile *v214 = findInductorProfile("2.14");
    REQUIRE(v26);
    REQUIRE(v214);
    CHECK(&newestInductorProfile() == v214);
    // As the bridge's inductor_passes printed them in each root.
    CHECK(names(*v26, PassStage::PreGrad).size() == 22);
    CHECK(names(*v26, PassStage::PostGrad).size() == 14);
    CHECK(names(*v214, PassStage::PreGrad).size() == 25);
    CHECK(names(*v214, PassStage::PostGrad).size() == 17);
    CHECK(v214->passes.size() == 42);
    for (const ProfilePass &p : v26->passes)
        CHECK(v214->find(p.name)); // none removed or renamed
    std::set<std::string> added;
    for (const ProfilePass &p : v214->passes)
        if (!v26->find(p.name))
            added.insert(std::string(p.name));
    CHECK(added == kNewIn214);
    CHECK(v26->unknownPreGradPassIsError);
    CHECK_FALSE(v214->unknownPreGradPassIsError);
}

TEST_CASE("Inductor profiles: a torch version chooses its own, else the older one, and says so", "[patterns][profile]")
{
    auto exact = chooseInductorProfile("2.14.1+debian");
    REQUIRE(exact.hasValue());
    CHECK(exact->profile->version == "2.14");
    CHECK(exact->note.empty());
    CHECK(chooseInductorProfile("2.6.0+debian")->profile->version == "2.6");
    auto between = chooseInductorProfile("2.10.0");
    REQUIRE(between.hasValue());
    CHECK(between->profile->version == "2.6");
    CHECK(between->note == "torch 2.10.0 lies between Fusebox's Inductor profiles 2.6 and 2.14: the answers are 2.6's");
    auto newer = chooseInductorProfile("2.16.0a0");
    REQUIRE(newer.hasValue());
    CHECK(newer->profile->version == "2.14");
    CHECK(newer->note == "torch 2.16.0a0 is newer than Fusebox's newest Inductor profile 2.14: the answers are 2.14's");
    CHECK(chooseInductorProfile("2.5.1")->profile->version == "2.6");
    CHECK_FALSE(chooseInductorProfile("2.3.0").hasValue());
    CHECK(chooseInductorProfile("2.3.0").error().message.starts_with("torch 2.3.0 is older than 2.4"));
    CHECK(chooseInductorProfile("banana").error().message
          == "'banana' is not a PyTorch version (expected e.g. 2.14 or 2.6.0)");
}

TEST_CASE("Inductor profiles: each version's config accepts its passes and refuses a newer one's",
          "[patterns][profile]")
{
    const InductorProfile &v26 = *findInductorProfile("2.6");
    const InductorProfile &v214 = *findInductorProfile("2.14");
    // Every one of 2.14's 42 passes, each in a config of its own: accepted
    // under 2.14. Three have no rule, each with a note: two that register no
    // pattern (Inductor's pass changes nothing either), and
    // move_view_after_cat_aten_pass, which no AOT graph can trigger.
    size_t withoutRule = 0;
    for (const ProfilePass &pass : v214.passes) {
        PatternSet set = builtinCatalog();
        PassConfig config;
        (pass.stage == PassStage::PreGrad ? config.preGradFusionOptions
                                          : config.postGradFusionOptions)[std::string(pass.name)]
            = {};
        std::vector<std::string> notes;
        Status s = configurePatterns(set, config, v214, &notes);
        INFO(pass.name << (s ? "" : ": " + s.error().message));
        CHECK(s.isOk());
        const bool modelled = set.find(std::string(pass.name)) != nullptr;
        if (!modelled) {
            ++withoutRule;
            const bool noop = pass.name == "pad_aten_mm_pass" || pass.name == "shape_padding_multiplier";
            CHECK((notes.size() == 1
                   && notes[0].find(noop ? "a pass of Inductor 2.14 that changes no graph"
                                         : "a pass of Inductor 2.14 that Fusebox does not model")
                          != std::string::npos));
        }
        // Under 2.6: the six new ones are refused, naming the version that has them.
        s = configurePatterns(set, config, v26, &notes);
        if (kNewIn214.count(std::string(pass.name))) {
            REQUIRE_FALSE(s.isOk());
            CHECK(s.error().message.find(": a pass of Inductor 2.14, which Inductor 2.6 does not have (choose "
                                         "--inductor-version 2.14")
                  != std::string::npos);
        } else {
            CHECK(s.isOk());
        }
    }
    CHECK(withoutRule == 3);
    // An unknown pre-grad name: 2.6 raises KeyError, 2.14 skips it.
    PatternSet set = builtinCatalog();
    PassConfig typo;
    typo.preGradFusionOptions["batch_lienar"] = {};
    CHECK(configurePatterns(set, typo, v26).error().message
          == "pre_grad_fusion_options/batch_lienar: unknown rule (did you mean 'batch_linear'?)");
    std::vector<std::string> notes;
    REQUIRE(configurePatterns(set, typo, v214, &notes).isOk());
    CHECK(notes
          == std::vector<std::string>{"pre_grad_fusion_options/batch_lienar: not a pass of Inductor 2.14 (did you "
                                      "mean 'batch_linear'?); skipped, as Inductor 2.14 skips a pre-grad pass "
                                      "it does not know"});
    CHECK_FALSE(set.isEnabled("batch_linear"));
    // A post-grad unknown name stays an error in both.
    PassConfig post;
    post.postGradFusionOptions["batch_aten_lienar"] = {};
    CHECK_FALSE(configurePatterns(set, post, v214).isOk());
}

TEST_CASE("Inductor profiles: every pass 2.14 changed is modelled, each as a behaviour the rules follow",
          "[patterns][profile]")
{
    const InductorProfile &v214 = *findInductorProfile("2.14");
    // The last unmodelled change (decompose_mm_pass's CPU thresholds) is
    // modelled now: nothing is answered with 2.6's behaviour under 2.14.
    std::vector<std::string> every;
    for (const ProfilePass &p : v214.passes)
        every.emplace_back(p.name);
    CHECK(v214.unmodelledChanges(every).empty());
    CHECK(findInductorProfile("2.6")->unmodelledChanges({"decompose_mm_pass"}).empty());
    CHECK(v214.behavioursOf("decompose_mm_pass")
          == std::vector<std::string>{std::string(behaviour::kDecomposeMmCpuOptions)});
    // The modelled ones are behaviours the rules follow, per version.
    CHECK(v214.behavioursOf("normalization_pass") == std::vector<std::string>{std::string(behaviour::kNormalizeConcat)});
    CHECK(findInductorProfile("2.6")->behavioursOf("normalization_pass").empty());
}

TEST_CASE("Inductor profiles: devices and disabled_passes act as each version's drivers", "[patterns][profile]")
{
    const InductorProfile &v26 = *findInductorProfile("2.6");
    const InductorProfile &v214 = *findInductorProfile("2.14");
    // Read and written back; a devices option that is no list is one line.
    auto read = readPassConfig(R"({"pre_grad_fusion_options": {"batch_linear": {"min_fuse_set_size": 2,
        "devices": ["cuda"]}}, "disabled_passes": "GROUP_BATCH_FUSION_PASSES"})",
                               "c.json");
    REQUIRE(read.hasValue());
    CHECK(read->preGradDevices.at("batch_linear") == std::vector<std::string>{"cuda"});
    CHECK(read->preGradFusionOptions.at("batch_linear").size() == 1); // devices is no rule option
    CHECK(read->disabledPasses == std::optional<std::string>("GROUP_BATCH_FUSION_PASSES"));
    auto again = readPassConfig(writePassConfig(*read), "again.json");
    REQUIRE(again.hasValue());
    CHECK(*again == *read);
    CHECK(
        readPassConfig(R"({"pre_grad_fusion_options": {"batch_linear": {"devices": "cuda"}}})", "c.json").error().message
        == "c.json: /pre_grad_fusion_options/batch_linear/devices: expected a list of device types such as "
           "[\"cuda\"], found string \"cuda\"");

    // Five linears on CPU inputs (default min_fuse_set_size 5).
    const Graph cpuGraph = test::gb::linearGraph(5).graph;
    auto runWith = [&](const PassConfig &config, const InductorProfile &profile, std::vector<std::string> *notes) {
        PatternSet set = builtinCatalog();
        REQUIRE(configurePatterns(set, config, profile, notes).isOk());
        Graph g = cpuGraph.clone();
        return runPassSchedule(PassSchedule::Inductor, set, config, g);
    };
    PassConfig devices;
    devices.preGradFusionOptions["batch_linear"] = {};
    devices.preGradOrder = {"batch_linear"};
    devices.preGradDevices["batch_linear"] = {"cuda"};
    std::vector<std::string> notes;
    // 2.14 drops the pass: no input is on a CUDA device.
    DriverResult dropped = runWith(devices, v214, &notes);
    CHECK(notes.empty());
    CHECK(dropped.rewrites.empty());
    REQUIRE(dropped.notes.size() == 1);
    CHECK(dropped.notes[0]
          == "batch_linear dropped: its devices are [cuda] and no input of the graph is on one "
             "(cpu), as Inductor drops it (_resolve_pre_grad_fusion_options)");
    devices.preGradDevices["batch_linear"] = {"cpu", "cuda"};
    CHECK(runWith(devices, v214, &notes).rewrites.size() == 1);
    // 2.6 has no devices option: the pass runs, and the note says why.
    devices.preGradDevices["batch_linear"] = {"cuda"};
    CHECK(runWith(devices, v26, &notes).rewrites.size() == 1);
    CHECK(notes
          == std::vector<std::string>{"pre_grad_fusion_options/batch_linear/devices: ignored: Inductor 2.6 has "
                                      "no per-pass devices option (2.14 added it); the pass runs on every graph"});

    // disabled_passes: 2.14 stops the group/batch fusions by their observer's
    // name; 2.6 has no such setting.
    PassConfig disabled;
    disabled.preGradFusionOptions["batch_linear"] = {};
    disabled.preGradFusionOptions["split_cat_pass"] = {};
    disabled.disabledPasses = "group_batch_fusion_passes,SPLIT_CAT_PASS";
    PatternSet set = builtinCatalog();
    CHECK(configurePatterns(set, disabled, v26)
              .error()
              .message.starts_with("disabled_passes: a setting of Inductor 2.14 "
                                   "(torch._inductor.config.disabled_passes), which Inductor 2.6 "
                                   "does not have"));
    REQUIRE(configurePatterns(set, disabled, v214, &notes).isOk());
    CHECK_FALSE(set.isEnabled("batch_linear"));
    CHECK(set.isEnabled("split_cat_pass")); // a pre-grad pattern pass runs outside the observer
    REQUIRE(notes.size() == 2);
    std::sort(notes.begin(), notes.end());
    CHECK(notes[0]
          == "disabled_passes: batch_linear does not run: Inductor 2.14 runs it as group_batch_fusion_passes, "
             "which disabled_passes names");
    CHECK(notes[1].starts_with("disabled_passes: names split_cat_pass, which still runs"));
}

TEST_CASE("Inductor profiles: a rule's source names the lines of the chosen version's code", "[patterns][profile]")
{
    // Read by hand in each root's torch/_inductor/fx_passes/: 2.6.0's
    // PreGradBatchLinearFusion.match is at group_batch_fusion.py:634, 2.14.1's at :649.
    PatternSet set = builtinCatalog(); // the newest profile's
    CHECK(set.find("batch_linear")->inductorSource()
          == "group_batch_fusion.py:649 PreGradBatchLinearFusion.match (is_linear_node_can_be_fused, "
             "group_batch_fusion.py:619)");
    CHECK(set.find("unbind_stack_aten_pass")->inductorSource() == "split_cat.py:2013 merge_unbind_stack_aten");
    applyInductorProfile(set, *findInductorProfile("2.6"));
    CHECK(set.find("batch_linear")->inductorSource()
          == "group_batch_fusion.py:634 PreGradBatchLinearFusion.match (is_linear_node_can_be_fused, "
             "group_batch_fusion.py:604)");
    CHECK(set.find("unbind_stack_aten_pass")->inductorSource() == "split_cat.py:1695 merge_unbind_stack_aten");
}
