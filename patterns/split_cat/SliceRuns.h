#pragma once

// The "to slices" family (split_cat.py construct_cat_args and
// update_args_from_{split,unbind}_getitem): a cat/stack input list is cut into
// runs of consecutive inputs that are getitems of one split/unbind; a run that
// reads every output in order becomes the parent's input, a consecutive
// stretch of at least threshold_to_cat getitems becomes one slice, shorter
// stretches stay as they are.

#include "SplitCatUtils.h"

#include <functional>

namespace fusebox::splitcat {

/// A maximal stretch of list inputs reading one parent, or of other inputs.
struct InputRun {
    /// The split/unbind the getitems read; invalid for another input.
    NodeId parent;
    /// The list inputs of the run, in list order.
    std::vector<NodeId> inputs;
    /// The getitem behind each input (the input itself unless it wraps one).
    std::vector<NodeId> getitems;
    std::vector<int64_t> indices;
};

/// Cuts `inputs` into runs. `getitemOf` returns the getitem an input stands
/// for (invalid when it cannot join a run); `isParent` says which getitem
/// sources form runs.
std::vector<InputRun> groupRuns(const Graph &graph, const std::vector<NodeId> &inputs,
                                const std::function<NodeId(NodeId)> &getitemOf,
                                const std::function<bool(const Node &)> &isParent);

/// One item of the rewritten input list.
struct RunPart {
    enum class Kind { Keep, Whole, Slice };
    Kind kind = Kind::Keep;
    /// Keep: the list inputs kept as they are.
    std::vector<NodeId> keep;
    /// Whole/Slice: the parent and the index range first..last.
    NodeId parent;
    int64_t first = 0, last = 0;
};

/// Appends the parts of one run of a parent with `count` outputs: Whole when it
/// reads all outputs in order, else a Slice per consecutive stretch of at
/// least `threshold` getitems, the rest kept. Appends to `why` when nothing of
/// the run is merged.
void planRun(const Graph &graph, const InputRun &run, int64_t count, int64_t threshold, std::vector<RunPart> &parts,
             std::string &why);

/// Appends a Keep part for every input of the run, and `reason` to `why`.
void keepRun(const InputRun &run, std::vector<RunPart> &parts, std::string &why, const std::string &reason);

/// Number of list items the parts produce, and whether any part merges.
size_t partCount(const std::vector<RunPart> &parts);
bool anyMerged(const std::vector<RunPart> &parts);

/// Records the final check of the family: the parts merge something and the
/// input list gets shorter (or becomes a single tensor).
bool checkShortens(const Graph &graph, NodeId owner, const std::vector<NodeId> &inputs,
                   const std::vector<RunPart> &parts, const std::string &why, MatchTrace &trace);

/// The nodes a to-slices rewrite covers: the owner and every getitem of a merged part.
std::vector<NodeId> coveredNodes(NodeId owner, const std::vector<InputRun> &runs, const std::vector<RunPart> &parts);

} // namespace fusebox::splitcat
