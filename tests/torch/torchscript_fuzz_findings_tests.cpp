// What fuzz/torchscript_fuzz.cpp found in the TorchScript importer, one case
// each: archives that made libtorch 1.13 throw where nothing caught it, or
// crash, now refused with a one-line error naming the file.
#include <catch.hpp>

#include "core/io/Pt2Archive.h"
#include "core/torch/TorchScriptImporter.h"
#include "StoredZip.h"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

using namespace fusebox;

namespace {

std::string fixtureBytes(const std::string &name)
{
    std::ifstream in(std::string(FUSEBOX_FIXTURE_DIR) + "/" + name, std::ios::binary);
    REQUIRE(in);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

std::string replaceAll(std::string text, const std::string &from, const std::string &to)
{
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

/// The entries of a zip, in order, as libzip reads them.
std::vector<std::pair<std::string, std::string>> entriesOf(const std::string &zip)
{
    auto archive = Pt2Archive::openBuffer(zip, "fixture.pt");
    REQUIRE(archive);
    std::vector<std::pair<std::string, std::string>> entries;
    for (const std::string &entry : archive->entries()) {
        auto bytes = archive->read(entry);
        REQUIRE(bytes);
        entries.emplace_back(entry, *bytes);
    }
    return entries;
}

std::string &pickleOf(std::vector<std::pair<std::string, std::string>> &entries, const std::string &suffix)
{
    auto it = std::find_if(entries.begin(), entries.end(), [&](const auto &e) { return e.first.ends_with(suffix); });
    REQUIRE(it != entries.end());
    return it->second;
}

} // namespace

TEST_CASE("TorchScript fuzz findings: a record outside the archive's folder is an error, not an escaped exception",
          "[torch][fuzz]")
{
    // PyTorchStreamReader::getAllRecords() throws c10::Error for it; the
    // importer called it outside its try block (std::terminate).
    const std::string bytes = replaceAll(fixtureBytes("multi_output.pt"), "multi_output/constants.pkl",
                                         "eulti_output/constants.pkl");
    auto r = importTorchScriptFromBytes(bytes, "renamed.pt");
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find('\n') == std::string::npos);
    CHECK(r.error().message.rfind("renamed.pt: not a model file (unreadable zip archive: ", 0) == 0);
    CHECK(r.error().message.find("not in a subdirectory") != std::string::npos);
}

TEST_CASE("TorchScript fuzz findings: a damaged entry fails its CRC check before libtorch parses it", "[torch][fuzz]")
{
    // libtorch 1.13 does not check CRCs: a flipped byte in code/__torch__.py
    // reached its TorchScript parser, which crashed (SEGV in
    // ScriptTypeParser::parseClassConstant). One byte of the stored data.pkl
    // is flipped here.
    std::string bytes = fixtureBytes("control_flow.pt");
    const std::string entry = "control_flow/data.pkl";
    const size_t name = bytes.find(entry); // in the local header, which comes first
    REQUIRE(name != std::string::npos);
    REQUIRE((bytes[name - 22] == 0 && bytes[name - 21] == 0)); // stored, not deflated
    const size_t extra = static_cast<unsigned char>(bytes[name - 2]) | static_cast<unsigned char>(bytes[name - 1]) << 8;
    bytes[name + entry.size() + extra + 3] ^= 0x20;
    auto r = importTorchScriptFromBytes(bytes, "flipped.pt");
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "flipped.pt/control_flow/data.pkl: corrupt entry (CRC error)");
}

TEST_CASE("TorchScript fuzz findings: a record holding more than its header says is corrupt", "[torch][fuzz]")
{
    // The central directory gave control_flow/data/1 (16 bytes) a size of 0:
    // the CRC check was skipped, and libtorch built the 4-float tensor on an
    // empty storage, which the converter then copied from (SEGV on a null
    // pointer). The size field sits 22 bytes before the name in the central
    // directory, which comes after the local headers.
    std::string bytes = fixtureBytes("control_flow.pt");
    const size_t name = bytes.rfind("control_flow/data/1");
    REQUIRE(name != std::string::npos);
    REQUIRE(bytes[name - 22] == 16);
    bytes[name - 22] = 0;
    auto r = importTorchScriptFromBytes(bytes, "understated.pt");
    REQUIRE_FALSE(r);
    CHECK(r.error().message
          == "understated.pt/control_flow/data/1: corrupt entry (it holds more than the 0 bytes its header gives)");
}

TEST_CASE("TorchScript fuzz findings: a storage record shorter than its pickle says is refused", "[torch][fuzz]")
{
    // torchscript_fuzz: data/0 and data/1 swapped names, so the 4x4
    // weight's storage (16 floats, as data.pkl says) lay over the 16-byte
    // bias record: libtorch sizes a storage from the pickle, and the
    // converter copied 64 bytes from a 16-byte buffer. Here the bias record
    // is made consistently empty (sizes and CRC 0 in both headers), so that
    // libzip reads it fine; the check of the pickle's storages refuses it.
    std::string bytes = fixtureBytes("control_flow.pt");
    const std::string entry = "control_flow/data/1";
    for (size_t name = bytes.find(entry); name != std::string::npos; name = bytes.find(entry, name + 1)) {
        const bool central = bytes.compare(name - 46, 4, "PK\x01\x02") == 0;
        const size_t crc = name - (central ? 30 : 16); // crc, compressed size, size follow each other
        REQUIRE((central || bytes.compare(name - 30, 4, "PK\x03\x04") == 0));
        std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(crc),
                  bytes.begin() + static_cast<std::ptrdiff_t>(crc + 12), '\0');
    }
    auto r = importTorchScriptFromBytes(bytes, "short.pt");
    REQUIRE_FALSE(r);
    CHECK(r.error().message
          == "short.pt/control_flow/data/1: corrupt storage (data.pkl gives it 4 elements of FloatStorage, 16 bytes; "
             "the record holds 0)");

    // The record and the storage agree, but the tensor's sizes outgrow
    // them: weight (4, 4) becomes (4, 8), refused after loading.
    auto entries = entriesOf(fixtureBytes("control_flow.pt"));
    std::string &pickle = pickleOf(entries, "/data.pkl");
    const std::string sizes("(K\x04K\x04t", 5);
    REQUIRE(pickle.find(sizes) != std::string::npos);
    pickle.replace(pickle.find(sizes), sizes.size(), std::string("(K\x04K\x08t", 5));
    auto grown = importTorchScriptFromBytes(fusebox::testing::storedZip(entries), "grown.pt");
    REQUIRE_FALSE(grown);
    CHECK(grown.error().message.rfind("grown.pt: cannot load the TorchScript archive (tensor '", 0) == 0);
    CHECK(grown.error().message.find("' needs 80 bytes of storage, its storage has 64)") != std::string::npos);
}

TEST_CASE("TorchScript fuzz findings: a code/ record that is neither a source nor its debug table is refused",
          "[torch][fuzz]")
{
    // Renamed code/ records (names carry no CRC) reached libtorch 1.13, whose
    // parser crashed on them (SEGV in ScriptTypeParser::parseClassConstant).
    // The name is changed in both zip headers (same length), so the archive
    // stays readable.
    const std::string bytes = replaceAll(fixtureBytes("control_flow.pt"), "control_flow/code/__torch__.py.debug_pkl",
                                         "control_flow/code/__torch__.py.de8.py.kl");
    auto r = importTorchScriptFromBytes(bytes, "renamed.pt");
    REQUIRE_FALSE(r);
    CHECK(r.error().message
          == "renamed.pt: not a TorchScript archive (code/__torch__.py.de8.py.kl is neither a code/ source nor the "
             "debug table of one)");
}

TEST_CASE("TorchScript fuzz findings: a zip whose directory reads two ways is refused", "[torch][fuzz]")
{
    // A local header's name held a stray end-of-directory record: libzip
    // took it for the zip's end and read no entries (so it checked none),
    // while libtorch's reader found them all, and unpickled a damaged debug
    // table (5.4 GB for a 4 KB file). libtorch now reads only a fresh zip of
    // what libzip checked, and an empty one is refused. The local header
    // comes first.
    std::string bytes = fixtureBytes("control_flow.pt");
    const size_t name = bytes.find("control_flow/code/__torch__/torch/nn/modules/linear/");
    REQUIRE(name != std::string::npos);
    REQUIRE(bytes.compare(name - 30, 4, "PK\x03\x04") == 0);
    bytes.replace(name + 2, 22, std::string("PK\x05\x06", 4) + std::string(18, '\0'));
    auto r = importTorchScriptFromBytes(bytes, "two-ways.pt");
    REQUIRE_FALSE(r);
    INFO(r.error().message);
    CHECK(r.error().message == "two-ways.pt: not a model file (damaged zip: its directory lists no entries)");
}

TEST_CASE("TorchScript fuzz findings: a pickle asking for a huge memo is refused before libtorch reads it",
          "[torch][fuzz]")
{
    // The same damage with intact CRCs: data.pkl's first BINPUT becomes
    // LONG_BINPUT 170,489,896, for which libtorch 1.13 would reserve 5.4 GB.
    auto entries = entriesOf(fixtureBytes("control_flow.pt"));
    // Rewritten as it is, the archive loads: the refusal below is the pickle's.
    REQUIRE(importTorchScriptFromBytes(fusebox::testing::storedZip(entries), "rewritten.pt"));
    std::string &data = pickleOf(entries, "/data.pkl");
    REQUIRE(data.compare(25, 2, std::string("q\0", 2)) == 0); // PROTO, GLOBAL, then BINPUT 0
    data.replace(25, 2, std::string("r\x28\x78\x29\x0a", 5));
    auto r = importTorchScriptFromBytes(fusebox::testing::storedZip(entries), "memo.pt");
    REQUIRE_FALSE(r);
    CHECK(r.error().message
          == "memo.pt/control_flow/data.pkl: corrupt pickle (LONG_BINPUT at byte 25 writes memo slot 170489896, past "
             "the 2 opcodes before it)");
}
