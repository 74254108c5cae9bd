#pragma once

// The "to slices" family (split_cat.py construct_cat_args and
// update_args_from_{split,unbind}_getitem): a cat/stack input list is cut into
// runs of consecutive inputs that are getitems of one split/unbind; a run that
// reads every output in order becomes the parent's input, a consecutive
// stretch of at least threshold_to_cat getitems becomes one slice, shorter
// stretches stay as they are.

#include "SplitCatUtils.h"

#include <functional>
#include <string>

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

// --- the family's analysis and rewrite ------------------------------------------
// The to-slices rules differ only in how a run's parent is read and checked
// and in how a merged part is built; planSliceRuns() and rewriteSliceRuns()
// are the rest, so that the rules record the same checks in the same order.

/// The part of a to-slices plan the family shares; each rule's plan derives
/// from it and adds what it read of the runs' parents.
struct SliceRunsPlan {
    /// Every node the rewrite covers (coveredNodes).
    std::vector<NodeId> nodes;
    /// The cat or stack whose list is rewritten.
    NodeId owner;
    std::vector<RunPart> parts;
    /// The owner's dim, non-negative.
    int64_t ownerDim = 0;
};

/// What a rule makes of one run of getitems of a parent.
struct RunReading {
    enum class Kind { Plan, Keep, Fail };
    Kind kind = Kind::Fail;
    /// Plan: the parent's number of outputs (planRun's count).
    int64_t outputs = 0;
    /// Keep: why the run stays as it is (part of the explanation when nothing merges).
    std::string reason;

    static RunReading plan(int64_t outputs) { return {Kind::Plan, outputs, {}}; }
    static RunReading keep(std::string reason) { return {Kind::Keep, 0, std::move(reason)}; }
    /// A recorded check failed: the rule does not apply.
    static RunReading fail() { return {}; }
};

/// What a to-slices rule adds to planSliceRuns().
struct SliceRunsRule {
    /// The owner is a stack (its dim refers to its own rank), else a cat (catRank).
    bool stack = false;
    /// threshold_to_cat.
    int64_t threshold = kDefaultThresholdToCat;
    /// The getitem a list input stands for (groupRuns); the input itself when empty.
    std::function<NodeId(NodeId)> getitemOf;
    /// Which getitem sources form runs (groupRuns).
    std::function<bool(const Node &)> isParent;
    /// Optional: checks once the owner's dim is known (plan.ownerDim), before
    /// the list is cut into runs. False when one failed.
    std::function<bool()> checkOwner;
    /// Optional: checks on the runs before any parent is read. False when one failed.
    std::function<bool(const std::vector<InputRun> &)> checkRuns;
    /// Reads and checks the parent of a run, recording its checks.
    std::function<RunReading(const InputRun &)> readRun;
    /// Optional: told after a run is planned whether any of it merged.
    std::function<void(const InputRun &, bool merged)> planned;
};

/// The analysis of the to-slices rules: reads the owner's tensor list and dim
/// ("<cat|stack> dim is known"), runs rule.checkOwner, cuts the list into
/// runs (rule.checkRuns), keeps the runs of other inputs, plans each parent's
/// run as rule.readRun says (planRun, keepRun) and records checkShortens.
/// Fills `plan` (owner, ownerDim, parts, nodes); false after a failed check.
bool planSliceRuns(const Graph &graph, NodeId owner, const SliceRunsRule &rule, SliceRunsPlan &plan, MatchTrace &trace);

/// The base of the to-slices rules: a pre-grad rule on a cat or a stack
/// with the threshold_to_cat option.
template<typename Plan>
class SliceRunsPattern : public PlannedPattern<Plan> {
protected:
    SliceRunsPattern(std::string name, int benefit, bool stack, std::string description)
        : PlannedPattern<Plan>(std::move(name), PassStage::PreGrad, benefit, {stack ? "aten::stack" : "aten::cat"},
                               std::move(description))
        , m_stack(stack)
    {
        this->options().set("threshold_to_cat", kDefaultThresholdToCat);
    }

    /// Whether the rule rewrites stacks (else cats).
    bool isStack() const { return m_stack; }

    /// A rule with the owner's kind and threshold_to_cat filled in.
    SliceRunsRule sliceRunsRule() const
    {
        SliceRunsRule rule;
        rule.stack = m_stack;
        rule.threshold = this->options().getInt("threshold_to_cat", kDefaultThresholdToCat);
        return rule;
    }

private:
    bool m_stack;
};

/// What a to-slices rule adds to rewriteSliceRuns().
struct RunRewrite {
    /// The dim the rewritten list is cat on.
    int64_t catDim = 0;
    /// Kept inputs are stacked on catDim, each stretch between merged parts
    /// in one stack (the owner is a stack and the merged parts are built in
    /// stacked form); else they are listed as they are.
    bool stackKept = false;
    /// Builds the value of a Whole or Slice part.
    std::function<NodeId(NodeBuilder &, const RunPart &)> merged;
    /// Optional: turns the joined list (its one item, or their cat) into the
    /// owner's replacement.
    std::function<NodeId(NodeBuilder &, NodeId joined)> finish;
};

/// The rewrite of the to-slices rules: builds the new list from `parts`
/// before `owner` (in the owner's scope), joins it, makes every reader of the
/// owner read the result, and erases the owner when it is left unused.
void rewriteSliceRuns(PatternRewriter &rewriter, NodeId owner, const std::vector<RunPart> &parts, const RunRewrite &how);

} // namespace fusebox::splitcat
