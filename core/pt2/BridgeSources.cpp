#include "BridgeSources.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifndef FUSEBOX_BRIDGE_DIR
#define FUSEBOX_BRIDGE_DIR "python"
#endif

namespace fusebox::pt2 {

namespace fs = std::filesystem;

Expected<nlohmann::json> readBridgeSources(const std::string &pythonDir)
{
    const fs::path base(pythonDir);
    const fs::path package = base / "fusebox_bridge";
    std::error_code ec;
    if (!fs::is_directory(package, ec))
        return Error{package.string() + ": no such folder (set FUSEBOX_BRIDGE_DIR to the repository's python/ folder)"};
    nlohmann::json sources = nlohmann::json::object();
    fs::recursive_directory_iterator it(package, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const fs::path &path = it->path();
        if (path.extension() != ".py" || !it->is_regular_file(ec))
            continue;
        std::ifstream in(path, std::ios::binary);
        if (!in.is_open())
            return Error{path.string() + ": cannot read"};
        std::ostringstream text;
        text << in.rdbuf();
        sources[path.lexically_relative(base).generic_string()] = text.str();
    }
    if (ec)
        return Error{package.string() + ": " + ec.message()};
    return sources;
}

std::string bridgePythonDir()
{
    if (const char *dir = std::getenv("FUSEBOX_BRIDGE_DIR"); dir && *dir)
        return dir;
    return FUSEBOX_BRIDGE_DIR;
}

} // namespace fusebox::pt2
