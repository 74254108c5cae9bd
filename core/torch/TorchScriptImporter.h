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
};

/// Imports a TorchScript archive: load -> eval -> freeze -> inline -> IR.
/// The folding rules (which TorchScript nodes become literal args or getitem
/// nodes) are documented in docs/torchscript-import.md. Errors (missing file,
/// torch.save pickle, corrupt zip, unsupported version) are one line naming
/// the file; libtorch exceptions never escape.
Expected<LoadedModel> importTorchScript(const std::string &path,
                                        const TorchScriptImportOptions &options = {});

/// The same, from an archive held in memory; displayName names it in messages.
Expected<LoadedModel> importTorchScriptFromBytes(const std::string &bytes,
                                                 const std::string &displayName,
                                                 const TorchScriptImportOptions &options = {});

} // namespace fusebox
