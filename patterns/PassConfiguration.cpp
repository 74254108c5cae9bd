#include "PassConfiguration.h"

#include "InductorProfile.h"

#include "custom/PatternCompiler.h"
#include "core/io/PatternFile.h"

#include "core/ir/Spelling.h"

#include <cctype>
#include <set>

namespace fusebox {
namespace {

/// Post-grad pass names Inductor accepts (split_cat.py post_grad_pass_names)
/// that Fusebox has no rule for, and why that leaves the answer right or not.
struct UnmodelledPass {
    const char *name;
    const char *why;
    /// True when Inductor's pass cannot change the graph either, so the
    /// answer is Inductor's; false when Fusebox's answer may differ.
    bool inductorChangesNothing;
};
constexpr UnmodelledPass kUnmodelledPostGrad[] = {
    {"pad_aten_mm_pass",
     "it registers no pattern; its k_threshold_to_pad steers pad_mm, the joint-graph padding of mm operands that "
     "a benchmark decides on GPU, outside the Optimus passes",
     true},
    {"shape_padding_multiplier",
     "it registers no pattern; its value is the speed-up pad_mm's benchmark must show (pad_mm.py "
     "is_padded_faster), outside the Optimus passes",
     true},
    {"move_view_after_cat_aten_pass",
     "it matches aten.reshape.default, which an AOT graph does not hold (reshape is decomposed to view before "
     "the post-grad passes run); Fusebox does not model it for graphs that do",
     false},
};

const UnmodelledPass *unmodelledPass(const std::string &rule, PassStage stage)
{
    if (stage != PassStage::PostGrad)
        return nullptr;
    for (const UnmodelledPass &p : kUnmodelledPostGrad)
        if (rule == p.name)
            return &p;
    return nullptr;
}

std::string listed(const std::vector<std::string> &names)
{
    std::string list;
    for (const std::string &k : names)
        list += (list.empty() ? "" : ", ") + k;
    return list.empty() ? std::string("no options") : list;
}

/// The profile, newer than `profile`, that first has a pass `rule`; nullptr when none.
const InductorProfile *newerProfileWith(const std::string &rule, const InductorProfile &profile)
{
    for (const InductorProfile &p : inductorProfiles())
        if (p.find(rule) && !profile.find(rule))
            return &p;
    return nullptr;
}

Status applySection(PatternSet &patterns, const std::map<std::string, std::map<std::string, ConfigValue>> &section,
                    PassStage stage, const InductorProfile &profile, std::set<std::string> &enabled,
                    std::vector<std::string> &notes)
{
    const std::string inductor = profile.label();
    const std::string sectionName = std::string(toString(stage)) + "_fusion_options";
    std::vector<std::string> names;
    for (const Pattern *p : patterns.all())
        names.push_back(p->name());
    for (const auto &[rule, options] : section) {
        const std::string where = sectionName + "/" + rule;
        Pattern *p = patterns.find(rule);
        if (!p) {
            const ProfilePass *known = profile.find(rule);
            if (known && known->stage == stage) {
                const UnmodelledPass *u = unmodelledPass(rule, stage);
                if (u && u->inductorChangesNothing)
                    notes.push_back(where + ": a pass of " + inductor + " that changes no graph (" + u->why
                                    + "); Fusebox leaves the graph as it is too");
                else
                    notes.push_back(where + ": a pass of " + inductor + " that Fusebox does not model ("
                                    + (u ? std::string(u->why) : "new in " + std::string(known->since))
                                    + "); Inductor runs it, Fusebox leaves the graph as it is");
                continue;
            }
            if (const InductorProfile *newer = newerProfileWith(rule, profile))
                return Error{where + ": a pass of Inductor " + std::string(newer->version) + ", which " + inductor
                             + " does not have (choose --inductor-version " + std::string(newer->version)
                             + " or newer, or leave it out)"};
            // Inductor 2.6 raises a KeyError for a name it has no pass for;
            // 2.14 skips an unknown pre-grad key.
            if (stage == PassStage::PreGrad && !profile.unknownPreGradPassIsError) {
                notes.push_back(where + ": not a pass of " + inductor + didYouMean(rule, names) + "; skipped, as "
                                + inductor + " skips a pre-grad pass it does not know");
                continue;
            }
            return Error{where + ": unknown rule" + didYouMean(rule, names)};
        }
        // A built-in rule of a newer Inductor (batch_dropout is 2.14's):
        // refused as that version's, not run as if this one had it.
        if (const InductorProfile *newer = newerProfileWith(rule, profile); newer && !profile.find(rule))
            return Error{where + ": a pass of Inductor " + std::string(newer->version) + ", which " + inductor
                         + " does not have (choose --inductor-version " + std::string(newer->version)
                         + " or newer, or leave it out)"};
        if (p->stage() != stage)
            return Error{where + ": is a " + std::string(toString(p->stage())) + " rule; list it under "
                         + std::string(toString(p->stage())) + "_fusion_options"};
        const bool fusion = p->family() == PatternFamily::Horizontal;
        std::vector<std::string> known;
        for (const auto &[name, value] : p->options().values())
            known.push_back(name);
        bool dropped = false;
        for (const auto &[name, value] : options) {
            if (name == "counter") {
                // A pattern pass runs range(counter) times; a fusion ignores it.
                if (fusion) {
                    notes.push_back(where + "/counter: ignored: " + inductor + " runs a group/batch fusion once");
                } else if (!std::holds_alternative<int64_t>(value)) {
                    return Error{where + "/counter: expected an integer (Inductor runs the pass range(counter) times)"};
                } else if (std::get<int64_t>(value) < 1) {
                    notes.push_back(where + "/counter: " + std::to_string(std::get<int64_t>(value))
                                    + ": the pass never runs (range(counter) is empty), as in " + inductor);
                }
                std::visit([&](auto v) { p->options().set(name, v); }, value);
                continue;
            }
            if (name == "require_fbgemm" && fusion && stage == PassStage::PostGrad) {
                if (value == ConfigValue(true)) {
                    notes.push_back(where + ": requires fbgemm, which open-source PyTorch lacks: " + inductor
                                    + " drops the fusion (group_batch_fusion.py has_fbgemm), and so does Fusebox");
                    dropped = true;
                }
                continue;
            }
            if (!p->options().has(name)) {
                // 2.6 merges a fusion's options over its defaults, and a
                // pattern pass reads only counter and threshold_to_cat: other
                // keys are carried along and never read.
                notes.push_back(where + "/" + name + ": ignored, as " + inductor
                                + " ignores options a pass does not read" + didYouMean(name, known) + "; " + rule
                                + " takes: " + listed(known));
                continue;
            }
            std::visit([&](auto v) { p->options().set(name, v); }, value);
        }
        if (!dropped)
            enabled.insert(rule);
    }
    return Status::ok();
}

/// The GraphTransformObserver name Inductor 2.14 runs a pass under, which
/// config.disabled_passes is matched against; empty for a pass it runs
/// without one (pre-grad pattern passes, the fuse_fx rules), which
/// disabled_passes cannot stop.
std::string observedPassName(const Pattern &p)
{
    const bool fusion = p.family() == PatternFamily::Horizontal;
    if (p.stage() == PassStage::PreGrad)
        return fusion ? "group_batch_fusion_passes" : std::string();
    return fusion ? "post_grad_custom_pre_pass" : p.name();
}

std::string upper(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

/// config.disabled_passes: 2.14's GraphTransformObserver skips a pass whose
/// name, upper-cased, is a substring of it (_check_disable_pass).
Status applyDisabledPasses(PatternSet &patterns, const PassConfig &config, const InductorProfile &profile,
                           std::set<std::string> &enabled, std::vector<std::string> &notes)
{
    if (!config.disabledPasses)
        return Status::ok();
    if (!profile.disabledPasses)
        return Error{"disabled_passes: a setting of Inductor 2.14 (torch._inductor.config.disabled_passes), which "
                     + profile.label() + " does not have (choose --inductor-version 2.14 or newer, or leave it out)"};
    const std::string disabled = upper(*config.disabledPasses);
    for (const Pattern *p : patterns.all()) {
        if (!enabled.count(p->name()))
            continue;
        const std::string observed = observedPassName(*p);
        if (!observed.empty() && disabled.find(upper(observed)) != std::string::npos) {
            enabled.erase(p->name());
            notes.push_back("disabled_passes: " + p->name() + " does not run: " + profile.label() + " runs it as "
                            + observed + ", which disabled_passes names");
        } else if (observed.empty() && disabled.find(upper(p->name())) != std::string::npos) {
            notes.push_back("disabled_passes: names " + p->name() + ", which still runs: " + profile.label()
                            + " runs pre-grad pattern passes outside GraphTransformObserver, where disabled_passes "
                              "is read (group/batch fusions stop with group_batch_fusion_passes)");
        }
    }
    return Status::ok();
}

/// The per-pass `devices` option: 2.14 drops a pre-grad pass by the graph's
/// input devices (InductorScheduleDriver reads Pattern::requiredDevices) and
/// ignores it after grad; 2.6 ignores it everywhere.
void applyDevices(PatternSet &patterns, const PassConfig &config, const InductorProfile &profile,
                  const std::set<std::string> &enabled, std::vector<std::string> &notes)
{
    for (const Pattern *p : patterns.all())
        patterns.find(p->name())->setRequiredDevices({});
    for (const auto &[stage, devices] : {std::pair{PassStage::PreGrad, &config.preGradDevices},
                                         std::pair{PassStage::PostGrad, &config.postGradDevices}})
        for (const auto &[rule, types] : *devices) {
            Pattern *p = patterns.find(rule);
            if (!p || !enabled.count(rule))
                continue;
            const std::string where = std::string(toString(stage)) + "_fusion_options/" + rule + "/devices";
            if (!profile.perPassDevices)
                notes.push_back(where + ": ignored: " + profile.label()
                                + " has no per-pass devices option (2.14 added it); the pass runs on every graph");
            else if (stage == PassStage::PostGrad)
                notes.push_back(where + ": ignored: " + profile.label()
                                + " reads devices before grad only; the pass runs on every graph");
            else
                p->setRequiredDevices(types);
        }
}

} // namespace

Status configurePatterns(PatternSet &patterns, const PassConfig &config, std::vector<std::string> *notes)
{
    return configurePatterns(patterns, config, *findInductorProfile("2.6"), notes);
}

Status configurePatterns(PatternSet &patterns, const PassConfig &config, const InductorProfile &profile,
                         std::vector<std::string> *notes)
{
    std::set<std::string> enabled;
    std::vector<std::string> lines;
    if (Status s = applySection(patterns, config.preGradFusionOptions, PassStage::PreGrad, profile, enabled, lines); !s)
        return s;
    if (Status s = applySection(patterns, config.postGradFusionOptions, PassStage::PostGrad, profile, enabled, lines);
        !s)
        return s;
    if (Status s = applyDisabledPasses(patterns, config, profile, enabled, lines); !s)
        return s;
    applyDevices(patterns, config, profile, enabled, lines);
    if (notes)
        *notes = std::move(lines);
    applyInductorProfile(patterns, profile);
    for (const Pattern *p : patterns.all())
        patterns.setEnabled(p->name(), enabled.count(p->name()) != 0);
    return Status::ok();
}

Expected<std::vector<std::string>> addCustomPatterns(PatternSet &patterns, const PassConfig &config,
                                                     const std::string &configName, const OpSchemaRegistry *schemas)
{
    std::vector<std::string> added;
    for (size_t i = 0; i < config.customPatterns.size(); ++i) {
        const CustomPatternSource &source = config.customPatterns[i];
        Expected<PatternFile> file = source.text.empty()
                                         ? readPatternFile(source.resolvedFile.empty() ? source.file
                                                                                       : source.resolvedFile,
                                                           {schemas, {}})
                                         : parsePatternFile(source.text, {schemas, configName + ": custom_patterns["
                                                                                       + std::to_string(i) + "]"});
        if (!file)
            return file.error();
        auto compiled = compilePatterns(*file, schemas);
        if (!compiled)
            return compiled.error();
        for (std::unique_ptr<Pattern> &p : *compiled) {
            if (patterns.find(p->name()))
                return Error{configName + ": custom pattern '" + p->name() + "' is already defined"};
            added.push_back(p->name());
            patterns.add(std::move(p));
        }
    }
    return added;
}

PassConfig passConfigFor(const PatternSet &patterns)
{
    PassConfig config;
    for (const Pattern *p : patterns.enabled()) {
        const bool pre = p->stage() == PassStage::PreGrad;
        auto &section = pre ? config.preGradFusionOptions : config.postGradFusionOptions;
        (pre ? config.preGradOrder : config.postGradOrder).push_back(p->name());
        if (!p->requiredDevices().empty())
            (pre ? config.preGradDevices : config.postGradDevices)[p->name()] = p->requiredDevices();
        auto &options = section[p->name()];
        for (const auto &[name, value] : p->options().values())
            std::visit([&](auto v) { options[name] = v; }, value);
    }
    return config;
}

std::function<bool(const Graph &, const Match &)> rejectionFilter(const PassConfig &config)
{
    // No filter at all when nothing is rejected: the driver then computes
    // no match signatures.
    if (config.rejected.empty())
        return {};
    std::set<std::string> signatures;
    for (const RejectedMatch &r : config.rejected)
        signatures.insert(r.signature);
    return [signatures](const Graph &graph, const Match &match) {
        return signatures.count(matchSignature(graph, match)) != 0;
    };
}

} // namespace fusebox
