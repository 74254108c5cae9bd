// What fuzz/torchscript_fuzz.cpp found in the TorchScript importer, one case
// each: archives that made libtorch 1.13 throw where nothing caught it, or
// crash, now refused with a one-line error naming the file.
#include <catch.hpp>

#include "core/torch/TorchScriptImporter.h"

#include <fstream>
#include <sstream>

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

} // namespace

TEST_CASE("TorchScript fuzz findings: a record outside the archive's folder is an error, not an escaped exception",
          "[torch][fuzz]")
{
    // PyTorchStreamReader::getAllRecords() throws c10::Error for it; the
    // importer called it outside its try block (std::terminate).
    const std::string bytes =
        replaceAll(fixtureBytes("multi_output.pt"), "multi_output/constants.pkl", "eulti_output/constants.pkl");
    auto r = importTorchScriptFromBytes(bytes, "renamed.pt");
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find('\n') == std::string::npos);
    CHECK(r.error().message.rfind("renamed.pt: not a model file (unreadable zip archive: ", 0) == 0);
    CHECK(r.error().message.find("not in a subdirectory") != std::string::npos);
}

TEST_CASE("TorchScript fuzz findings: a damaged entry fails its CRC check before libtorch parses it",
          "[torch][fuzz]")
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
