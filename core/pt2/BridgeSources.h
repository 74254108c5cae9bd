#pragma once

#include "core/ir/Expected.h"

#include <nlohmann/json.hpp>

#include <string>

namespace fusebox::pt2 {

/// The header's "sources": every *.py file under pythonDir/fusebox_bridge/
/// (recursively), keyed by its path relative to pythonDir with '/' separators
/// ("fusebox_bridge/server.py"), valued by its text. Error when the folder is
/// missing or a file cannot be read.
Expected<nlohmann::json> readBridgeSources(const std::string &pythonDir);

/// The folder holding fusebox_bridge/: $FUSEBOX_BRIDGE_DIR when set, else the
/// repository's python/ folder as configured at build time.
std::string bridgePythonDir();

} // namespace fusebox::pt2
