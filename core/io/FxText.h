#pragma once
// FX text, as PT2 prints it: GraphModule.print_readable() / fx_graph_readable.py
// code, and str(graph). docs/fx-text.md describes what is read and written.

#include "LoadedModel.h"
#include "core/ir/Expected.h"
#include "core/ir/Graph.h"
#include "core/ir/OpSchema.h"

#include <functional>
#include <string>
#include <string_view>

namespace fusebox {

/// Options of the FX text reader.
struct FxReadOptions {
    /// Schemas for canonicalising targets and normalising arguments; may be null
    /// (then targets are still mapped by name rules, args kept as written).
    const OpSchemaRegistry *schemas = nullptr;
    /// File name used in error messages, warnings and graph metadata.
    std::string sourceName;
    /// Where `schemas` come from, for the summary of ops they lack.
    std::string schemaOrigin = "libtorch 1.13";
    /// When set, called once, after the text is parsed and before the graph
    /// is built, to set `schemas` and `schemaOrigin` on a copy of these
    /// options: the tokenizer and parser do not need them, so a caller can
    /// load them meanwhile (fusebox-pass's read phase does).
    std::function<void(FxReadOptions &)> awaitSchemas = {};
};

/// Options of the FX text writer.
struct FxWriteOptions {
    /// The module class name ("GraphModule"; PT2 writes "<lambda>" for AOT graphs).
    std::string className = "GraphModule";
    /// Writes a body of 20,000 nodes or more in two halves on two threads
    /// (when the machine has two; core/ir/ParallelFor.h); the text is the
    /// same either way.
    bool parallel = true;
};

/// Reads print_readable()/fx_graph_readable.py style text, or str(graph) text
/// (auto-detected; log prefixes before the header are skipped). Every call
/// becomes an op node named as the dump names it; targets are canonicalised to
/// ATen ops (the spelling kept in Provenance::originalSpelling); what cannot be
/// mapped becomes an opaque op node and a warning naming file:line. Errors are
/// one line, "file:line:column: expected <what>, found <what>" (or "name 'x' is
/// not defined"); malformed input never crashes.
Expected<LoadedModel> readFxText(std::string_view text, const FxReadOptions &options = {});

/// Reads an FX text file; options.sourceName defaults to path.
Expected<LoadedModel> readFxTextFile(const std::string &path, const FxReadOptions &options = {});

/// How much of a file looksLikeFxText looks at: a dump's header is near the
/// top (after log prefixes), so a sniffer need read no more.
inline constexpr size_t kFxTextSniffBytes = 64 * 1024;

/// True when the text looks like an FX dump (either form) — for sniffing in
/// loadModel; only the first kFxTextSniffBytes matter.
bool looksLikeFxText(std::string_view text);

/// Writes the graph as print_readable()-style Python that readFxText reads back
/// to an identical graph (GraphCompare's firstDifference finds nothing) when
/// node names are Python identifiers; see docs/fx-text.md for what FX text
/// cannot carry (opaque bodies other than submodules, createdBy provenance).
std::string writeFxText(const Graph &graph, const FxWriteOptions &options = {});

} // namespace fusebox
