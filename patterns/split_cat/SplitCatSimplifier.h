#pragma once

// PyTorch's SplitCatSimplifier and UnbindCatRemover (split_cat.py), shared by
// split_cat_pass and unbind_stack_pass: the next users of a split (the readers
// of its getitems) read runs of consecutive sections; runs become single
// sections of a smaller split (or the split's input), and cat/stack users get
// unflatten/movedim/unsqueeze/flatten transforms where their dim differs.

#include "SplitCatUtils.h"

namespace fusebox::splitcat {

/// A closed range of getitem indices: sections first..last.
struct SectionRange {
    int64_t first = 0;
    int64_t last = 0;
    friend bool operator==(const SectionRange &, const SectionRange &) = default;
};

/// The list-producing node being simplified: a normalized split, or an unbind
/// (every section of size 1).
struct SimplifierSource {
    NodeId node;
    NodeId input;
    int64_t dim = 0; ///< non-negative
    /// As the source spells it: Inductor's UnbindCatRemover compares and moves
    /// dims as written (movedim(x, -2, 1) where -2 and 1 are the same dim).
    int64_t writtenDim = 0;
    std::vector<int64_t> sections;
    bool unbind = false;
    /// Its getitems by index.
    std::map<int64_t, NodeId> items;
};

/// How one input of a cat/stack user is rewritten.
struct InputTransform {
    std::optional<int64_t> unflattenCount; ///< unflatten(dim, (count, -1))
    std::optional<std::pair<int64_t, int64_t>> movedim;
    std::optional<int64_t> unsqueezeDim; ///< gathered into one stack with its neighbours
    std::optional<std::pair<int64_t, int64_t>> flatten;
};

/// One input of a next user after merging consecutive getitems: a range of
/// sections, or another node.
struct UserInput {
    std::optional<SectionRange> range;
    NodeId other;
};

/// A reader of the source's getitems.
struct NextUser {
    NodeId node;
    bool listUser = false; ///< a cat or stack whose tensors are a literal list
    bool stack = false;
    int64_t dim = 0;        ///< non-negative
    int64_t writtenDim = 0; ///< as the user spells it (0 when it gives none)
    std::vector<UserInput> inputs;
    std::vector<InputTransform> transforms; ///< list users only, one per input
};

struct SimplifyPlan {
    SimplifierSource source;
    std::vector<NextUser> users;
    /// The simplified sections as element ranges [start, end) along dim.
    std::vector<std::pair<int64_t, int64_t>> ranges;
    /// Every node the rewrite replaces or edits.
    std::vector<NodeId> nodes;
};

/// The distinct readers of the getitems, in getitem index order.
std::vector<NodeId> nextUsers(const Graph &graph, const std::map<int64_t, NodeId> &items);

/// Checks that simplification applies and plans it, recording why not.
std::optional<SimplifyPlan> analyzeSimplify(const Graph &graph, SimplifierSource source, MatchTrace &trace);

/// What 2.6's get_simplified_split_ranges assigns to
/// counters["inductor"]["scmerge_split_sections_removed"] for `src`
/// (split_cat.py:810): the sections its ranges merge away, or nullopt when
/// they merge none. 2.6 assigns it before the rest of the checks, so a
/// simplification that then stops (UnbindCatRemover wants one range; a
/// transform is not handled) still sets the counter.
std::optional<int64_t> inductorSectionsRemoved(const Graph &graph, const SimplifierSource &src);

/// `counts` (a list pattern's match at a reader, or nothing) with
/// scmerge_split_sections_removed assigned as inductorSectionsRemoved says,
/// when the match reached the simplifier: `readSource` gives the source
/// (nullopt where 2.6's handler stops before simplify).
template<typename ReadSource>
InductorCounts withSectionsRemoved(const Graph &graph, InductorCounts counts, ReadSource &&readSource)
{
    if (counts.added.empty())
        return counts;
    if (std::optional<SimplifierSource> src = readSource())
        if (auto removed = inductorSectionsRemoved(graph, *src))
            counts.assigned["scmerge_split_sections_removed"] = *removed;
    return counts;
}

/// Applies a plan analyzeSimplify() returned on the rewriter's graph.
void applySimplify(PatternRewriter &rewriter, const SimplifyPlan &plan);

/// counters["inductor"] for applying `plan`, as 2.6's SplitCatSimplifier
/// moves them whichever pass runs it: unbind_stack_pass once
/// (split_cat.py:708), scmerge_split_removed once, scmerge_cat_removed per
/// cat/stack reader, scmerge_cat_added per reader rebuilt as a cat of several
/// parts, scmerge_split_added when a smaller split remains, and
/// scmerge_split_sections_removed assigned the sections merged away.
InductorCounts simplifierCounts(const Graph &graph, const SimplifyPlan &plan);

} // namespace fusebox::splitcat
