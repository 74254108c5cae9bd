#pragma once
// What Inductor's Optimus is in each PyTorch version Fusebox follows: the
// passes a config may name, the drivers' rules for reading a config, and the
// behaviours that changed, as data in one place. The rules, the config reader
// and every report read the chosen profile; nothing else compares versions.
// ../shared/reference/pt2.md lists what changed from 2.6 to 2.14 (read from
// both sources, checked by running both).

#include "core/ir/Expected.h"
#include "core/rewrite/Pattern.h"
#include "core/rewrite/PatternSet.h"

#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// One pass a version's config may name.
struct ProfilePass {
    std::string_view name;
    PassStage stage;
    /// The first profile that has it ("2.6", "2.14").
    std::string_view since;
};

/// The behaviours rules ask for (Pattern::follows): each names one way a
/// version's pass differs from the version before. The profiles list which
/// versions have which; the rules read nothing else about versions.
namespace behaviour {
/// batch_linear_lhs keys on the bias's ndim (None without one), not on its presence.
inline constexpr std::string_view kLhsBiasNdimKey = "batch_linear_lhs.bias_ndim_key";
/// batch_detach also matches the method form x.detach().
inline constexpr std::string_view kDetachMethodForm = "batch_detach.method_form";
/// The pre-grad math fusions (nan_to_num, clamp, dropout) key on, and keep,
/// their positional arguments; 2.6 keys on the keywords alone and drops them.
inline constexpr std::string_view kMathPositionalArgs = "batch_math.positional_args";
/// normalization_pass rewrites torch.concat to torch.cat.
inline constexpr std::string_view kNormalizeConcat = "normalization_pass.concat";
/// normalization_aten_pass also rewrites aten.split.Tensor and
/// split_with_sizes to split_with_sizes(input, sizes, dim=d).
inline constexpr std::string_view kNormalizeAtenSplits = "normalization_aten_pass.splits";
/// decompose_mm_pass's CPU thresholds are options (cpu_max_first/other_
/// dimension_decomposition: mm when a has <= 1 row and b's dims are <= 2048;
/// bmm when both batches are <= 1), and XPU is treated as CUDA; 2.6 decomposes
/// a CPU mm only when a has 1 row and b is at most [64, 16].
inline constexpr std::string_view kDecomposeMmCpuOptions = "decompose_mm_pass.cpu_options";
} // namespace behaviour

/// A pass whose behaviour this version changed from the one before (or a new
/// pass's behaviour that differs from its siblings'), and whether Fusebox
/// models it. Where it does not, answers for that pass are the older
/// version's, and every report that runs the pass says so.
struct BehaviourChange {
    std::string_view pass;
    /// What Pattern::follows() asks for (a behaviour:: name); empty for a
    /// change no rule reads (not modelled).
    std::string_view behaviour;
    /// What changed, in one line.
    std::string_view what;
    bool modelled = false;
};

/// One version's Optimus.
struct InductorProfile {
    /// "2.6", "2.14": the torch minor version whose Inductor this follows.
    std::string_view version;
    /// The pass names its config dictionaries accept, by stage.
    std::vector<ProfilePass> passes;
    /// Inductor 2.6 raises KeyError for a pre-grad key it has no pass for;
    /// 2.14 skips it (pre_grad.py: `if pass_name not in ...: continue`).
    bool unknownPreGradPassIsError = true;
    /// 2.14's per-pass option `devices`: the pass is dropped when no example
    /// input is on one of the listed device types.
    bool perPassDevices = false;
    /// 2.14's config.disabled_passes / TORCHINDUCTOR_DISABLED_PASSES.
    bool disabledPasses = false;
    /// What changed from the profile before this one (empty for the oldest).
    std::vector<BehaviourChange> changes;

    /// The pass named `name`, or nullptr when this version has none.
    const ProfilePass *find(std::string_view name) const;
    /// "Inductor 2.6": how reports name whose answers they give.
    std::string label() const;
    /// One line per pass in `enabled` whose change in this version Fusebox
    /// does not model ("batch_linear_lhs: Inductor 2.14 changed it (...);
    /// Fusebox gives 2.6's answer"); empty when there is none.
    std::vector<std::string> unmodelledChanges(const std::vector<std::string> &enabled) const;
    /// The behaviours `pass` has in this version: every modelled change of
    /// this profile and the older ones that names it.
    std::vector<std::string> behavioursOf(std::string_view pass) const;
};

/// The profiles, oldest first.
const std::vector<InductorProfile> &inductorProfiles();

/// The newest profile: what Fusebox follows when no PyTorch 2 says otherwise.
const InductorProfile &newestInductorProfile();

/// Makes the built-in rules of `set` give `profile`'s answers: each rule
/// follows its behaviours in that version, a built-in rule of a newer
/// version only is disabled (a custom pattern is left as it is), and the set
/// is labelled with the profile ("Inductor 2.14").
void applyInductorProfile(PatternSet &set, const InductorProfile &profile);

/// The profile named exactly ("2.6", "2.14"), or nullptr.
const InductorProfile *findInductorProfile(std::string_view version);

/// The profile that gives a torch version's answers, and why that one.
struct ChosenProfile {
    const InductorProfile *profile = nullptr;
    /// Empty when the version has a profile of its own; else one line:
    /// "torch 2.10.0 lies between Fusebox's Inductor profiles 2.6 and 2.14:
    /// the answers are 2.6's".
    std::string note;
    /// Where the version came from, for reports: "--inductor-version 2.6",
    /// "the PyTorch 2 at chroot ROOT python3: torch 2.14.1+debian".
    std::string source;
};

/// Chooses the profile for `torchVersion` ("2.14.1+debian", "2.10", "2.6.0a0"):
/// its own when there is one, else the newest older one (and says so), else,
/// for a version newer than every profile, the newest (and says so). Errors:
/// text that is no version, and torch older than 2.4 (one line naming what
/// to do).
Expected<ChosenProfile> chooseInductorProfile(std::string_view torchVersion);

} // namespace fusebox
