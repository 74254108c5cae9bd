#pragma once
// Writes a fresh zip archive in memory through libzip.

#include "core/ir/Expected.h"

#include <string>
#include <utility>
#include <vector>

namespace fusebox {

/// A zip of `entries` (name, bytes), in order, stored without compression,
/// with true sizes and CRCs (zip64 where a size needs it). The TorchScript
/// importer hands libtorch 1.13, which trusts a zip's headers, this copy of
/// what libzip read and checked rather than the file itself. Errors: libzip's
/// reason ("duplicate entry 'm/data.pkl'").
Expected<std::string> writeStoredZip(const std::vector<std::pair<std::string, std::string>> &entries);

} // namespace fusebox
