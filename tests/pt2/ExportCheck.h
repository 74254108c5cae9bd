#pragma once
// Runs tests/pt2/scripts/check_rewritten_export.py in the bridge's Python
// (stock PyTorch 2, none of Fusebox's code): a rewritten graph Fusebox exported
// against the real model it was captured from.

#include "CaptureCache.h"

#include "core/io/Base64.h"
#include "core/pt2/Pt2Bridge.h"
#include "torch/RunPass.h"

#include <catch.hpp>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fusebox::testing {

/// What the script printed: {"passed", "max_abs_diff", "inputs", "ops"}.
inline nlohmann::json checkExportInStockPyTorch(const pt2::PythonCommand &python, const std::string &modelScript,
                                                const std::string &kind, const std::string &stem,
                                                const std::vector<std::string> &files)
{
    nlohmann::json payload = {{"model_script", fileText(modelScript)},
                              {"kind", kind},
                              {"stem", stem},
                              {"files", nlohmann::json::object()}};
    for (const std::string &f : files) {
        const std::string bytes = fileText(f);
        std::vector<std::byte> raw(bytes.size());
        std::memcpy(raw.data(), bytes.data(), bytes.size());
        payload["files"][std::filesystem::path(f).filename().string()] = encodeBase64(raw);
    }
    // This process's own file: ctest runs the offscreen and X11 views cases,
    // which check the same stem, at the same time.
    const std::string program = std::filesystem::temp_directory_path()
                                / ("fusebox-check-" + stem + "-" + std::to_string(::getpid()) + ".py");
    {
        std::ofstream out(program, std::ios::binary);
        out << "PAYLOAD = " << payload.dump() << "\n"
            << fileText(std::string(FUSEBOX_SOURCE_DIR) + "/tests/pt2/scripts/check_rewritten_export.py");
    }
    struct Remove {
        std::string path;
        ~Remove() { std::filesystem::remove(path); }
    } remove{program};
    return runPythonForJson(python.argv, program, "FUSEBOX-EXPORT-CHECK: ");
}

} // namespace fusebox::testing
