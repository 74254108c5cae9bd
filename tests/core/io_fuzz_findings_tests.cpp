// What the fuzz targets of the JSON and archive readers found (fuzz/*_fuzz.cpp
// other than fx_text, whose findings are in io_fx_fuzz_findings_tests.cpp),
// one case each, on the smallest input that showed it.

#include "core/io/ExportedProgram.h"
#include "core/io/GraphJson.h"
#include "core/io/PassConfig.h"
#include "core/io/PatternFile.h"
#include "core/io/PickleBounds.h"
#include "core/io/Pt2Archive.h"
#include "core/io/StoredZipWriter.h"
#include "core/io/TorchPickleImpl.h"
#include "StoredZip.h"

#include <catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

using namespace fusebox;
using fusebox::testing::storedZip;

namespace {

std::string scratchFile(const std::string &name, const std::string &bytes)
{
    const std::filesystem::path dir = std::filesystem::path(FUSEBOX_BINARY_DIR) / "fuzz-findings-tests";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

} // namespace

TEST_CASE("JSON fuzz findings: a key with a line break is escaped in the error's path, which stays one line",
          "[io][fuzz]")
{
    // pass_config_fuzz: the number overflow's path quoted the key as it was.
    auto overflow = readPassConfig("{\"pre_grad_fusion_options\": {\"a\\nb\": {\"c\": 1e999}}}", "p.json");
    REQUIRE_FALSE(overflow.hasValue());
    CHECK(overflow.error().message
          == "p.json:1:44: at pre_grad_fusion_options.a\\nb.c: number overflow parsing '1e999' (it does not fit a "
             "double)");
    auto rule = readPassConfig("{\"pre_grad_fusion_options\": {\"a\\nb\\t\\u0001\": 5}}", "p.json");
    REQUIRE_FALSE(rule.hasValue());
    CHECK(rule.error().message
          == "p.json: /pre_grad_fusion_options/a\\nb\\t\\x01: expected an object of options, found number 5");
    auto meta
        = readGraphJson("{\"format\": \"fusebox-graph\", \"version\": 1, \"metadata\": {\"x\\ny\": 1}, \"nodes\": []}",
                        "g.json");
    REQUIRE_FALSE(meta.hasValue());
    CHECK(meta.error().message == "g.json: /metadata/x\\ny: expected a string, found number 1");
}

TEST_CASE(".pt2 fuzz findings: an entry claiming 4 GiB is read as far as its data goes, not allocated up front",
          "[io][pt2][fuzz]")
{
    // pt2_archive_fuzz: Pt2Archive::read() made a string of the claimed size
    // before reading (out of memory under the fuzzer's 4 GiB limit).
    const std::string path = scratchFile("claims-4gib.pt2", storedZip({{"models/model.json", "{}"}}, 0xfffffff0u));
    auto result = readExportedProgramFile(path);
    REQUIRE_FALSE(result.hasValue());
    INFO(result.error().message);
    CHECK(result.error().message.find('\n') == std::string::npos);
    CHECK(result.error().message.rfind(path + "/models/model.json: corrupt entry (", 0) == 0);
}

TEST_CASE(".pt2 fuzz findings: an entry holding more than its header says is corrupt", "[io][pt2][fuzz]")
{
    // torchscript_fuzz: a header giving 0 bytes for a 16-byte record made the
    // read stop before libzip's CRC check, and libtorch then built a tensor
    // on an empty storage.
    const std::string path = scratchFile("understated.pt2",
                                         storedZip({{"models/model.json", "{\"graph_module\": 1}"}}, 2));
    auto result = readExportedProgramFile(path);
    REQUIRE_FALSE(result.hasValue());
    CHECK(result.error().message
          == path + "/models/model.json: corrupt entry (it holds more than the 2 bytes its header gives)");
}

TEST_CASE(".pt2 fuzz findings: an entry name with a line break is quoted on one line", "[io][pt2][fuzz]")
{
    // torchscript_fuzz: a mutated entry name held a line break, and the error
    // naming the entry took two lines.
    const std::string path = scratchFile("newline-name.pt2", storedZip({{"m/da\nta.pkl", "0123456789abcdef"}}, 2));
    auto archive = Pt2Archive::open(path);
    REQUIRE(archive.hasValue());
    auto bytes = archive->read("m/da\nta.pkl");
    REQUIRE_FALSE(bytes.hasValue());
    CHECK(bytes.error().message
          == path + "/m/da\\nta.pkl: corrupt entry (it holds more than the 2 bytes its header gives)");
}

TEST_CASE("graph JSON fuzz findings: a device index that is not a number is an error, not an uncaught exception",
          "[io][fuzz]")
{
    // graph_json_fuzz: std::stoi threw std::invalid_argument for "au0dc:".
    for (const char *device : {"au0dc:", "cuda:x", "cuda:1x", "cuda:-1", "cuda:99999999999"}) {
        INFO(device);
        const std::string text = std::string(R"({"format": "fusebox-graph", "version": 1, "nodes": [
            {"name": "z", "kind": "op", "op": "aten::zeros", "type": "Tensor", "args": [[2], {"device": ")")
                                 + device + R"("}]}, {"name": "output", "kind": "output", "args": [[{"ref": "z"}]]}]})";
        auto model = readGraphJson(text, "g.json");
        REQUIRE_FALSE(model.hasValue());
        CHECK(model.error().message
              == std::string("g.json: /nodes/0/args/1/device: expected a device such as \"cuda:0\", found string \"")
                     + device + "\"");
    }
    auto ok = readGraphJson(R"({"format": "fusebox-graph", "version": 1, "nodes": [
        {"name": "z", "kind": "op", "op": "aten::zeros", "type": "Tensor", "args": [[2], {"device": "cuda:1"}]},
        {"name": "output", "kind": "output", "args": [[{"ref": "z"}]]}]})",
                            "g.json");
    REQUIRE(ok.hasValue());
    CHECK(writeGraphJson(ok->graph, {.indent = -1}).find(R"({"device":"cuda:1"})") != std::string::npos);
}

TEST_CASE("pattern fuzz findings: an error quoting a string escapes its line break", "[io][fuzz]")
{
    // pattern_file_fuzz: "expected '=', found string "a<newline>b"" took two lines.
    auto file = parsePatternFile("pattern p {\n    benefit \"a\\nb\\t\\\"c\"\n}\n", {nullptr, "t.patterns"});
    REQUIRE_FALSE(file.hasValue());
    CHECK(file.error().message == "t.patterns:2:13: expected '=', found string \"a\\nb\\t\\\"c\"");
}

TEST_CASE("TorchScript fuzz findings: a pickle's sizes are checked before libtorch allocates them", "[io][fuzz]")
{
    // torchscript_fuzz: a damaged debug table wrote memo slot 170,489,896
    // (LONG_BINPUT), for which libtorch 1.13 reserved 5.4 GB. The pickle is
    // Python's pickle.dumps(('a', ['bc', 1, 2.5]), protocol=2).
    const std::string good("\x80\x02X\x01\x00\x00\x00"
                           "aq\x00]q\x01(X\x02\x00\x00\x00"
                           "bcq\x02K\x01G@\x04\x00\x00\x00\x00\x00\x00"
                           "e\x86q\x03.",
                           39);
    CHECK_FALSE(checkPickleSizes(good).has_value());

    std::string bigMemo = good;
    bigMemo.replace(8, 2, std::string("r\x28\x78\x29\x0a", 5)); // q\x00 -> LONG_BINPUT 170,489,896
    auto memo = checkPickleSizes(bigMemo);
    REQUIRE(memo.has_value());
    CHECK(memo->message == "LONG_BINPUT at byte 8 writes memo slot 170489896, past the 2 opcodes before it");
    CHECK(memo->at == 8);

    std::string longString = good;
    longString[6] = '\x70'; // BINUNICODE 'a' now claims 1,879,048,193 bytes
    auto length = checkPickleSizes(longString);
    REQUIRE(length.has_value());
    CHECK(length->message == "BINUNICODE at byte 2 wants 1879048193 bytes, 32 remain");

    auto cut = checkPickleSizes(good.substr(0, 31)); // inside BINFLOAT's 8 bytes
    REQUIRE(cut.has_value());
    CHECK(cut->message == "BINFLOAT at byte 25 is cut off (8 argument bytes, 5 remain)");
    auto noStop = checkPickleSizes(good.substr(0, 38));
    REQUIRE(noStop.has_value());
    CHECK(noStop->message == "it ends at byte 38 without STOP");
    // An opcode no protocol defines ends the walk: the unpickler refuses it there.
    CHECK_FALSE(checkPickleSizes(std::string("\x80\x02\xff", 3)).has_value());
}

TEST_CASE("TorchScript fuzz findings: the fresh zip libtorch reads holds what libzip checked", "[io][fuzz]")
{
    // torchscript_fuzz: libtorch 1.13 allocated what a damaged header
    // claimed (4 GiB for a version record) and read a directory libzip did
    // not; the importer now gives it a zip written from the checked entries.
    const std::vector<std::pair<std::string, std::string>> entries{{"m/version", "3\n"},
                                                                   {"m/data.pkl", std::string("\x80\x02}q\x00.", 5)},
                                                                   {"m/data/0", std::string(64, '\x7f')}};
    auto zip = writeStoredZip(entries);
    REQUIRE(zip.hasValue());
    auto archive = Pt2Archive::openBuffer(*zip, "fresh.zip");
    REQUIRE(archive.hasValue());
    CHECK(archive->entries() == std::vector<std::string>{"m/version", "m/data.pkl", "m/data/0"});
    for (const auto &[name, bytes] : entries) {
        auto read = archive->read(name);
        REQUIRE(read.hasValue());
        CHECK(*read == bytes);
    }
    auto twice = writeStoredZip({{"m/a", "1"}, {"m/a", "2"}});
    REQUIRE_FALSE(twice.hasValue());
    CHECK(twice.error().message == "duplicate entry 'm/a'");

    // A directory entry whose 32-bit size is 0xffffffff without its zip64
    // field: libzip says "No such file" for it, which the error must not repeat.
    std::string damaged = storedZip({{"m/version", "3\n"}});
    const size_t central = damaged.find("PK\x01\x02");
    REQUIRE(central != std::string::npos);
    damaged.replace(central + 24, 4, "\xff\xff\xff\xff");
    auto opened = Pt2Archive::openBuffer(damaged, "damaged.pt");
    REQUIRE_FALSE(opened.hasValue());
    CHECK(opened.error().message
          == "damaged.pt: not a readable zip archive (damaged zip: its directory cannot be read)");
}

TEST_CASE(".pt2 fuzz findings: a pickle that puts a value inside itself leaks nothing", "[io][pt2][fuzz]")
{
    // pt2_archive_fuzz, under LeakSanitizer: a state dict's pickle built a
    // cycle of shared pointers (a container inside itself), which was never
    // freed. The machine now empties its containers when it goes.
    const int64_t before = torch_pickle::PyObj::live;
    const std::vector<std::string> cycles{
        std::string("\x80\x02]q\x00"
                    "h\x00"
                    "a0N.",
                    11),                               // a list appended to itself through the memo, dropped
        std::string("\x80\x02]2a0N.", 8),              // the same through DUP
        std::string("\x80\x02}q\x00K\x01h\x00s.", 11), // a dict holding itself, returned
        std::string("\x80\x02]q\x00(h\x00h\x00t\x85q\x01"
                    "a.",
                    16), // a list holding a tuple holding it
    };
    for (const std::string &pickle : cycles) {
        auto contents = torch_pickle::parsePickle(pickle);
        REQUIRE(contents.hasValue());
        CHECK(torch_pickle::PyObj::live == before);
        auto storages = torch_pickle::storageReferences(pickle);
        REQUIRE(storages.hasValue());
        CHECK(torch_pickle::PyObj::live == before);
    }
}
