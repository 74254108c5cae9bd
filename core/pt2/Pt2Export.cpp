#include "Pt2Export.h"

#include "BridgeGraph.h"

#include "core/io/Base64.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace fusebox::pt2 {

namespace fs = std::filesystem;

namespace {

bool isIdentifier(const std::string &s)
{
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
        return false;
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

/// Writes every file beside its final name, then renames them all: an error
/// leaves no half-written export.
Status writeAll(const std::vector<std::pair<fs::path, std::string>> &files)
{
    std::vector<fs::path> partials;
    auto cleanup = [&] {
        std::error_code ec;
        for (const fs::path &p : partials)
            fs::remove(p, ec);
    };
    for (const auto &[path, bytes] : files) {
        fs::path partial = path;
        partial += ".partial";
        partials.push_back(partial);
        std::ofstream out(partial, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            cleanup();
            return Error{path.string() + ": cannot write the file"};
        }
    }
    for (size_t i = 0; i < files.size(); ++i) {
        std::error_code ec;
        fs::rename(partials[i], files[i].first, ec);
        if (ec) {
            cleanup();
            return Error{files[i].first.string() + ": cannot write the file (" + ec.message() + ")"};
        }
    }
    return {};
}

} // namespace

Pt2ExportFormat pt2ExportFormatOf(const std::string &path)
{
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext == ".pt2" ? Pt2ExportFormat::Archive : Pt2ExportFormat::Module;
}

Expected<Pt2ExportResult> exportForPyTorch2(Pt2Bridge &bridge, const Graph &rewritten, const Graph &original,
                                            const std::string &path, Pt2ExportFormat format,
                                            const RequestControl &control)
{
    const fs::path target(path);
    const bool module = format == Pt2ExportFormat::Module;
    const std::string stem = module ? target.stem().string() : std::string("rewritten");
    if (module && (target.extension() != ".py" || !isIdentifier(stem)))
        return Error{path
                     + ": a module export is NAME.py, NAME a Python identifier (letters, digits and _), so "
                       "that `import NAME` finds it"};
    const std::string source = rewritten.metadata().count("source.path") ? rewritten.metadata().at("source.path")
                                                                         : target.filename().string();
    auto answer = bridge.request("export",
                                 {{"graph", bridgeGraphText(rewritten)},
                                  {"original", bridgeGraphText(original)},
                                  {"weights", bridgeWeights(original)},
                                  {"format", module ? "module" : "pt2"},
                                  {"stem", stem},
                                  {"source_name", fs::path(source).filename().string()}},
                                 control);
    if (!answer)
        return Error{path + ": " + answer.error().message};
    Pt2ExportResult result;
    std::vector<std::pair<fs::path, std::string>> files;
    try {
        for (auto it = (*answer)["files"].begin(); it != (*answer)["files"].end(); ++it) {
            std::string bytes;
            if (it->is_string()) {
                bytes = it->get<std::string>();
            } else {
                auto decoded = decodeBase64(it->value("base64", std::string()));
                if (!decoded)
                    return Error{"PyTorch 2 bridge: export sent " + it.key() + " in bad base64"};
                bytes.assign(reinterpret_cast<const char *>(decoded->data()), decoded->size());
            }
            // The archive takes the name asked for; a module's files are named by the bridge from its stem.
            const fs::path where = module ? target.parent_path() / it.key() : target;
            files.emplace_back(where, std::move(bytes));
        }
        const nlohmann::json &c = (*answer)["check"];
        result.check.passed = c.value("passed", false);
        result.check.maxAbsDiff = c.value("max_abs_diff", 0.0);
        result.check.maxRelDiff = c.value("max_rel_diff", 0.0);
        result.check.worstOutput = c.value("worst_output", -1);
        result.check.worstOutputName = c.value("worst_output_name", std::string());
        result.check.message = c.value("message", std::string());
        for (const auto &note : answer->value("notes", nlohmann::json::array()))
            result.notes.push_back(note.get<std::string>());
    } catch (const std::exception &e) {
        return Error{std::string("PyTorch 2 bridge: export's answer: ") + e.what()};
    }
    if (files.empty())
        return Error{"PyTorch 2 bridge: export wrote no file"};
    if (Status written = writeAll(files); !written)
        return written.error();
    for (const auto &[p, bytes] : files)
        result.files.push_back(p.string());
    return result;
}

} // namespace fusebox::pt2
