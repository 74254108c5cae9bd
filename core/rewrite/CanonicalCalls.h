#pragma once
// Calls written in one form, for comparing graphs from different writers:
// TorchScript and Fusebox's rewrites pass every argument positionally, FX
// passes keyword-only ones by keyword and leaves defaults out.

#include "core/ir/Graph.h"
#include "core/ir/OpSchema.h"

namespace fusebox {

/// Rewrites (through a PatternRewriter) every op node whose op and overload
/// have a schema in `schemas` to pass all of the schema's arguments
/// positionally, in schema order, defaults filled in: `baddbmm(a, b, c)` and
/// `baddbmm(a, b, c, beta=1, alpha=1)` and `baddbmm(a, b, c, 1, 1)` become
/// the same node. Calls that do not bind to their schema (an unknown keyword,
/// a missing argument, a default Fusebox cannot represent) are left as they
/// are. Returns the number of nodes changed.
size_t canonicaliseCalls(Graph &graph, const OpSchemaRegistry &schemas);

/// Forgets the metadata of nodes whose every user is a getitem (unbind,
/// split, a tuple-returning call): a list of tensors has no one dtype and
/// shape, and writers disagree on what to record for it (FX text annotates
/// none). Returns the number of nodes changed.
size_t forgetListMetadata(Graph &graph);

} // namespace fusebox
