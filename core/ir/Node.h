#pragma once

#include "Arg.h"
#include "NodeId.h"
#include "TensorMeta.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

class Graph;

/// What a node is, as in FX: a graph input (placeholder), an operator call, a
/// constant whose payload lives in the WeightStore, or the single output node.
enum class NodeKind { Input, Op, Constant, Output };

/// "input", "op", "constant", "output".
std::string_view toString(NodeKind kind);

/// Where a source location points in user code.
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;
    bool isKnown() const { return !file.empty(); }
    friend bool operator==(const SourceLocation &, const SourceLocation &) = default;
};

/// Where a node came from.
struct Provenance {
    /// Module path from the root, dot-separated ("layer1.0.conv1"); empty at top level.
    std::string scope;
    /// The source line that produced the node, when the format records it.
    SourceLocation source;
    /// The op as the input format spelled it ("aten::_convolution",
    /// "torch.nn.functional.linear", "x.split(...)"), kept for display and export.
    std::string originalSpelling;
    /// A torch-level call's arguments after the first, as written, before
    /// they were fitted to the ATen schema ("0.0, 6.0" or "min=0.0, max=6.0");
    /// empty when there are none or the format does not record them.
    /// Inductor's pre-grad math fusions key on this form (str(node.args[1:]),
    /// str(node.kwargs)).
    std::string writtenArgs;
    /// For nodes a rewrite created: the match that created them ("batch_linear#3").
    std::string createdBy;
    /// writtenArgs is left out: it records how the source spelled a call,
    /// which a graph written out in canonical form and read back may not keep.
    friend bool operator==(const Provenance &a, const Provenance &b)
    {
        return a.scope == b.scope && a.source == b.source && a.originalSpelling == b.originalSpelling
               && a.createdBy == b.createdBy;
    }
};

/// What Inductor 2.6 records on a node where that is not what the node's own
/// args give (Node::inductorMeta).
struct InductorMeta {
    /// No meta["val"] at all, as on the batched op 2.6's post-grad pointwise
    /// fusions make: is_node_meta_valid() is false there.
    bool missing = false;
    /// A list value whose meta a rewrite copied from the node it replaced, as
    /// 2.6's merge_getitem_cat copies the old split's onto the new one: how
    /// many items that stale example_value holds (2.6's split passes count
    /// sections from it).
    std::optional<int64_t> copiedItemCount;
    friend bool operator==(const InductorMeta &, const InductorMeta &) = default;
};

/// One node of a Graph. A node produces exactly one value; list and tuple
/// results are read through `getitem` nodes, as in FX.
///
/// The data fields may be edited freely by importers; args and kwargs are only
/// changed through Graph (and, past import, through the rewriter), because the
/// graph keeps the users index in step with them.
class Node {
public:
    NodeId id() const { return m_id; }
    NodeKind kind() const { return m_kind; }
    bool isOp() const { return m_kind == NodeKind::Op; }

    /// Positional arguments, normalised to the op schema when it is known.
    const std::vector<Arg> &args() const { return m_args; }
    /// Keyword arguments, in the order the format gave them.
    const std::vector<NamedArg> &kwargs() const { return m_kwargs; }
    /// The keyword argument called name, or nullptr.
    const Arg *kwarg(std::string_view name) const;
    /// Every node this node reads, in argument order, duplicates kept.
    std::vector<NodeId> inputNodes() const;
    /// Calls fn(NodeId) for every node this node reads, as inputNodes() lists
    /// them, without allocating (for hot loops over large graphs).
    template<typename Fn>
    void forEachInput(Fn &&fn) const
    {
        for (const Arg &a : m_args)
            visitRefs(a, fn);
        for (const NamedArg &kw : m_kwargs)
            visitRefs(kw.value, fn);
    }

    /// Unique, human-readable name ("linear_3", "x").
    std::string name;
    /// Canonical op name ("aten::linear", "getitem", "prim::If"); empty for
    /// inputs, constants and the output.
    std::string op;
    /// Schema overload ("Tensor", "default"); empty when not known.
    std::string overload;
    /// The value's type as TorchScript writes it: "Tensor", "Tensor[]", "int", ...
    std::string type = "Tensor";
    /// Tensor metadata of the value, when type is a tensor.
    TensorMeta meta;
    /// Where Inductor 2.6's passes would leave this node's recorded metadata
    /// (FX's meta["example_value"] / meta["val"]) other than `meta`, which
    /// always follows from the args; set only by rewrites in Inductor's
    /// metadata mode (PatternRewriter::inductorMetadata), empty on every node
    /// a reader makes, and not written to any file.
    InductorMeta inductorMeta;
    Provenance provenance;
    /// For constants: the key of the payload in the graph's WeightStore.
    std::string weightKey;
    /// For opaque nodes (control flow): the original IR text of the region.
    std::string opaqueBody;

    /// "aten::split.Tensor" when the overload is known, else op.
    std::string qualifiedOp() const { return overload.empty() ? op : op + "." + overload; }

private:
    template<typename Fn>
    static void visitRefs(const Arg &a, Fn &fn)
    {
        if (const auto *id = std::get_if<NodeId>(&a.value))
            fn(*id);
        else if (const auto *list = std::get_if<ArgList>(&a.value))
            for (const Arg &item : list->items)
                visitRefs(item, fn);
    }

    friend class Graph;
    NodeId m_id;
    NodeKind m_kind = NodeKind::Op;
    std::vector<Arg> m_args;
    std::vector<NamedArg> m_kwargs;
};

/// Op names with a meaning of their own in the IR.
namespace ops {
/// Reads item `index` of a list or tuple value: getitem(value, index).
inline constexpr std::string_view kGetItem = "getitem";
/// Writes value into self[index] in place: setitem(self, index, value), FX's
/// operator.setitem (`x[idx] = v` in Dynamo code); its own value is None.
inline constexpr std::string_view kSetItem = "setitem";
} // namespace ops

} // namespace fusebox
