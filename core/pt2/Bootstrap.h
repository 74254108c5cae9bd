#pragma once

#include <string>

namespace fusebox::pt2 {

/// The Python program the bridge runs with `-c` (Python 3.11+). It reads one
/// header line from stdin ({"root": R, "sources": {"fusebox_bridge/server.py": TEXT, ...}}),
/// installs an import hook that serves those sources (module a.b from
/// "a/b/__init__.py" or "a/b.py", compiled with the file name R + "/" + key),
/// then calls fusebox_bridge.server.main(header).
const std::string &bootstrapSource();

} // namespace fusebox::pt2
