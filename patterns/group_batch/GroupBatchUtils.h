#pragma once

#include "core/ir/Graph.h"
#include "core/ir/GraphBuilder.h"
#include "core/rewrite/MatchTrace.h"
#include "core/rewrite/Pattern.h"
#include "core/rewrite/PatternRewriter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::group_batch {

/// Separator between the parts of a fusion key as the IDE shows it
/// ("input [8, 16] · weight [32, 16] · bias").
inline constexpr std::string_view kKeySep = " \xC2\xB7 ";

// --- checks (each records one condition in the trace) ------------------------

/// Checks that `id` is an op call of one of `ops` (op names without overload).
/// Requirement "node is aten::linear" (or "node is aten::relu or aten::relu_");
/// actual "%tanh_2 is aten::tanh".
bool checkOp(const Graph &graph, NodeId id, const std::vector<std::string> &ops, MatchTrace &trace);

/// On a torch-level (pre-grad, Dynamo) graph, checks that the node is spelled
/// as one of `spellings`: Inductor's pre-grad fusions match call_function
/// targets by identity (batch_relu torch.nn.functional.relu, not torch.relu
/// nor x.relu()). A node with no torch-level spelling (read from TorchScript,
/// an AOT graph or a rewrite) passes. Requirement "called as
/// torch.nn.functional.relu (the target Inductor's pre-grad fusion matches)";
/// actual "%relu is called as torch.relu".
bool checkPreGradSpelling(const Graph &graph, NodeId id, const std::vector<std::string> &spellings, MatchTrace &trace);

/// Checks that the node's output carries tensor metadata (Inductor's
/// is_node_meta_valid). Requirement "output metadata is known".
bool checkOutputMeta(const Graph &graph, NodeId id, MatchTrace &trace);

/// The tensor operand at schema position `index` (or keyword `name`, or the
/// keyword `altName` when given), or an invalid id after a failed check
/// "<role> is a tensor" (actual "<role> is missing" / "<role> is the literal 2.0").
NodeId tensorOperand(const Graph &graph, NodeId id, size_t index, std::string_view name, std::string_view role,
                     MatchTrace &trace, std::string_view altName = {});

/// The static shape of `operand`, or nullopt after a failed check
/// "<role> shape is static" (actual "<role> %x has no shape" / "<role> %x is f32[s0, 16]").
std::optional<std::vector<int64_t>> staticShapeOf(const Graph &graph, NodeId operand, std::string_view role,
                                                  MatchTrace &trace);

/// The shape of `operand`, symbolic dims included (as Inductor's keys take
/// str(meta['val'].shape)), or nullopt after a failed check "<role> shape is
/// known" (actual "<role> %x has no shape").
std::optional<std::vector<Dim>> knownShapeOf(const Graph &graph, NodeId operand, std::string_view role,
                                             MatchTrace &trace);

/// A tensor's metadata from a shape that may hold symbols.
TensorMeta shapedMeta(DType dtype, std::vector<Dim> shape, const std::string &device);

/// [items, *shape]: the shape of `items` tensors of `shape` stacked on dim 0.
std::vector<Dim> stackedShape(size_t items, const std::vector<Dim> &shape);

/// A static shape as dims.
std::vector<Dim> dimsOf(const std::vector<int64_t> &shape);

/// Checks the rank of an operand whose shape (symbols allowed) is `shape`.
bool checkRank(const Graph &graph, NodeId operand, const std::vector<Dim> &shape, int rank, std::string_view role,
               MatchTrace &trace);

/// Checks the rank of an operand whose static shape is `shape`.
/// Requirement "<role> is 2-D"; actual "<role> %x is 3-D f32[2, 8, 16]".
bool checkRank(const Graph &graph, NodeId operand, const std::vector<int64_t> &shape, int rank, std::string_view role,
               MatchTrace &trace);

/// True for ops that write to their input: a name ending in '_' (aten::add_,
/// aten::relu_) or a Python in-place operator (operator.iadd).
bool isMutatingOp(std::string_view op);

/// Checks that no user of `id` is in-place. Requirement "no user mutates the
/// output"; actual "user %add_ is in-place (aten::add_)".
bool checkNoMutatingUser(const Graph &graph, NodeId id, MatchTrace &trace);

/// Checks that the tensor `id` has at least one user; returns the first one
/// (in the order users started reading it), or an invalid id after the failed
/// check "output has a user" (actual "%x has no users").
NodeId firstUser(const Graph &graph, NodeId id, MatchTrace &trace);

/// Checks that `arg` (nullptr when absent) holds no node reference.
/// Requirement "<name> is a literal"; actual "<name> is the tensor %t"
/// ("<name> is absent (<absentText>)" when absent).
bool checkLiteral(const Graph &graph, NodeId id, const Arg *arg, std::string_view name, std::string_view absentText,
                  MatchTrace &trace);

/// True when the group is non-empty and every member still has the same key
/// under `pattern` (a fuse() precondition; a group found on an older version
/// of the graph may no longer hold, and is then left alone).
bool groupStillMatches(const Graph &graph, const HorizontalPattern &pattern, const std::vector<NodeId> &group);

// --- key texts -------------------------------------------------------------

/// What a node is, for keys: its op ("aten::linear"), "output" for the output
/// node, or "%name" for inputs and constants (Inductor's node.target).
std::string targetText(const Graph &graph, NodeId id);
/// "users aten::relu, aten::add" (Inductor's fuse_nodes_with_same_users key part).
std::string usersText(const Graph &graph, NodeId id);
/// A literal argument as Python writes it, nodes as "%name".
std::string argText(const Graph &graph, const Arg &arg);

// --- building (every change goes through the rewriter) -----------------------

/// One op to create: ATen name, overload, positional args in schema order,
/// the value's type ("Tensor", "Tensor[]") and its metadata.
struct NewOp {
    std::string op;
    std::string overload;
    std::vector<Arg> args;
    TensorMeta meta;
    std::string type = "Tensor";
};

/// Creates `spec` before `before`; the node's scope is that of `scopeOf` when valid.
NodeId emit(PatternRewriter &rewriter, NodeId before, NewOp spec, NodeId scopeOf = {});

/// Records that Inductor's fusion calls the packet (torch.ops.aten.select),
/// not an overload: passes that look up an overload (aten.select.int,
/// aten.cat.default) do not see such a node, and Fusebox's models of them
/// ask isPacketCall (SplitCatUtils.h).
void markPacketTarget(PatternRewriter &rewriter, NodeId id);

/// aten::stack(items, dim) of tensors whose common shape is `itemShape`.
NodeId emitStack(PatternRewriter &rewriter, NodeId before, const std::vector<NodeId> &items, int64_t dim,
                 const std::vector<Dim> &itemShape, DType dtype, const std::string &device);

/// Inductor's decompose_stack (post-grad): aten::unsqueeze(item, 0) for each
/// item, then aten::cat(unsqueezed, 0); the result is [N, *itemShape].
NodeId emitDecomposedStack(PatternRewriter &rewriter, NodeId before, const std::vector<NodeId> &items,
                           const std::vector<Dim> &itemShape, DType dtype, const std::string &device);

/// aten::<op>.<overload>(source, dim) producing a Tensor[] (unbind, split),
/// then one getitem(list, i) per group member replacing that member
/// (see replaceMembers). `itemShapes[i]` is the computed shape of item i.
void emitListAndReplace(PatternRewriter &rewriter, NodeId before, NewOp listOp, const std::vector<NodeId> &group,
                        const std::vector<std::vector<Dim>> &itemShapes, DType dtype, const std::string &device);

/// Makes every reader of group[i] read replacements[i], gives the replacement
/// the member's metadata (when known) and scope, and erases the member.
void replaceMembers(PatternRewriter &rewriter, const std::vector<NodeId> &group,
                    const std::vector<NodeId> &replacements);

} // namespace fusebox::group_batch
