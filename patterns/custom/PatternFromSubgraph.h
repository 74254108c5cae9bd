#pragma once
// Pattern from a subgraph: turns a selection of op nodes into a pattern decl
// (core/io/PatternAst.h) whose match is that subgraph, for an engineer to edit
// and save with writePatternFile(). The IDE calls it on a selection;
// `fusebox-pass pattern-from MODEL --nodes a,b,c` exposes it on the command line.
// See docs/pattern-language.md, "Patterns from a subgraph".

#include "core/io/PatternAst.h"
#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <string>
#include <vector>

namespace fusebox {

/// Options of patternFromSubgraph().
struct PatternFromOptions {
    /// The pattern's name (an identifier; an invalid one is sanitised).
    std::string name = "from_selection";
    /// Literal arguments (ints, floats and lists of them) become captures
    /// `lit0`, `lit1`... instead of being matched exactly. Equal literals share
    /// one capture, so the pattern still requires them equal. None, bools,
    /// strings and dtypes stay literal (they pick behaviour, not sizes).
    bool generalizeLiterals = false;
    /// Propose where-constraints from the observed metadata of the external
    /// tensor inputs: dtype(x) == f32 and rank(x) == 2 where known, and
    /// shape(x)[k] == n for their static dims when constrainStaticDims.
    bool proposeConstraints = true;
    /// With proposeConstraints: also pin every static dimension of the
    /// external inputs. On by default (occurrences that repeat a subgraph, like
    /// the demo's 16 dense branches, have equal shapes); turn off to match the
    /// same structure at other sizes.
    bool constrainStaticDims = true;
};

/// A pattern whose match graph is the subgraph of `nodes`, for an engineer to
/// edit, with the replacement a copy of the match (so it changes nothing until
/// edited; patternChangesNothing() tells). The description says where it
/// came from: the nodes and the model's file name.
///
/// - Match: one statement per selected node, in program (topological) order,
///   each `target = ns::op.overload(args..., kw = ...)` (or `getitem(x, i)`),
///   the target being the node's name sanitised to an identifier. No node
///   names are matched: a reference to a node outside the selection (an input,
///   a constant, an op) becomes a capture named after that node (sanitised),
///   so the pattern matches every structurally identical occurrence. A node
///   read twice gives one capture (the match then requires the same value).
///   Literals are written as literals (or captures, see generalizeLiterals);
///   devices, slices and non-finite floats, which the language cannot write,
///   always become captures.
/// - Where: the proposed constraints (see PatternFromOptions).
/// - Replace: the match statements again, so every match value is a pattern
///   output. Values the selection computes and the rest of the graph (or the
///   graph output) reads are therefore always allowed to be used outside; no
///   selection is rejected for that.
/// - The derived fields (captures, listCaptures, outputs) are filled as
///   parsePatternFile() would fill them, so parse(write(decl)) == decl.
///
/// Errors (one line): an empty selection; an id not in the graph; a node that
/// is not an op (an input, a constant, the output), an opaque control-flow
/// node, or an op the language cannot name (no `ns::` and not getitem); and a
/// selection the pattern compiler cannot search from one anchor (parts not
/// connected by data edges or shared inputs), with the compiler's reason.
/// A node listed twice counts once.
Expected<patternlang::PatternDecl> patternFromSubgraph(const Graph &graph, const std::vector<NodeId> &nodes,
                                                       const PatternFromOptions &options = {});

/// True when `decl`'s replace block is its match block, statement for
/// statement (source positions aside): such a pattern rewrites a match into
/// itself, which is what patternFromSubgraph() makes until it is edited.
bool patternChangesNothing(const patternlang::PatternDecl &decl);

} // namespace fusebox
