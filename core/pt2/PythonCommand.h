#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::pt2 {

/// The command that runs the bridge's Python, and where it came from.
struct PythonCommand {
    /// Program and arguments; the bridge appends "-u -c BOOTSTRAP".
    std::vector<std::string> argv;
    /// Who chose it: "--python", "FUSEBOX_PYTHON" or "scripts/setup-pt2.sh Debian testing root (PATH)".
    std::string origin;

    /// argv joined by single spaces, for messages.
    std::string text() const;
};

/// Splits a command line on whitespace as a shell would, honouring single and
/// double quotes (a backslash escapes the next character outside single quotes).
/// No expansion of any kind.
std::vector<std::string> splitCommand(std::string_view command);

/// The root file system scripts/setup-pt2.sh makes:
/// ${XDG_CACHE_HOME:-$HOME/.cache}/fusebox ($HOME defaults to /root).
std::string fuseboxCacheDir();

/// One of the root file systems scripts/setup-pt2.sh makes.
struct Pt2Root {
    std::string path;
    /// "Debian testing" or "Debian 13": what the user reads in messages.
    std::string label;
};

/// $FUSEBOX_PT2_ROOT, else fuseboxCacheDir()/pt2-root: the Debian 13 root
/// (torch 2.6) scripts/setup-pt2.sh makes.
std::string defaultPt2Root();

/// $FUSEBOX_PT2_TESTING_ROOT, else fuseboxCacheDir()/pt2-root-testing: the
/// Debian testing root (the newest torch Debian ships) scripts/setup-pt2.sh makes.
std::string testingPt2Root();

/// The roots in the order Fusebox looks for them: Debian testing first (the
/// newest torch, the default reference), then Debian 13.
std::vector<Pt2Root> pt2Roots();

/// The bridge's command: `explicitCommand` when not blank (origin "--python"),
/// else $FUSEBOX_PYTHON when not blank, else `chroot ROOT python3` for the
/// first of pt2Roots() whose usr/bin/python3 exists, else nullopt.
std::optional<PythonCommand> findPythonCommand(const std::string &explicitCommand = {});

/// The one line to show when findPythonCommand() finds nothing.
std::string noPythonMessage();

/// The torch version `command`'s Python has installed ("2.14.1+debian"),
/// read from its package metadata (importlib.metadata): about 0.1 s, where
/// importing torch to ask torch.__version__ takes seconds. Always what is
/// installed now, unlike a cache. nullopt when that Python cannot say (no
/// metadata, no torch, it does not run): ask the bridge then.
std::optional<std::string> installedTorchVersion(const PythonCommand &command);

} // namespace fusebox::pt2
