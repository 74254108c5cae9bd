#pragma once
// The subgraphs of higher-order op nodes (torch.ops.higher_order.cond,
// while_loop, wrap, ...) read from FX text. A subgraph argument is the string
// "subgraph:<name>"; the node's opaqueBody holds the code of each subgraph it
// names, as a "# subgraph <name>" line followed by the subgraph's class (FX
// text of its own). docs/fx-text.md, "Higher-order ops".

#include "core/ir/Node.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// One subgraph of a node: its name and its code, a `class <name>(...):` FX text.
struct FxSubgraph {
    std::string name;
    std::string text;
    friend bool operator==(const FxSubgraph &, const FxSubgraph &) = default;
};

/// The prefix of a subgraph argument ("subgraph:cond_true_0").
inline constexpr std::string_view kSubgraphArgPrefix = "subgraph:";
/// The header line that starts each subgraph in an opaqueBody ("# subgraph cond_true_0").
inline constexpr std::string_view kSubgraphHeader = "# subgraph ";

/// The argument that names subgraph `name`.
Arg subgraphArg(const std::string &name);
/// The subgraph `arg` names ("cond_true_0" for "subgraph:cond_true_0"); empty
/// when it is no subgraph argument.
std::string subgraphArgName(const Arg &arg);

/// The subgraphs in an opaqueBody, in order; empty when it has no
/// "# subgraph " header line (the bodies of other importers).
std::vector<FxSubgraph> parseSubgraphs(std::string_view body);
/// The opaqueBody that parseSubgraphs() reads back as `subgraphs`.
std::string joinSubgraphs(const std::vector<FxSubgraph> &subgraphs);
/// parseSubgraphs(node.opaqueBody).
std::vector<FxSubgraph> subgraphsOf(const Node &node);
/// The FX text of the node's subgraph `name`, or nullopt.
std::optional<std::string> subgraphText(const Node &node, std::string_view name);

/// The op a `torch.ops.<ns>.<op>[.<overload>]` value names, as a string
/// argument: "mylib::foo" (default overload), "aten::add.Tensor"; empty
/// for other names. auto_functionalized passes the op it calls this way.
std::string opReferenceName(std::string_view dotted);
/// The inverse: "torch.ops.mylib.foo.default" for "mylib::foo"; empty when
/// `name` is not "<ns>::<op>[.<overload>]" of identifiers.
std::string opReferenceSpelling(std::string_view name);

} // namespace fusebox
