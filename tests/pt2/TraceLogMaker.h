#pragma once
// Makes a TORCH_TRACE log with the reference PyTorch 2 (FUSEBOX_PYTHON, else
// the root scripts/setup-pt2.sh made first): oracle models compiled by
// torch.compile under TORCH_TRACE (tests/pt2/scripts/make_trace_log.py).
// Shared by the pt2 and the views tests; no Catch2 assertions here.

#include "CaptureCache.h"

#include "core/io/Base64.h"
#include "core/io/JsonSupport.h"
#include "core/ir/Expected.h"
#include "core/pt2/ChildProcess.h"
#include "core/pt2/PythonCommand.h"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fusebox::testing {

/// Compiles `models` (names of tests/pt2/models/oracle_models.py) under the
/// Optimus options of `configJson` (a pass config's text), then the first one
/// again after a Dynamo reset and with another batch size, and writes the
/// log to `outFile`.
inline Expected<std::string> makeTraceLog(const std::vector<std::string> &models, const std::string &configJson,
                                          const std::string &outFile)
{
    auto python = pt2::findPythonCommand();
    if (!python)
        return Error{pt2::noPythonMessage()};
    const std::string source = FUSEBOX_SOURCE_DIR;
    auto script = json_support::readTextFile(source + "/tests/pt2/scripts/make_trace_log.py");
    auto generator = json_support::readTextFile(source + "/tests/pt2/models/oracle_models.py");
    for (const auto *text : {&script, &generator})
        if (!*text)
            return text->error();
    std::vector<std::byte> bytes(generator->size());
    std::transform(generator->begin(), generator->end(), bytes.begin(), [](char c) { return std::byte(c); });
    std::vector<std::string> argv = python->argv;
    argv.insert(argv.end(), {"-c", *script, encodeBase64(bytes), configJson});
    argv.insert(argv.end(), models.begin(), models.end());
    auto text = pt2::runToEnd(argv, 900'000);
    if (!text)
        return Error{python->text() + ": make_trace_log.py: " + text.error().message};
    std::filesystem::create_directories(std::filesystem::path(outFile).parent_path());
    std::ofstream(outFile, std::ios::binary) << *text;
    return outFile;
}

/// makeTraceLog's log, made once for every test process of a build that asks
/// for the same one (ctest runs each views case in a process of its own, and
/// a log costs half a minute of torch.compile): reused while `outFile`.key
/// still holds the key of the request (the models, the config, the Python
/// and the scripts' texts). Processes asking at once take turns (a lock file).
inline Expected<std::string> sharedTraceLog(const std::vector<std::string> &models, const std::string &configJson,
                                            const std::string &outFile)
{
    auto python = pt2::findPythonCommand();
    if (!python)
        return Error{pt2::noPythonMessage()};
    const std::string source = FUSEBOX_SOURCE_DIR;
    std::vector<std::string> texts{python->text(), configJson,
                                   fileText(source + "/tests/pt2/scripts/make_trace_log.py"),
                                   fileText(source + "/tests/pt2/models/oracle_models.py")};
    texts.insert(texts.end(), models.begin(), models.end());
    const std::string key = std::to_string(fnv1a(texts));
    std::filesystem::create_directories(std::filesystem::path(outFile).parent_path());
    const FileLock lock(outFile + ".lock");
    if (std::filesystem::exists(outFile) && fileText(outFile + ".key") == key)
        return outFile;
    std::filesystem::remove(outFile + ".key");
    auto made = makeTraceLog(models, configJson, outFile);
    if (made)
        std::ofstream(outFile + ".key") << key;
    return made;
}

} // namespace fusebox::testing
