#include "TestPaths.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fusebox::testing {
namespace {

[[noreturn]] void fail(const std::string &what)
{
    std::fprintf(stderr, "fusebox tests: %s\n", what.c_str());
    std::exit(2);
}

const std::string &binaryDirString()
{
    static const std::string dir = [] {
        std::error_code error;
        const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
        if (error)
            fail("cannot read /proc/self/exe to find the build tree: " + error.message());
        return exe.parent_path().parent_path().string();
    }();
    return dir;
}

} // namespace

const char *binaryDir()
{
    return binaryDirString().c_str();
}

const char *sourceDir()
{
    static const std::string dir = [] {
        const std::string cache = binaryDirString() + "/CMakeCache.txt";
        std::ifstream in(cache);
        const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
        for (std::string line; std::getline(in, line);)
            if (line.starts_with(key))
                return line.substr(key.size());
        fail(cache + ": no CMAKE_HOME_DIRECTORY line (is the test binary inside its build tree?)");
    }();
    return dir.c_str();
}

const char *fixtureDir()
{
    static const std::string dir = binaryDirString() + "/fixtures";
    return dir.c_str();
}

} // namespace fusebox::testing
