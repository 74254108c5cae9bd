#include "TorchScriptImporter.h"

#include "TorchGraphConverter.h"
#include "TorchShapeInference.h"
#include "TorchValueConversion.h"
#include "core/io/JsonSupport.h"
#include "core/io/PickleBounds.h"
#include "core/io/Pt2Archive.h"
#include "core/io/StoredZipWriter.h"
#include "core/io/TorchPickle.h"
#include "core/ir/GraphBuilder.h"
#include "core/ir/Verifier.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/api/module.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace fusebox {
namespace {

namespace jit = torch::jit;

/// What the first bytes of a file say about it, before libtorch sees it.
std::optional<Error> checkHeader(const std::string &name, std::string_view head)
{
    if (head.size() >= 4 && head.substr(0, 4) == std::string_view("PK\x03\x04", 4))
        return std::nullopt;
    if (head.empty())
        return Error{name + ": empty file (0 bytes), not a model"};
    // Pickle protocol 2+ starts with 0x80: torch.save's legacy (pre-zip) format.
    if (!head.empty() && static_cast<unsigned char>(head[0]) == 0x80)
        return Error{name + ": not a TorchScript archive (it looks like a torch.save pickle)"};
    return Error{name + ": not a model file (not a zip archive)"};
}

/// Each storage that <root>/data.pkl and <root>/constants.pkl refer to must
/// fit in its record (<root>/data/<key>, <root>/constants/<key>): libtorch
/// 1.13 gives a storage the size the pickle states (elements x element size)
/// over a buffer of the record's size, so the converter read past a 16-byte
/// record given 16 floats (found by fuzz/torchscript_fuzz.cpp). A missing
/// record is libtorch's to refuse.
std::optional<Error> checkStorages(const std::string &name, const std::map<std::string, std::string> &pickles,
                                   const std::map<std::string, size_t> &sizes)
{
    for (const auto &[entry, bytes] : pickles) {
        const std::string folder = entry.substr(0, entry.size() - std::string_view(".pkl").size()) + "/";
        const std::string pickle = entry.substr(entry.rfind('/') + 1);
        auto storages = torch_pickle::storageReferences(bytes);
        if (!storages)
            return Error{name + "/" + json_support::oneLine(entry) + ": corrupt pickle (" + storages.error().message
                         + ")"};
        for (const torch_pickle::StorageReference &storage : *storages) {
            const auto record = sizes.find(folder + storage.key);
            const int element = elementSize(storage.dtype);
            if (record == sizes.end() || element == 0 || storage.numel < 0)
                continue;
            const __int128 needed = static_cast<__int128>(storage.numel) * element;
            if (needed > static_cast<__int128>(record->second))
                return Error{name + "/" + json_support::oneLine(record->first) + ": corrupt storage (" + pickle
                             + " gives it " + std::to_string(storage.numel) + " elements of " + storage.typeName + ", "
                             + (needed > INT64_MAX ? std::string("more than 2^63") : std::to_string(int64_t(needed)))
                             + " bytes; the record holds " + std::to_string(record->second) + ")"};
        }
    }
    return std::nullopt;
}

using Entries = std::vector<std::pair<std::string, std::string>>;

/// Reads every entry through libzip, which checks its CRC and size: libtorch
/// 1.13's reader checks neither, parses a damaged code/ or .pkl record as it
/// is (its TorchScript parser crashed on some: SEGV in
/// ScriptTypeParser::parseClassConstant) and allocates what a header claims
/// (4 GiB for a damaged version record). Each pickle (data.pkl,
/// constants.pkl, the code/ debug tables) has its sizes checked, which
/// libtorch allocates as they come (checkPickleSizes), and its storages
/// checked against their records (checkStorages). All found by
/// fuzz/torchscript_fuzz.cpp. Errors name the file and the entry
/// ("m.pt/m/code/__torch__.py: corrupt entry (CRC error)"). Returns the
/// entries read, for writeStoredZip().
Expected<Entries> checkEntries(const std::string &name, const Expected<Pt2Archive> &archive)
{
    if (!archive)
        return archive.error();
    Entries entries;
    std::map<std::string, size_t> sizes;
    std::map<std::string, std::string> pickles;
    for (const std::string &entry : archive->entries()) {
        if (entry.ends_with('/'))
            continue;
        auto bytes = archive->read(entry);
        if (!bytes)
            return bytes.error();
        if (entry.ends_with(".pkl") || entry.ends_with(".debug_pkl"))
            if (auto bad = checkPickleSizes(*bytes))
                return Error{name + "/" + json_support::oneLine(entry) + ": corrupt pickle (" + bad->message + ")"};
        if (entry.ends_with("/data.pkl") || entry.ends_with("/constants.pkl"))
            pickles.emplace(entry, *bytes);
        sizes.emplace(entry, bytes->size());
        entries.emplace_back(entry, std::move(bytes).value());
    }
    // libzip and libtorch's reader (miniz) find a zip's directory each their
    // own way: a stray end record in a local header's name made libzip read
    // a damaged archive as empty while libtorch read it whole.
    if (entries.empty())
        return Error{name + ": not a model file (damaged zip: its directory lists no entries)"};
    if (auto error = checkStorages(name, pickles, sizes))
        return *error;
    return entries;
}

/// What libtorch is given to read: a fresh zip of the entries libzip read
/// and checked, not the file, whose headers it would trust.
Expected<std::string> checkedArchive(const std::string &name, const Expected<Pt2Archive> &archive)
{
    Expected<Entries> entries = checkEntries(name, archive);
    if (!entries)
        return entries.error();
    Expected<std::string> zip = writeStoredZip(*entries);
    if (!zip)
        return Error{name + ": not a model file (damaged zip: " + zip.error().message + ")"};
    return zip;
}

/// Checks the zip's records: TorchScript archives have code/ and constants.pkl,
/// torch.save archives only data.pkl. The reader's constructor checks the
/// format version.
std::optional<Error> checkArchive(const std::string &name, const std::string &zip)
{
    bool hasCode = false, hasConstants = false, hasData = false;
    std::string strayCode;
    try {
        std::istringstream in(zip);
        auto reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(&in);
        // getAllRecords() throws too: for a record outside the archive's
        // root folder, found by fuzz/torchscript_fuzz.cpp.
        const std::vector<std::string> records = reader->getAllRecords();
        const std::set<std::string> names(records.begin(), records.end());
        for (const std::string &record : records) {
            if (!record.starts_with("code/"))
                continue;
            hasCode = true;
            // code/ holds sources (X.py) and their debug tables
            // (X.py.debug_pkl). libtorch 1.13 trusts the names: a debug table
            // whose source is missing, or a stray name, crashed its parser
            // (SEGV in ScriptTypeParser::parseClassConstant; fuzz/torchscript_fuzz.cpp).
            const bool source = record.ends_with(".py");
            const bool debugTable = record.ends_with(".py.debug_pkl")
                                    && names.count(
                                        record.substr(0, record.size() - std::string_view(".debug_pkl").size()));
            if (!source && !debugTable && !record.ends_with('/') && strayCode.empty())
                strayCode = record;
        }
        hasConstants = reader->hasRecord("constants.pkl");
        hasData = reader->hasRecord("data.pkl");
    } catch (const std::exception &e) {
        std::string message = torchimport::oneLineMessage(e);
        if (message.find("version") != std::string::npos)
            return Error{name + ": unsupported TorchScript version (" + message + ")"};
        return Error{name + ": not a model file (unreadable zip archive: " + message + ")"};
    }
    if (!strayCode.empty())
        return Error{name + ": not a TorchScript archive (" + json_support::oneLine(strayCode)
                     + " is neither a code/ source nor the debug table of one)"};
    if (hasCode && hasConstants)
        return std::nullopt;
    if (hasData)
        return Error{name + ": not a TorchScript archive (it looks like a torch.save pickle)"};
    return Error{name + ": not a TorchScript archive (no code/ or constants.pkl in the zip)"};
}

/// The first tensor attribute of the module (submodules included) whose
/// storage is too small for it, described; "" when none is. A damaged archive
/// can give a tensor an empty storage: libtorch 1.13 does not check, and its
/// kernels (freezing, the example run for shapes) would read past it.
std::string tensorWithShortStorage(const jit::Module &module)
{
    for (const auto &attribute : module.named_attributes(/*recurse=*/true)) {
        if (!attribute.value.isTensor())
            continue;
        const at::Tensor &t = attribute.value.toTensor();
        if (!t.defined() || t.is_sparse() || t.is_quantized() || t.is_meta() || t.numel() == 0)
            continue;
        __int128 last = t.storage_offset(); // the last element's index in the storage
        for (int64_t d = 0; d < t.dim(); ++d)
            last += static_cast<__int128>(t.size(d) - 1) * t.stride(d);
        const __int128 needed = (last + 1) * static_cast<__int128>(t.element_size());
        // A storage without data (its record read as empty) has none, whatever its size says.
        const __int128 has = t.has_storage() && t.storage().data() ? static_cast<__int128>(t.storage().nbytes()) : 0;
        if (last < 0 || needed > has)
            return "tensor '" + attribute.name + "' needs "
                   + (needed > INT64_MAX ? std::string("more than 2^63") : std::to_string(int64_t(needed)))
                   + " bytes of storage, its storage has " + std::to_string(int64_t(has));
    }
    return {};
}

using ModuleLoader = std::function<jit::Module(jit::ExtraFilesMap &)>;

Expected<LoadedModel> importModule(const std::string &name, const ModuleLoader &load,
                                   const TorchScriptImportOptions &options)
{
    LoadedModel model;
    jit::ExtraFilesMap extraFiles{{torchimport::kInputSpecsFile, ""}};
    jit::Module module;
    try {
        module = load(extraFiles);
    } catch (const std::exception &e) {
        std::string message = torchimport::oneLineMessage(e);
        if (message.find("version") != std::string::npos)
            return Error{name + ": unsupported TorchScript version (" + message + ")"};
        return Error{name + ": cannot load the TorchScript archive (" + message + ")"};
    }
    if (std::string problem = tensorWithShortStorage(module); !problem.empty())
        return Error{name + ": cannot load the TorchScript archive (" + problem + ")"};

    try {
        module.eval();
        // freeze_module, not torch::jit::freeze: the latter also folds conv/bn,
        // fuses ops and rewrites linears, and the IR must show the model as written.
        jit::Module frozen = jit::freeze_module(module);
        if (!frozen.find_method("forward"))
            return Error{name + ": the module has no forward method"};
        std::shared_ptr<jit::Graph> graph = frozen.get_method("forward").graph();
        jit::Inline(*graph);

        std::vector<torchimport::InputSpec> specs;
        std::string shapeSource = "none";
        const std::string &inputsJson = extraFiles[torchimport::kInputSpecsFile];
        if (!inputsJson.empty()) {
            specs = torchimport::parseInputSpecs(name, inputsJson, model.warnings);
            if (!specs.empty())
                shapeSource = torchimport::kInputSpecsFile;
        }
        if (!options.inputShapes.empty()) {
            std::vector<torchimport::InputSpec> given;
            for (size_t i = 0; i < options.inputShapes.size(); ++i)
                given.push_back({options.inputShapes[i], i < specs.size() ? specs[i].dtype : DType::Float32});
            specs = std::move(given);
            shapeSource = "options";
        }
        if (!specs.empty())
            torchimport::inferShapes(graph, specs, options.runExampleForShapes, name, model.warnings);

        torchimport::convertGraph(*graph, &module, name, model.graph, model.warnings);
        std::map<std::string, std::string> &metadata = GraphBuilder::reopen(model.graph).metadata();
        metadata["source.format"] = "torchscript";
        metadata["source.path"] = name;
        metadata["source.input_shapes"] = shapeSource;
    } catch (const std::exception &e) {
        return Error{name + ": cannot import the TorchScript graph (" + torchimport::oneLineMessage(e) + ")"};
    }

    if (auto issues = verify(model.graph); !issues.empty()) {
        std::string joined;
        for (const VerifierIssue &issue : issues)
            joined += (joined.empty() ? "" : "; ") + issue.message;
        return Error{name + ": importer bug, the imported graph is malformed: " + joined};
    }
    return model;
}

/// Loads the checked copy of an archive (checkedArchive()).
Expected<LoadedModel> importChecked(const std::string &name, const Expected<std::string> &zip,
                                    const TorchScriptImportOptions &options)
{
    if (!zip)
        return zip.error();
    if (auto error = checkArchive(name, *zip))
        return *error;
    return importModule(
        name,
        [&](jit::ExtraFilesMap &extra) {
            std::istringstream in(*zip);
            return jit::load(in, c10::nullopt, extra);
        },
        options);
}

} // namespace

Expected<LoadedModel> importTorchScript(const std::string &path, const TorchScriptImportOptions &options)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return Error{path + ": no such file"};
    if (std::filesystem::is_directory(path, ec))
        return Error{path + ": not a model file (a directory)"};
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return Error{path + ": cannot be opened for reading"};
    char head[4] = {};
    file.read(head, sizeof head);
    if (auto error = checkHeader(path, std::string_view(head, file.gcount())))
        return *error;
    return importChecked(path, checkedArchive(path, Pt2Archive::open(path)), options);
}

Expected<LoadedModel> importTorchScriptFromBytes(const std::string &bytes, const std::string &displayName,
                                                 const TorchScriptImportOptions &options)
{
    if (auto error = checkHeader(displayName, std::string_view(bytes).substr(0, 4)))
        return *error;
    return importChecked(displayName, checkedArchive(displayName, Pt2Archive::openBuffer(bytes, displayName)), options);
}

} // namespace fusebox
