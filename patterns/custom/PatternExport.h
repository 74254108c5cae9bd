#pragma once
// Exports of pattern files (docs/pattern-language.md, "Exports") for other
// production passes: TorchScript's torch::jit::SubgraphRewriter and PyTorch
// Inductor's pattern matcher. Pure text generation: no libtorch here.

#include "core/io/PassConfig.h"
#include "core/io/PatternFile.h"

#include <string>
#include <utility>
#include <vector>

namespace fusebox {

class OpSchemaRegistry;

/// The text of one export and what it could not carry.
struct PatternExport {
    /// The exported file (a C++ header or a Python module).
    std::string text;
    /// (pattern name, why the target cannot express it): patterns NOT exported.
    /// Each is also written as a comment in `text`.
    std::vector<std::pair<std::string, std::string>> skipped;
    /// (pattern name, constraint text): patterns exported WITHOUT this
    /// where-constraint because the target cannot check it (TorchScript only:
    /// dtype/rank/shape/numel guards). Each is also a comment in `text`.
    std::vector<std::pair<std::string, std::string>> unchecked;
};

/// torch::jit::SubgraphRewriter form. `text` is a C++ header defining
/// `inline void registerFuseboxPatterns(torch::jit::SubgraphRewriter &rewriter)`
/// that calls `rewriter.RegisterRewritePattern(pattern, replacement)` with each
/// pattern's TorchScript IR strings as raw string literals.
/// Expressible: one output; fixed arity (no `[t...]`); op alternatives are
/// expanded into one exported pattern per combination (`NAME__aten_gelu`);
/// captures and wildcards become graph inputs (in first-use order); literals
/// become typed prim::Constant nodes, lists prim::ListConstruct, getitem
/// aten::__getitem__; replacement arithmetic over int captures becomes
/// aten::add/sub/mul/floordiv/remainder, shape(v)[k] aten::size.
/// Constraints: `users(v) == 1` for a match value its statements read once is
/// implied (SubgraphRewriter rejects matches whose inner values are used
/// outside); constraints that only read dtype/rank/shape/numel of values are
/// listed in `unchecked` (exported without them: add a MatchFilter);
/// any other constraint (captured-literal equalities, list functions, other
/// users() counts) makes the pattern skipped, as do several outputs, variadic
/// lists, and a match statement that does not feed the output.
/// Pattern constants only match graph constants with no use outside the match
/// (SubgraphRewriter compares use counts of inner values).
/// With `schemas`, each call is laid out in schema order with left-out
/// arguments as constants of their defaults (`aten::gelu(%y, "none")`,
/// `aten::add(%p, %q, 1)`), as TorchScript graphs hold them; without, calls keep
/// their written positional arguments and keywords are appended in order.
PatternExport exportTorchScriptPatterns(const PatternFile &file, const OpSchemaRegistry *schemas = nullptr);

/// PyTorch Inductor form: a Python module (no imports run at byte-compile
/// time beyond torch) that builds `CallFunction` trees for each expressible
/// pattern, registers it with `register_graph_pattern` into one of two
/// `PatternMatcherPass`es (pre_grad / post_grad by the pattern's stage) with an
/// `extra_check` that evaluates the where-constraints on `meta["val"]`, and
/// replaces via `match.replace_by_example`. With `config`, sets
/// `torch._inductor.config.pre_grad_fusion_options` / `post_grad_fusion_options`.
/// Expressible: one output; the match is a tree from the output (each match
/// value read once, every statement feeding the output); no variadic lists;
/// alternatives become a list of targets. Constraints: `users(v) == N` on a
/// match value becomes `_users=N`; the others (over captures: users, dtype,
/// rank, shape, numel, literals) go into `extra_check`; a constraint reading a
/// match value otherwise makes the pattern skipped. Never fills `unchecked`.
/// Skipped patterns are `# SKIPPED name: reason` comments in the module.
PatternExport exportInductorPatterns(const PatternFile &file, const PassConfig *config = nullptr);

} // namespace fusebox
