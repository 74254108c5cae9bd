#include "PythonCommand.h"

#include "ChildProcess.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace fusebox::pt2 {

std::string PythonCommand::text() const
{
    std::string joined;
    for (const auto &word : argv) {
        if (!joined.empty())
            joined += ' ';
        joined += word;
    }
    return joined;
}

std::vector<std::string> splitCommand(std::string_view command)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (size_t i = 0; i < command.size(); ++i) {
        const char c = command[i];
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                word += c;
        } else if (quote == '"') {
            if (c == '"')
                quote = 0;
            else if (c == '\\' && i + 1 < command.size() && (command[i + 1] == '"' || command[i + 1] == '\\'))
                word += command[++i];
            else
                word += c;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord)
                words.push_back(std::move(word));
            word.clear();
            inWord = false;
        } else {
            inWord = true;
            if (c == '\'' || c == '"')
                quote = c;
            else if (c == '\\' && i + 1 < command.size())
                word += command[++i];
            else
                word += c;
        }
    }
    if (inWord)
        words.push_back(std::move(word));
    return words;
}

std::string fuseboxCacheDir()
{
    std::string cache;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
        cache = xdg;
    } else {
        const char *home = std::getenv("HOME");
        cache = std::string(home && *home ? home : "/root") + "/.cache";
    }
    return cache + "/fusebox";
}

std::string defaultPt2Root()
{
    // scripts/setup-pt2.sh takes the same override.
    if (const char *root = std::getenv("FUSEBOX_PT2_ROOT"); root && *root)
        return root;
    return fuseboxCacheDir() + "/pt2-root";
}

std::string testingPt2Root()
{
    if (const char *root = std::getenv("FUSEBOX_PT2_TESTING_ROOT"); root && *root)
        return root;
    return fuseboxCacheDir() + "/pt2-root-testing";
}

std::vector<Pt2Root> pt2Roots()
{
    return {{testingPt2Root(), "Debian testing"}, {defaultPt2Root(), "Debian 13"}};
}

std::optional<PythonCommand> findPythonCommand(const std::string &explicitCommand)
{
    if (auto argv = splitCommand(explicitCommand); !argv.empty())
        return PythonCommand{std::move(argv), "--python"};
    if (const char *env = std::getenv("FUSEBOX_PYTHON")) {
        if (auto argv = splitCommand(env); !argv.empty())
            return PythonCommand{std::move(argv), "FUSEBOX_PYTHON"};
    }
    for (const Pt2Root &root : pt2Roots()) {
        std::error_code ec;
        if (std::filesystem::exists(root.path + "/usr/bin/python3", ec))
            return PythonCommand{{"chroot", root.path, "python3"},
                                 "scripts/setup-pt2.sh " + root.label + " root (" + root.path + ")"};
    }
    return std::nullopt;
}

std::string noPythonMessage()
{
    return "no PyTorch 2 found: run `bash scripts/setup-pt2.sh` (Debian testing and Debian 13 roots with their "
           "torch), or set FUSEBOX_PYTHON to a Python with torch >= 2.4";
}

std::optional<std::string> installedTorchVersion(const PythonCommand &command)
{
    std::vector<std::string> argv = command.argv;
    argv.insert(argv.end(), {"-c", "import importlib.metadata as m; print(m.version('torch'))"});
    auto out = runToEnd(argv, 30000);
    if (!out)
        return std::nullopt;
    std::string version = *out;
    while (!version.empty() && (version.back() == '\n' || version.back() == '\r' || version.back() == ' '))
        version.pop_back();
    // One line that starts like a version ("2.14.1+debian"), nothing else.
    if (version.empty() || version.find('\n') != std::string::npos
        || !std::isdigit(static_cast<unsigned char>(version[0])))
        return std::nullopt;
    return version;
}

} // namespace fusebox::pt2
