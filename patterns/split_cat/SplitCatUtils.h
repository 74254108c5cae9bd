#pragma once

// Helpers shared by the vertical split/cat rules: reading normalized splits,
// unbinds, getitems and cat/stack dims with recorded checks. NodeBuilder.h
// creates nodes; PlannedPattern.h is the rules' common base.

#include "NodeBuilder.h"
#include "PlannedPattern.h"

#include "core/rewrite/MatchUtils.h"
#include "core/rewrite/Pattern.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::splitcat {

/// Records a condition whose observed values are only worth showing when it
/// fails: `fail` runs only then (an explanation shows an empty "actual" for a
/// passed check rather than a failure text).
template<typename Fail>
bool require(MatchTrace &trace, bool ok, std::string_view description, Fail &&fail, CheckNodes nodes = {})
{
    return trace.check(
        ok, description, [&] { return ok ? std::string() : std::string(fail()); }, nodes);
}

/// require() for a condition that reads a value's shape: when `known` is
/// false the check is undecided (MatchTrace::requireShape), not failed.
template<typename Fail>
bool requireShape(MatchTrace &trace, bool known, std::string_view description, Fail &&fail, CheckNodes nodes = {})
{
    return trace.requireShape(
        known, description, [&] { return known ? std::string() : std::string(fail()); }, nodes);
}

// --- op names ----------------------------------------------------------------
inline constexpr std::string_view kSplit = "aten::split";
inline constexpr std::string_view kSplitWithSizes = "aten::split_with_sizes";
inline constexpr std::string_view kUnbind = "aten::unbind";
inline constexpr std::string_view kCat = "aten::cat";
/// torch.concat, which the FX reader keeps apart from cat (Inductor 2.6's
/// passes do not match it; 2.14's normalization_pass makes it a cat).
inline constexpr std::string_view kConcat = "aten::concat";
inline constexpr std::string_view kStack = "aten::stack";
inline constexpr std::string_view kSqueeze = "aten::squeeze";

/// True for aten::split (any overload) and aten::split_with_sizes.
bool isSplitOp(const Node &node);

/// A call as Inductor's post-grad passes see one: an ATen overload of a PT2
/// graph (torch.ops.aten.cat.default, or a node a rewrite made there), not a
/// torch-level call of a Dynamo graph (torch.cat, whose target is another
/// function) nor a node of a TorchScript model.
bool isPostGradAtenCall(const Graph &graph, const Node &node);

/// True for a call of an overload packet ("torch.ops.aten.select", as
/// Inductor's batch fusions write their selects and decompose_stack its cat),
/// which a pattern on an overload (aten.select.int) does not match.
bool isPacketCall(const Node &node);

// --- formatting ----------------------------------------------------------------
/// "[%a, %b]".
std::string formatNodes(const Graph &graph, const std::vector<NodeId> &ids);

/// The op name, or the node kind for non-op nodes ("input", "constant").
std::string opText(const Node &node);

/// An argument as Python-like text with node references as "%name".
std::string argText(const Graph &graph, const Arg &arg);

/// True when values is ascending with steps of exactly 1 (PyTorch's
/// is_sorted_and_consecutive); an empty list counts as consecutive.
bool isSortedAndConsecutive(const std::vector<int64_t> &values);

// --- reading the canonical forms ----------------------------------------------
/// A split in normalization_pass's canonical form:
/// aten::split_with_sizes(input, [sections], dim) with dim >= 0.
struct SplitView {
    NodeId node;
    NodeId input;
    std::vector<int64_t> sections;
    int64_t dim = 0;
    /// Offset of section i along dim (size sections.size() + 1).
    std::vector<int64_t> offsets() const;
};

/// Why a split is not in canonical form ("sections unknown", "dim -1 is
/// negative", ...), or empty when it is.
std::string splitNormalizationGap(const Node &split);

/// Reads a split in canonical form, recording the check "split is normalized";
/// a failure says "split %s is not normalized (<why>): run normalization_pass
/// first" (pytorch#122944: rules silently skip non-normalized splits).
std::optional<SplitView> readNormalizedSplit(const Graph &graph, NodeId split, MatchTrace &trace);

/// The getitem users of a list-producing node (split, unbind) by index,
/// recording "every user of the split is a getitem with a distinct index"
/// (PyTorch's TorchSplit user checks); with `count`, indices must be below it.
std::optional<std::map<int64_t, NodeId>> readGetItems(const Graph &graph, NodeId list, MatchTrace &trace,
                                                      std::string_view what = "split",
                                                      std::optional<int64_t> count = std::nullopt);

/// An unbind in canonical form: aten::unbind(input, dim) with dim >= 0, the
/// input's size along dim static (count).
struct UnbindView {
    NodeId node;
    NodeId input;
    int64_t dim = 0;        ///< non-negative
    int64_t writtenDim = 0; ///< as the unbind spells it (negative when allowed)
    int64_t count = 0;
};

/// Which unbinds readNormalizedUnbind takes.
enum class UnbindDims {
    NonNegative, ///< dims normalization_pass leaves (unbinds present when it ran)
    AsWritten,   ///< also negative ones, as rules that read _get_dim() take them
};

/// Reads a canonical unbind, recording "unbind is normalized" and "unbind
/// input size along dim is static".
std::optional<UnbindView> readNormalizedUnbind(const Graph &graph, NodeId unbind, MatchTrace &trace,
                                               UnbindDims dims = UnbindDims::NonNegative);

/// The dim argument (schema position `index`, default 0) made non-negative
/// with `rank`; nullopt when it is not an int, or negative with rank unknown.
std::optional<int64_t> dimArg(const Node &node, size_t index, int rank);

/// The rank a cat's dim refers to: the cat's own meta, else its first input's.
int catRank(const Graph &graph, const Node &cat);

/// The tensor list of a cat/stack (first argument); nullopt when it is not a
/// list of node references.
std::optional<std::vector<NodeId>> tensorList(const Node &node);

/// Reads the literal tensor list of a cat/stack, recording "<what> takes a
/// literal list of tensors".
std::optional<std::vector<NodeId>> readTensorList(const Graph &graph, NodeId owner, MatchTrace &trace,
                                                  std::string_view what);

/// A tensor list whose items are all getitems of one normalized split.
struct SplitGetItems {
    SplitView split;
    /// The list's items and their getitem indices, in list order.
    std::vector<NodeId> items;
    std::vector<int64_t> indices;
    /// Every getitem of the split, by index.
    std::map<int64_t, NodeId> all;
};

/// Reads `inputs` (the tensors of `owner`, a `what`) as getitems of one
/// normalized split, recording "every <what> input is a getitem", "all <what>
/// inputs read the same node", "the getitems read a split", "split is
/// normalized" and the split's getitem checks (PyTorch's has_same_parent_node
/// and TorchSplit).
/// A normalized split and all its getitems by index (readNormalizedSplit,
/// then readGetItems over its sections).
std::optional<std::pair<SplitView, std::map<int64_t, NodeId>>> readSplitAndItems(const Graph &graph, NodeId split,
                                                                                 MatchTrace &trace);

std::optional<SplitGetItems> readGetItemsOfOneSplit(const Graph &graph, NodeId owner, const std::vector<NodeId> &inputs,
                                                    MatchTrace &trace, std::string_view what);

// --- what 2.6's pattern matcher counts -------------------------------------
/// 2.6's TorchSplit (split_cat.py:529): a split in normal form whose users are
/// all getitems with distinct non-negative int indices.
bool isInductorTorchSplit(const Graph &graph, NodeId split);

/// 2.6's getitem_split (split_cat.py:1329) as the tensor list of `owner` (a
/// cat or stack): a literal list holding at least one getitem of a TorchSplit
/// (ListOf(..., partial=True)).
bool hasInductorGetItemSplitList(const Graph &graph, NodeId owner);
/// The split getitem_split binds to in `owner`'s list: the source of its
/// first getitem of a TorchSplit (invalid when none).
NodeId inductorGetItemSplitSource(const Graph &graph, NodeId owner);
/// The same for 2.6's getitem_unbind (split_cat.py:1293): the source of the
/// first getitem of an unbind in `owner`'s list (invalid when none).
NodeId inductorGetItemUnbindSource(const Graph &graph, NodeId owner);

/// The counts 2.6's PatternMatcherPass.apply adds for one match of a
/// pattern that matched `nodes` nodes (pattern_matcher_count and
/// pattern_matcher_nodes), whatever its handler then does. A list pattern
/// matches its first item only (the items share one pattern with
/// _users=MULTIPLE, which binds to the first).
/// The matches 2.6 counts at the cats and stacks whose list pattern binds to
/// `source` (`boundSource`: inductorGetItemSplitSource or
/// inductorGetItemUnbindSource), three nodes each.
InductorCounts listReaderMatchCounts(const Graph &graph, NodeId source, NodeId (*boundSource)(const Graph &, NodeId));

/// `base` is what the handler itself counts, to add these to.
InductorCounts patternMatcherCounts(size_t nodes, InductorCounts base = {});

/// Reads a cat whose inputs are getitems of one normalized split on the
/// split's dim: readTensorList, readGetItemsOfOneSplit, then "cat dim equals
/// split dim" ("cat dim 0 ≠ split dim 1"). Shared by merge_getitem_cat_pass
/// and mutate_cat_pass, which PyTorch also starts alike.
std::optional<SplitGetItems> readCatOfOneSplit(const Graph &graph, NodeId cat, MatchTrace &trace);

/// Records "each getitem is used once": "getitem %g has 2 users (needs 1)".
bool checkUsedOnce(const Graph &graph, const std::vector<NodeId> &items, MatchTrace &trace);

/// Records "getitem indices are sorted and consecutive".
bool checkConsecutive(const std::vector<int64_t> &indices, MatchTrace &trace);

/// sections with [indices.front(), indices.back()] fused into one section.
std::vector<int64_t> fuseSections(const std::vector<int64_t> &sections, int64_t first, int64_t last);

/// Inductor's default threshold_to_cat for the "to slices" rules.
inline constexpr int64_t kDefaultThresholdToCat = 10;

} // namespace fusebox::splitcat
