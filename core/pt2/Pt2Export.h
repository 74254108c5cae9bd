#pragma once
// A rewritten PT2 graph as something stock PyTorch 2 runs without Fusebox
// (`fusebox-pass run -o OUT.pt2`, `-o OUT.py --module`, the IDE's Export
// Rewritten Model): made by the bridge's `export` operation in PyTorch 2
// itself, then loaded back there and run against the original.

#include "Pt2Bridge.h"

#include "core/ir/Expected.h"
#include "core/ir/Graph.h"

#include <string>
#include <vector>

namespace fusebox::pt2 {

/// What stock PyTorch 2 is given.
enum class Pt2ExportFormat {
    /// A torch.export archive (OUT.pt2): torch.export.load(OUT).module()(*inputs).
    Archive,
    /// Python source of a torch.nn.Module (OUT.py) and its constants
    /// (OUT.weights.pt, beside it): import OUT; OUT.load()(*inputs).
    Module,
};

/// The format a path asks for: .pt2 is an archive; anything else a module.
Pt2ExportFormat pt2ExportFormatOf(const std::string &path);

/// What exportForPyTorch2() wrote and what the check found.
struct Pt2ExportResult {
    /// The files written, in the order written (OUT.py before OUT.weights.pt).
    std::vector<std::string> files;
    /// The exported graph, loaded back as a user would, against the original
    /// on the same random inputs with the verifier's tolerance.
    BridgeVerification check;
    /// One line each: constants whose values the file did not hold, ...
    std::vector<std::string> notes;
};

/// Exports `rewritten` to `path` in `format` through the bridge; `original` (the
/// graph as read) is what the check compares with. Fusebox's own ops are
/// written as their ATen decompositions and the graphs' constants travel with
/// them. Nothing is written when the export or its check run fails (an Error,
/// one line); a check whose outputs differ is a result with check.passed false.
Expected<Pt2ExportResult> exportForPyTorch2(Pt2Bridge &bridge, const Graph &rewritten, const Graph &original,
                                            const std::string &path, Pt2ExportFormat format,
                                            const RequestControl &control = {});

} // namespace fusebox::pt2
