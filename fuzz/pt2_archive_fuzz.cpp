// libFuzzer target: torch.export archives (.pt2) as bytes on disk, through
// readExportedProgramFile() and looksLikeExportedProgram(): the zip layer
// (core/io/Pt2Archive.cpp, libzip), finding the program in either layout
// (ExportedProgramFile.cpp), the weights (Pt2Weights.cpp: payload configs,
// strided raw payloads) and torch.save files (TorchPickle.cpp: the pickle
// machine, storages). A bare JSON input takes the JSON path, which
// export_json_fuzz covers in depth. Checks the contract in ExportedProgram.h:
// - no input crashes them (ASan + UBSan watch every step);
// - a refusal is one line naming the file (and the entry inside the archive;
//   the entry's name is the input's, so unlike export_json_fuzz this target
//   cannot tell nlohmann's escaped exceptions from text that quotes one);
// - warnings are one line each, and weights that cannot be read leave the
//   graph usable (the import succeeds, with a warning);
// - the graph survives the graph JSON writer and reader unchanged, weights
//   included.
//
// An input is taken as the file's bytes, unless it starts with "FBZ\n": then
// it lists the entries of an archive ("\n==> name\n" lines, each followed by
// the entry's bytes) that this target zips, stored, with correct CRCs. A
// mutated byte inside a real zip's entry fails its CRC check, so only this
// form lets mutations reach the program JSON, the payload configs and the
// pickles; an entry whose bytes start with "FBZ\n" again is zipped the same
// way, its entries marked "\n--> name\n" (a torch.save file inside the archive). The raw form fuzzes the zip
// layer itself (libzip's parsing, truncation, bad sizes).
// FUSEBOX_FUZZ_ZIP_OUT=FILE writes the zip an "FBZ" input stands for, to
// reproduce a finding without this target.
// Seeds: scripts/fuzz-seeds.py pt2_archive (each archive in both forms).

#include "LoadedModelChecks.h"
#include "core/io/ExportedProgram.h"
#include "tests/StoredZip.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using fusebox::testing::storedZip; // as torch writes its archives: stored, no compression

constexpr std::string_view kEntriesMagic = "FBZ\n";

/// The archive an "FBZ\n" input lists (see the top of the file).
std::string archiveOf(std::string_view listing, int depth = 0)
{
    std::vector<std::pair<std::string, std::string>> entries;
    const std::string marker = depth == 0 ? "\n==> " : "\n--> ";
    listing.remove_prefix(kEntriesMagic.size() - 1); // keep the '\n' a first marker starts with
    size_t at = listing.find(marker);
    while (at != std::string_view::npos) {
        at += marker.size();
        const size_t nameEnd = listing.find('\n', at);
        if (nameEnd == std::string_view::npos)
            break;
        const size_t next = listing.find(marker, nameEnd);
        std::string bytes(
            listing.substr(nameEnd + 1, next == std::string_view::npos ? std::string_view::npos : next - nameEnd - 1));
        if (depth == 0 && std::string_view(bytes).starts_with(kEntriesMagic))
            bytes = archiveOf(bytes, depth + 1);
        entries.emplace_back(std::string(listing.substr(at, nameEnd - at)), std::move(bytes));
        at = next;
    }
    return storedZip(entries);
}

/// A file of this process's own (the reader takes a path): in /dev/shm when
/// there is one, so that no input touches the disk.
const std::string &scratchFile()
{
    static const std::string path = [] {
        std::error_code ec;
        std::filesystem::path dir = std::filesystem::is_directory("/dev/shm", ec)
                                        ? std::filesystem::path("/dev/shm")
                                        : std::filesystem::temp_directory_path();
        return (dir / ("fusebox-pt2-fuzz-" + std::to_string(getpid()) + ".pt2")).string();
    }();
    return path;
}

struct RemoveAtExit {
    ~RemoveAtExit() { std::remove(scratchFile().c_str()); }
} removeAtExit;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace fusebox;
    constexpr const char *target = "pt2_archive_fuzz";
    const std::string &path = scratchFile();
    std::string_view input(reinterpret_cast<const char *>(data), size);
    const std::string listed = input.starts_with(kEntriesMagic) ? archiveOf(input) : std::string();
    if (!listed.empty()) {
        input = listed;
        if (const char *copy = std::getenv("FUSEBOX_FUZZ_ZIP_OUT"))
            std::ofstream(copy, std::ios::binary) << listed;
    }
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(input.data(), static_cast<std::streamsize>(input.size()));
        if (!out)
            fuzz::contractBroken(target, "cannot write the scratch file", path);
    }
    (void)looksLikeExportedProgram(path);
    auto model = readExportedProgramFile(path);
    if (!model) {
        const std::string &message = model.error().message;
        if (!fuzz::isNamedError(message, path))
            fuzz::contractBroken(target, "a refusal that is not one line naming the file", message);
        return 0;
    }
    fuzz::checkLoadedModel(target, *model, /*stableWrite=*/true);
    return 0;
}
