// File-level torch.export reading: .pt2 archive layouts, weights, sniffing.
#include "ExportedProgram.h"

#include "JsonSupport.h"
#include "Pt2Archive.h"
#include "Pt2Weights.h"
#include "core/ir/GraphBuilder.h"

#include <algorithm>
#include <fstream>

namespace fusebox {

namespace {

constexpr std::string_view kLegacyProgram = "serialized_exported_program.json";
/// source.format of torch 2.1-2.6's archives (the pt2 package layout keeps
/// the "torch.export" the program JSON sets).
constexpr std::string_view kSaveFormat = "torch.export (.pt2, torch.export.save layout)";

/// The first bytes of a file ("" when unreadable).
std::string readPrefix(const std::string &path, size_t count)
{
    std::ifstream in(path, std::ios::binary);
    std::string bytes(count, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(count));
    bytes.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return bytes;
}

/// A small version entry ("8.2\n", "0") as plain text; "" when it is not one.
std::string versionText(const Pt2Archive &archive, const std::string &entry)
{
    if (!archive.contains(entry))
        return {};
    auto bytes = archive.read(entry);
    if (!bytes || bytes->size() > 64)
        return {};
    std::string text = *bytes;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.pop_back();
    for (char c : text)
        if (c < 0x20 || c > 0x7e)
            return {};
    return text;
}

bool isZip(std::string_view prefix)
{
    return prefix.starts_with("PK\x03\x04") || prefix.starts_with("PK\x05\x06");
}

/// Where the exported program sits in an archive.
struct ProgramEntry {
    std::string entry;         // "archive/models/model.json"
    Pt2ModelLocation location; // root and model name
    bool legacy = false;       // torch 2.1-2.6 torch.export.save layout (serialized_exported_program.json)
    std::vector<std::string> otherModels;
};

/// Splits "root/rest" where root is at most one folder deep; nullopt when deeper.
std::optional<std::pair<std::string, std::string>> splitRoot(const std::string &entry, std::string_view rest)
{
    if (!entry.ends_with(rest))
        return std::nullopt;
    const std::string root = entry.substr(0, entry.size() - rest.size());
    if (!root.empty() && (root.back() != '/' || root.find('/') != root.size() - 1))
        return std::nullopt;
    return std::pair{root, std::string(rest)};
}

std::optional<ProgramEntry> findProgram(const Pt2Archive &archive)
{
    std::vector<ProgramEntry> models;
    std::optional<ProgramEntry> legacy;
    for (const std::string &entry : archive.entries()) {
        // <root>/models/<name>.json, <root> empty or one folder.
        const size_t models_at = entry.rfind("models/");
        if (models_at != std::string::npos && entry.ends_with(".json")
            && entry.find('/', models_at + 7) == std::string::npos) {
            const std::string name = entry.substr(models_at + 7, entry.size() - models_at - 7 - 5);
            if (auto split = splitRoot(entry, entry.substr(models_at)); split && !name.empty())
                models.push_back(ProgramEntry{entry, {split->first, name}, false, {}});
        }
        if (auto split = splitRoot(entry, kLegacyProgram); split && !legacy)
            legacy = ProgramEntry{entry, {split->first, {}}, true, {}};
    }
    if (models.empty())
        return legacy;
    auto chosen = std::find_if(models.begin(), models.end(),
                               [](const ProgramEntry &m) { return m.location.model == "model"; });
    if (chosen == models.end())
        chosen = std::min_element(models.begin(), models.end(),
                                  [](const ProgramEntry &a, const ProgramEntry &b) { return a.entry < b.entry; });
    ProgramEntry result = *chosen;
    for (const ProgramEntry &m : models)
        if (m.entry != result.entry)
            result.otherModels.push_back(m.location.model);
    return result;
}

std::string listEntries(const std::vector<std::string> &entries)
{
    if (entries.empty())
        return "nothing (an empty archive)";
    std::string text;
    const size_t shown = std::min<size_t>(entries.size(), 12);
    for (size_t i = 0; i < shown; ++i)
        text += (i ? ", " : "") + entries[i];
    if (entries.size() > shown)
        text += " and " + std::to_string(entries.size() - shown) + " more";
    return text;
}

/// True when a tensor constant of the graph has no payload.
bool hasTensorConstants(const Graph &graph)
{
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (n.kind() == NodeKind::Constant && n.type == "Tensor" && !graph.weights().contains(n.weightKey))
            return true;
    }
    return false;
}

Expected<LoadedModel> readArchive(const std::string &path, const ExportReadOptions &options)
{
    auto archive = Pt2Archive::open(path);
    if (!archive)
        return archive.error();
    const auto program = findProgram(*archive);
    if (!program)
        return Error{path + ": no exported program in the archive (expected models/<name>.json or "
                     + std::string(kLegacyProgram) + "); it holds " + listEntries(archive->entries())};
    auto text = archive->read(program->entry);
    if (!text)
        return text.error();
    // Errors name the entry inside the archive: "m.pt2/serialized_exported_program.json: ...".
    ExportReadOptions entryOptions = options;
    entryOptions.sourceName = (options.sourceName.empty() ? path : options.sourceName) + "/" + program->entry;
    auto model = readExportedProgramJson(*text, entryOptions);
    if (!model)
        return model;
    Graph &graph = model->graph;
    // The archive's facts and payloads are added to the graph the JSON reader built.
    GraphBuilder build = GraphBuilder::reopen(graph);
    if (!program->otherModels.empty()) {
        std::string others;
        for (const std::string &m : program->otherModels)
            others += (others.empty() ? "" : ", ") + m;
        model->warnings.push_back(path + ": the archive holds several models; imported '" + program->location.model
                                  + "', not " + others);
    }
    if (program->legacy) {
        build.metadata()["source.format"] = std::string(kSaveFormat);
        // torch.export.save wrote the schema version beside the program ("1", "3", "8.2").
        if (std::string version = versionText(*archive, program->location.root + "version"); !version.empty())
            build.metadata()["torch_export.archive_version"] = version;
        loadTorchSaveWeights(*archive, program->location.root, graph, model->warnings);
    } else {
        build.metadata()["torch_export.model"] = program->location.model;
        if (std::string version = versionText(*archive, program->location.root + "archive_version"); !version.empty())
            build.metadata()["torch_export.archive_version"] = version;
        loadPt2Weights(*archive, program->location, graph, model->warnings);
    }
    return model;
}

} // namespace

Expected<LoadedModel> readExportedProgramFile(const std::string &path, const ExportReadOptions &options)
{
    Expected<LoadedModel> model = Error{};
    if (isZip(readPrefix(path, 4))) {
        model = readArchive(path, options);
    } else {
        auto text = json_support::readTextFile(path);
        if (!text)
            return text.error();
        ExportReadOptions fileOptions = options;
        if (fileOptions.sourceName.empty())
            fileOptions.sourceName = path;
        model = readExportedProgramJson(*text, fileOptions);
        if (model && hasTensorConstants(model->graph))
            model->warnings.push_back(path + ": weights not loaded: a bare ExportedProgram JSON holds no weights");
    }
    if (model) {
        GraphBuilder::reopen(model->graph).metadata()["source.path"] = path;
        // Warnings quote names the archive holds (other models' entries,
        // payload paths, JSON keys, pickled class names), any of which may
        // hold a line break; a warning is one line wherever it is shown.
        for (std::string &warning : model->warnings)
            warning = json_support::oneLine(std::move(warning));
    }
    return model;
}

bool looksLikeExportedProgram(const std::string &path)
{
    const std::string prefix = readPrefix(path, 4096);
    if (isZip(prefix)) {
        auto archive = Pt2Archive::open(path);
        return archive && findProgram(*archive).has_value();
    }
    const size_t first = prefix.find_first_not_of(" \t\r\n");
    return first != std::string::npos && prefix[first] == '{' && prefix.find("\"graph_module\"") != std::string::npos;
}

} // namespace fusebox
