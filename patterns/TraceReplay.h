#pragma once
// Replaying a production compile from its TORCH_TRACE log: Fusebox's Inductor
// profile runs on the compile's before_pre_grad_graph (and on its
// before_post_grad_graph for the post-grad passes) with the options the
// compile used, and each Optimus pass's result is compared with the graph
// production Inductor logged after the same pass. What fusebox-pass trace
// --replay and the IDE's Compiles panel show.

#include "core/io/LoadedModel.h"
#include "core/io/PassConfig.h"
#include "core/io/TorchTrace.h"
#include "core/ir/OpSchema.h"
#include "patterns/InductorProfile.h"
#include "patterns/TraceCompileOptions.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// The artifact name Inductor logs a pass's graph under: optimus_<FusionClass>
/// for a group/batch fusion (group_batch_fusion.py), <pass>_pre_grad or
/// <pass>_post_grad for a pattern-matcher pass; empty for a pass Inductor
/// logs no graph for (normalization_pass and fuse_fx's passes run before the
/// logged ones, their changes show in the first logged graph).
std::string traceArtifactForPass(std::string_view pass, PassStage stage, bool horizontal);

/// The pass a logged artifact name stands for ("optimus_PreGradBatchLinearFusion"
/// → "batch_linear"); empty when the name is no pass's.
std::string passForTraceArtifact(std::string_view artifact);

/// One pass of the replay, where the log or Fusebox (or both) changed the graph.
struct ReplayStep {
    std::string pass; ///< Fusebox's (and the config's) name: "batch_linear"
    /// Pre-grad (replayed on before_pre_grad_graph) or post-grad (on before_post_grad_graph).
    PassStage stage = PassStage::PreGrad;
    /// What the log calls its graph; empty for a pass Inductor logs none for
    /// (normalization_pass), whose effect shows in the next logged graph.
    std::string artifact;
    std::string address;     ///< the log graph, "0/0/optimus_...", when logged
    int line = 0;            ///< its line in the log (0: not logged)
    bool production = false; ///< production's pass changed the graph (it logged one)
    /// Fusebox's pass fired as Inductor counts it, so that Inductor would
    /// log its graph. A pass can change the graph without that (one Inductor
    /// logs nothing for, or whose counter did not move): then this is false
    /// and fuseboxRemoved/fuseboxAdded still say what it changed.
    bool fusebox = false;
    /// Nodes production's pass removed and added, against the graph logged
    /// before it (productionSince): where a pass Inductor logs nothing for
    /// ran in between (normalization_pass), its change is counted here too,
    /// and not in Fusebox's counts, which are the pass's own.
    size_t productionRemoved = 0, productionAdded = 0;
    /// The logged graph productionRemoved/productionAdded count against
    /// ("before_pre_grad_graph", a previous pass's artifact); empty when
    /// production logged no graph for this pass.
    std::string productionSince;
    size_t fuseboxRemoved = 0, fuseboxAdded = 0;
    /// True when Fusebox's graph after this pass is production's, up to names.
    bool same = false;
    /// False when production's graph before this pass is not in the log, so
    /// there is nothing to compare with: Inductor runs post-grad pattern
    /// passes (unbind_stack_aten_pass, split_cat_aten_pass, …) after passes of
    /// its own that Fusebox does not model. Such a step is listed, with
    /// both sides' counts, and is neither same nor a difference.
    bool compared = true;
    /// One line: "same", or what differs ("aten::cat %cat_3 (f32[..]) is in
    /// Fusebox's graph only"), or why Fusebox cannot compare.
    std::string verdict;
    /// Why Not at the nodes production's pass rewrote, where Fusebox's did not
    /// fire: "linear_3: <first failed check>".
    std::vector<std::string> whyNot;
};

/// A compile's replay.
struct CompileReplay {
    std::string compile; ///< TraceCompile::label()
    bool replayed = false;
    /// Why there is no replay ("served from the FX graph cache: ...", "torch
    /// 2.6 logs no before_pre_grad_graph ..."), or empty.
    std::string notReplayed;
    /// Whose answers these are: "Inductor 2.14 (the log's torch 2.14.1)".
    std::string profile;
    /// Where the options came from ("the compile's fx_graph_runnable") and what they were.
    std::string optionsSource;
    std::vector<ReplayStep> steps;
    /// Fusebox's result against after_pre_grad_graph, and every compared
    /// post-grad step the same.
    bool same = false;
    std::string verdict;
    /// The first compared step whose verdict is not "same" (index into steps), if any.
    std::optional<size_t> firstDifference;
    /// What the post-grad replay covers, when the compile has a
    /// before_post_grad_graph and post-grad Optimus passes ran in production
    /// or Fusebox: the batch fusions are replayed on it (Inductor runs them
    /// first, after dead-code elimination and a reordering); the pattern
    /// passes are listed, not compared, and this says why. Empty otherwise.
    std::string postGradNote;
};

/// How to replay.
struct TraceReplayOptions {
    /// Opens "log#address" (loadModel): the graphs as every command reads them.
    std::function<Expected<LoadedModel>(const std::string &path)> load;
    /// The schemas graphs were read with (pt2GraphSchemas()), for comparing calls.
    const OpSchemaRegistry *schemas = nullptr;
    /// The Inductor profile when the log records no torch version (the user's
    /// choice); null: the newest profile.
    const InductorProfile *fallbackProfile = nullptr;
    /// Who chose fallbackProfile ("--inductor", "Settings ▸ Inductor Version"),
    /// named in CompileReplay::profile.
    std::string fallbackSource;
};

/// Replays one compile (see the file comment). Errors: a graph that does not open.
Expected<CompileReplay> replayCompile(const TraceLog &log, const TraceCompile &compile,
                                      const TraceReplayOptions &options);

} // namespace fusebox
