#include "InductorProfile.h"

#include "Catalog.h"

#include <algorithm>
#include <charconv>

namespace fusebox {
namespace {

using S = PassStage;

/// Inductor 2.6's passes (group_batch_fusion.py PRE_GRAD_FUSIONS /
/// POST_GRAD_FUSIONS, split_cat.py PRE_GRAD_PATTERNS / POST_GRAD_PATTERNS),
/// then what 2.14 added; read from both roots' sources (`fusebox-pass
/// compare-inductor` lists them through the bridge's inductor_passes).
const ProfilePass kPasses[] = {
    {"batch_clamp", S::PreGrad, "2.6"},
    {"batch_detach", S::PreGrad, "2.6"},
    {"batch_layernorm", S::PreGrad, "2.6"},
    {"batch_linear", S::PreGrad, "2.6"},
    {"batch_linear_lhs", S::PreGrad, "2.6"},
    {"batch_nan_to_num", S::PreGrad, "2.6"},
    {"batch_relu", S::PreGrad, "2.6"},
    {"batch_sigmoid", S::PreGrad, "2.6"},
    {"batch_tanh", S::PreGrad, "2.6"},
    {"merge_getitem_cat_pass", S::PreGrad, "2.6"},
    {"merge_splits_pass", S::PreGrad, "2.6"},
    {"merge_stack_tahn_unbind_pass", S::PreGrad, "2.6"},
    {"move_reshape_out_of_split_stack_pass", S::PreGrad, "2.6"},
    {"mutate_cat_pass", S::PreGrad, "2.6"},
    {"normalization_pass", S::PreGrad, "2.6"},
    {"remove_split_with_size_one_pass", S::PreGrad, "2.6"},
    {"split_cat_pass", S::PreGrad, "2.6"},
    {"split_cat_to_slices_pass", S::PreGrad, "2.6"},
    {"split_stack_to_cats_pass", S::PreGrad, "2.6"},
    {"unbind_cat_to_view_pass", S::PreGrad, "2.6"},
    {"unbind_stack_pass", S::PreGrad, "2.6"},
    {"unbind_stack_to_slices_pass", S::PreGrad, "2.6"},
    {"batch_aten_add", S::PostGrad, "2.6"},
    {"batch_aten_div", S::PostGrad, "2.6"},
    {"batch_aten_mul", S::PostGrad, "2.6"},
    {"batch_aten_relu", S::PostGrad, "2.6"},
    {"batch_aten_sigmoid", S::PostGrad, "2.6"},
    {"batch_aten_sub", S::PostGrad, "2.6"},
    {"batch_aten_tanh", S::PostGrad, "2.6"},
    {"batch_linear_post_grad", S::PostGrad, "2.6"},
    {"decompose_mm_pass", S::PostGrad, "2.6"},
    {"group_linear", S::PostGrad, "2.6"},
    {"normalization_aten_pass", S::PostGrad, "2.6"},
    {"pad_aten_mm_pass", S::PostGrad, "2.6"},
    {"shape_padding_multiplier", S::PostGrad, "2.6"},
    {"unbind_stack_aten_pass", S::PostGrad, "2.6"},
    {"batch_dropout", S::PreGrad, "2.14"},
    {"cat_linear", S::PreGrad, "2.14"},
    {"einsum_to_pointwise_pass", S::PreGrad, "2.14"},
    {"move_view_after_cat_aten_pass", S::PostGrad, "2.14"},
    {"select_cat_aten_pass", S::PostGrad, "2.14"},
    {"split_cat_aten_pass", S::PostGrad, "2.14"},
};

/// "2.14" -> {2, 14}; nullopt for text that does not start with two numbers.
std::optional<std::pair<int, int>> majorMinor(std::string_view text)
{
    int major = 0, minor = 0;
    const char *end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, major);
    if (ec != std::errc() || p == end || *p != '.')
        return std::nullopt;
    auto [q, ec2] = std::from_chars(p + 1, end, minor);
    if (ec2 != std::errc())
        return std::nullopt;
    return std::make_pair(major, minor);
}

std::vector<ProfilePass> passesUpTo(std::string_view version)
{
    std::vector<ProfilePass> out;
    const auto limit = majorMinor(version);
    for (const ProfilePass &p : kPasses)
        if (majorMinor(p.since) <= limit)
            out.push_back(p);
    return out;
}

} // namespace

const ProfilePass *InductorProfile::find(std::string_view name) const
{
    auto it = std::find_if(passes.begin(), passes.end(), [&](const ProfilePass &p) { return p.name == name; });
    return it == passes.end() ? nullptr : &*it;
}

std::string InductorProfile::label() const
{
    return "Inductor " + std::string(version);
}

std::vector<std::string> InductorProfile::unmodelledChanges(const std::vector<std::string> &enabled) const
{
    std::vector<std::string> out;
    const auto &all = inductorProfiles();
    auto self = std::find_if(all.begin(), all.end(), [&](const InductorProfile &p) { return p.version == version; });
    const std::string before = self != all.begin() && self != all.end() ? std::string((self - 1)->version) : "";
    for (const BehaviourChange &c : changes)
        if (!c.modelled && std::find(enabled.begin(), enabled.end(), c.pass) != enabled.end())
            out.push_back(std::string(c.pass) + ": " + label() + " changed it (" + std::string(c.what)
                          + "); Fusebox does not model the change yet and gives Inductor " + before + "'s answer");
    return out;
}

std::vector<std::string> InductorProfile::behavioursOf(std::string_view pass) const
{
    std::vector<std::string> out;
    for (const InductorProfile &p : inductorProfiles()) {
        if (majorMinor(p.version) > majorMinor(version))
            break;
        for (const BehaviourChange &c : p.changes)
            if (c.pass == pass && c.modelled && !c.behaviour.empty())
                out.emplace_back(c.behaviour);
    }
    return out;
}

void applyInductorProfile(PatternSet &set, const InductorProfile &profile)
{
    for (const Pattern *p : set.all()) {
        Pattern *rule = set.find(p->name());
        rule->setBehaviours(profile.behavioursOf(rule->name()));
        const bool inSomeProfile = std::any_of(std::begin(kPasses), std::end(kPasses),
                                               [&](const ProfilePass &pass) { return pass.name == rule->name(); });
        if (inSomeProfile && !profile.find(rule->name()))
            set.setEnabled(rule->name(), false);
    }
    setInductorSources(set, profile.version);
    set.setInductorLabel(profile.label());
}

const std::vector<InductorProfile> &inductorProfiles()
{
    static const std::vector<InductorProfile> profiles = [] {
        InductorProfile v26;
        v26.version = "2.6";
        v26.passes = passesUpTo("2.6");
        InductorProfile v214;
        v214.version = "2.14";
        v214.passes = passesUpTo("2.14");
        v214.unknownPreGradPassIsError = false;
        v214.perPassDevices = true;
        v214.disabledPasses = true;
        // ../shared/reference/pt2.md, "What changed": read from both sources.
        using namespace behaviour;
        v214.changes = {
            {"batch_linear_lhs", kLhsBiasNdimKey, "its group key uses the bias's ndim", true},
            {"batch_detach", kDetachMethodForm, "it also groups the method form x.detach()", true},
            {"batch_nan_to_num", kMathPositionalArgs, "it keys on and keeps positional arguments", true},
            {"batch_clamp", kMathPositionalArgs,
             "it keys on and keeps positional arguments (2.6 fails on a positional clamp)", true},
            {"batch_dropout", kMathPositionalArgs,
             "new: keys on and keeps positional arguments, as 2.14's "
             "nan_to_num and clamp",
             true},
            {"normalization_pass", kNormalizeConcat, "it rewrites torch.concat to torch.cat", true},
            {"normalization_aten_pass", kNormalizeAtenSplits,
             "it also rewrites aten.split.Tensor and split_with_sizes to split_with_sizes(input, sizes, dim=d)", true},
            {"decompose_mm_pass", kDecomposeMmCpuOptions, "new CPU thresholds and options, and XPU as CUDA", true},
            // Counters only: 2.14 counts in counters[TORCHINDUCTOR_PATTERN_MATCH_BACKEND],
            // "inductor" unless that is set, where Fusebox reports them and
            // the bridge reads them.
            {"split_cat_to_slices_pass", {}, "its counters go to counters[TORCHINDUCTOR_PATTERN_MATCH_BACKEND]", true},
            {"unbind_stack_aten_pass", {}, "its counters go to counters[TORCHINDUCTOR_PATTERN_MATCH_BACKEND]", true},
        };
        return std::vector<InductorProfile>{v26, v214};
    }();
    return profiles;
}

const InductorProfile &newestInductorProfile()
{
    return inductorProfiles().back();
}

const InductorProfile *findInductorProfile(std::string_view version)
{
    for (const InductorProfile &p : inductorProfiles())
        if (p.version == version)
            return &p;
    return nullptr;
}

Expected<ChosenProfile> chooseInductorProfile(std::string_view torchVersion)
{
    const auto wanted = majorMinor(torchVersion);
    if (!wanted)
        return Error{"'" + std::string(torchVersion) + "' is not a PyTorch version (expected e.g. 2.14 or 2.6.0)"};
    if (*wanted < std::make_pair(2, 4))
        return Error{"torch " + std::string(torchVersion)
                     + " is older than 2.4, the oldest PyTorch 2 Fusebox reads; use torch >= 2.4 (scripts/setup-pt2.sh "
                       "makes 2.6 and Debian testing's)"};
    const auto &profiles = inductorProfiles();
    const std::string shown = "torch " + std::string(torchVersion);
    const InductorProfile *older = nullptr;
    for (const InductorProfile &p : profiles) {
        const auto v = majorMinor(p.version);
        if (v == wanted)
            return ChosenProfile{&p, {}, {}};
        if (v < wanted)
            older = &p;
    }
    if (!older)
        return ChosenProfile{&profiles.front(), shown + " is older than Fusebox's oldest Inductor profile "
                                                    + std::string(profiles.front().version) + ": the answers are "
                                                    + std::string(profiles.front().version) + "'s"};
    if (older == &profiles.back())
        return ChosenProfile{older, shown + " is newer than Fusebox's newest Inductor profile "
                                        + std::string(older->version) + ": the answers are "
                                        + std::string(older->version) + "'s"};
    const InductorProfile &newer = *(older + 1);
    return ChosenProfile{older, shown + " lies between Fusebox's Inductor profiles " + std::string(older->version)
                                    + " and " + std::string(newer.version) + ": the answers are "
                                    + std::string(older->version) + "'s"};
}

} // namespace fusebox
