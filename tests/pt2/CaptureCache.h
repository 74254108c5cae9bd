#pragma once
// Captures of model scripts shared by every test process of one build: ctest
// runs each pt2 source file and each views case in a process of its own, and
// a capture costs 10-20 s of PyTorch 2. A capture is made once into
// build/pt2-fixtures/captures/<stem>-<key>/ and reused while its key holds:
// the key hashes the script's text and the bridge's Python sources (capture.py
// and the rest), so an edit of either captures again. The folder is complete
// only once its ".complete" marker exists (written last; a crashed run leaves
// no half capture behind for the next).

#include "core/io/JsonSupport.h"
#include "core/pt2/Pt2Bridge.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace fusebox::testing {

/// An exclusive lock on the file `path` (made when missing), held while the
/// object lives: test processes that make one shared fixture take turns.
class FileLock {
public:
    explicit FileLock(const std::string &path)
        : m_fd(::open(path.c_str(), O_CREAT | O_RDWR, 0644))
    {
        if (m_fd >= 0)
            ::flock(m_fd, LOCK_EX);
    }
    ~FileLock()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileLock(const FileLock &) = delete;
    FileLock &operator=(const FileLock &) = delete;

private:
    int m_fd;
};

/// 64-bit FNV-1a of the texts, in order.
inline uint64_t fnv1a(const std::vector<std::string> &texts)
{
    uint64_t h = 1469598103934665603ull;
    for (const std::string &t : texts) {
        for (unsigned char c : t) {
            h ^= c;
            h *= 1099511628211ull;
        }
        h ^= 0xff;
        h *= 1099511628211ull;
    }
    return h;
}

inline std::string fileText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The key of a capture of `script` made by the bridge's sources in `pythonDir`.
inline std::string captureKey(const std::string &script, const std::string &pythonDir)
{
    std::vector<std::string> paths;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(pythonDir))
        if (entry.path().extension() == ".py")
            paths.push_back(entry.path().string());
    std::sort(paths.begin(), paths.end());
    std::vector<std::string> texts{fileText(script)};
    for (const std::string &p : paths)
        texts.push_back(p.substr(pythonDir.size()) + "\n" + fileText(p));
    char key[17];
    std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(fnv1a(texts)));
    return key;
}

/// The capture of `script` (an absolute path) under `binaryDir`: made through
/// `bridge` when no complete one is there, else read back (files, histograms,
/// notes as the bridge gave them). Several processes asking at once: one
/// captures, the others wait for it (a lock file).
inline Expected<pt2::CaptureResult> sharedCapture(pt2::Pt2Bridge &bridge, const std::string &script,
                                                  const std::string &binaryDir, const std::string &pythonDir)
{
    namespace fs = std::filesystem;
    const std::string stem = fs::path(script).stem().string();
    const fs::path root = fs::path(binaryDir) / "pt2-fixtures" / "captures";
    const fs::path dir = root / (stem + "-" + captureKey(script, pythonDir));
    fs::create_directories(root);
    const FileLock lock(dir.string() + ".lock");
    const fs::path marker = dir / ".complete";
    if (fs::exists(marker)) {
        auto text = json_support::readTextFile(marker.string());
        nlohmann::json j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
        if (j.is_object()) {
            pt2::CaptureResult r;
            r.outputDir = dir.string();
            r.files = j.value("files", std::vector<std::string>{});
            r.histograms = j.value("histograms", decltype(r.histograms){});
            r.exportError = j.value("export_error", std::string());
            r.notes = j.value("notes", std::vector<std::string>{});
            r.seconds = j.value("seconds", 0.0);
            return r;
        }
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    auto made = bridge.capture(script, dir.string());
    if (!made)
        return made.error();
    nlohmann::json j = {{"files", made->files},
                        {"histograms", made->histograms},
                        {"export_error", made->exportError},
                        {"notes", made->notes},
                        {"seconds", made->seconds}};
    std::ofstream(marker) << j.dump();
    return made;
}

} // namespace fusebox::testing
