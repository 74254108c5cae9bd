#pragma once

#include "core/io/LoadedModel.h"
#include "core/ir/Expected.h"

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace fusebox {

/// Options of the TorchScript importer.
struct TorchScriptImportOptions {
    /// Shapes of the tensor inputs (after `self`), in order. When empty, the
    /// shapes recorded in the archive's extra file `fusebox/inputs.json` are used
    /// when present; without either, shapes stay unknown.
    std::vector<std::vector<int64_t>> inputShapes;
    /// With known input shapes, also run the model once on zero tensors of
    /// those shapes to learn every value's complete shape (libtorch's static
    /// shape pass knows only the rank of many ops, e.g. convolutions). Costs
    /// one CPU forward pass; false keeps the static pass alone.
    bool runExampleForShapes = true;
};

/// Imports a TorchScript archive: load -> eval -> freeze_module -> inline ->
/// shapes -> IR. The folding rules (which TorchScript nodes become literal
/// args or getitem nodes) are documented in docs/torchscript-import.md. The
/// graph's metadata holds "source.format" ("torchscript"), "source.path" and
/// "source.input_shapes" ("fusebox/inputs.json", "options" or "none").
/// Control flow and shape problems become LoadedModel::warnings. Errors
/// (missing file, torch.save pickle, not a zip, unsupported version) are one
/// line naming the file; libtorch exceptions never escape.
Expected<LoadedModel> importTorchScript(const std::string &path, const TorchScriptImportOptions &options = {});

/// The same, from an archive held in memory; displayName names it in messages.
Expected<LoadedModel> importTorchScriptFromBytes(const std::string &bytes, const std::string &displayName,
                                                 const TorchScriptImportOptions &options = {});

} // namespace fusebox
