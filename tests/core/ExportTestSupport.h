#pragma once
// Helpers of the torch.export importer tests (io_exported_program_tests.cpp,
// io_pt2_archive_tests.cpp): the fixture, scratch files, .pt2 archives and
// torch.save pickles built by hand (libzip), and error/warning lookups.
#include "core/io/Base64.h"
#include "core/io/ExportedProgram.h"
#include "core/io/JsonSupport.h"
#include "core/io/TorchPickle.h"
#include "core/ir/Verifier.h"

#include <catch.hpp>
#include <nlohmann/json.hpp>
#include <zip.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

namespace fusebox::exporttest {

using nlohmann::json;

inline const std::string kFixture = std::string(FUSEBOX_SOURCE_DIR) + "/tests/fixtures/pt2/split_cat_linear.json";

inline json fixture()
{
    auto text = json_support::readTextFile(kFixture);
    REQUIRE(text.hasValue());
    return json::parse(*text);
}

inline std::string scratchPath(const std::string &name)
{
    const std::filesystem::path dir = std::filesystem::path(FUSEBOX_BINARY_DIR) / "pt2-tests";
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

/// Writes a zip holding the given entries (stored uncompressed when `store`).
inline void writeZip(const std::string &path, const std::vector<std::pair<std::string, std::string>> &entries,
                     bool store = false)
{
    int code = 0;
    zip_t *zip = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    REQUIRE(zip);
    for (const auto &[name, bytes] : entries) {
        zip_source_t *source = zip_source_buffer(zip, bytes.data(), bytes.size(), 0);
        REQUIRE(source);
        const zip_int64_t index = zip_file_add(zip, name.c_str(), source, ZIP_FL_OVERWRITE);
        REQUIRE(index >= 0);
        if (store)
            zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
    }
    REQUIRE(zip_close(zip) == 0);
}

inline void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

inline std::string floatBytes(const std::vector<float> &values)
{
    std::string bytes(values.size() * sizeof(float), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

inline std::vector<float> floatsOf(const Weight &weight)
{
    std::vector<float> values(weight.data.size() / sizeof(float));
    std::memcpy(values.data(), weight.data.data(), values.size() * sizeof(float));
    return values;
}

inline json payloadMeta(const std::string &pathName, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                        int64_t offset = 0)
{
    json meta = {{"dtype", 7},
                 {"requires_grad", false},
                 {"device", {{"type", "cpu"}, {"index", nullptr}}},
                 {"storage_offset", {{"as_int", offset}}},
                 {"layout", 7}};
    for (int64_t s : sizes)
        meta["sizes"].push_back({{"as_int", s}});
    for (int64_t s : strides)
        meta["strides"].push_back({{"as_int", s}});
    return {{"path_name", pathName}, {"is_param", true}, {"use_pickle", false}, {"tensor_meta", meta}};
}

/// The current layout: archive/models/model.json, raw payloads, a weights config.
/// tower.scale is a strided view (offset 2, stride 2) of a 10-float storage.
inline std::vector<std::pair<std::string, std::string>> currentLayoutEntries()
{
    std::vector<float> weight(32), bias{0.5f, 1.5f, 2.5f, 3.5f}, shared(10);
    for (int i = 0; i < 32; ++i)
        weight[i] = float(i);
    for (int i = 0; i < 10; ++i)
        shared[i] = float(100 + i);
    json config = {{"config",
                    {{"tower.proj.weight", payloadMeta("weight_0", {4, 8}, {8, 1})},
                     {"tower.proj.bias", payloadMeta("weight_1", {4}, {1})},
                     {"tower.scale", payloadMeta("weight_2", {4}, {2}, 2)}}}};
    return {{"archive/archive_format", "pt2"},
            {"archive/archive_version", "0"},
            {"archive/models/model.json", fixture().dump()},
            {"archive/data/weights/model_weights_config.json", config.dump()},
            {"archive/data/weights/weight_0", floatBytes(weight)},
            {"archive/data/weights/weight_1", floatBytes(bias)},
            {"archive/data/weights/weight_2", floatBytes(shared)},
            {"archive/data/constants/model_constants_config.json", R"({"config": {}})"},
            {"archive/.data/version", "6\n"}};
}

/// A pickle (protocol 2, as torch.save writes it) of {key: tensor}: each tensor
/// a _rebuild_tensor_v2 of a FloatStorage record "data/<storage>".
struct PickledTensor {
    std::string key, storage;
    int64_t numel, offset;
    std::vector<int64_t> sizes, strides;
};

inline std::string pickleInt(int64_t value)
{
    std::string out = "J";
    for (int i = 0; i < 4; ++i)
        out += char((value >> (8 * i)) & 0xff);
    return out;
}

inline std::string pickleStr(const std::string &text)
{
    return "X" + pickleInt(int64_t(text.size())).substr(1) + text;
}

inline std::string pickleInts(const std::vector<int64_t> &values)
{
    std::string out = "(";
    for (int64_t v : values)
        out += pickleInt(v);
    return out + "t";
}

inline std::string stateDictPickle(const std::vector<PickledTensor> &tensors)
{
    std::string p = std::string("\x80\x02}q\x00(", 6);
    for (const PickledTensor &t : tensors) {
        p += pickleStr(t.key);
        p += "ctorch._utils\n_rebuild_tensor_v2\n(";
        p += "(" + pickleStr("storage") + "ctorch\nFloatStorage\n" + pickleStr(t.storage) + pickleStr("cpu")
             + pickleInt(t.numel) + "tQ";
        p += pickleInt(t.offset) + pickleInts(t.sizes) + pickleInts(t.strides);
        p += std::string("\x89", 1) + "ccollections\nOrderedDict\n)R";
        p += "tR";
    }
    return p + "u.";
}

/// A torch.save zip (archive/data.pkl, archive/data/<key>, archive/byteorder) in memory.
inline std::string torchSaveZip(const std::string &pickle,
                                const std::vector<std::pair<std::string, std::string>> &storages,
                                const std::string &byteorder = "little")
{
    const std::string path = scratchPath("torch-save.tmp");
    std::vector<std::pair<std::string, std::string>> entries{{"archive/data.pkl", pickle},
                                                             {"archive/byteorder", byteorder}};
    for (const auto &[key, bytes] : storages)
        entries.push_back({"archive/data/" + key, bytes});
    entries.push_back({"archive/version", "3\n"});
    writeZip(path, entries);
    auto bytes = json_support::readTextFile(path);
    REQUIRE(bytes.hasValue());
    return *bytes;
}

/// The fixture's three constants as torch.save would keep them: the weight
/// and the scale in one storage (the scale a strided view at offset 32).
inline std::string fixtureStateDict(const std::string &byteorder = "little")
{
    std::vector<float> shared(42), bias{0.5f, 1.5f, 2.5f, 3.5f};
    for (int i = 0; i < 42; ++i)
        shared[i] = float(i);
    std::string sharedBytes = floatBytes(shared), biasBytes = floatBytes(bias);
    if (byteorder == "big")
        for (std::string *bytes : {&sharedBytes, &biasBytes})
            for (size_t at = 0; at + 4 <= bytes->size(); at += 4)
                std::reverse(bytes->begin() + at, bytes->begin() + at + 4);
    return torchSaveZip(stateDictPickle({{"tower.proj.weight", "0", 42, 0, {4, 8}, {8, 1}},
                                         {"tower.proj.bias", "1", 4, 0, {4}, {1}},
                                         {"tower.scale", "0", 42, 32, {4}, {2}}}),
                        {{"0", sharedBytes}, {"1", biasBytes}}, byteorder);
}

inline std::string errorOfJson(const json &document)
{
    auto result = readExportedProgramJson(document.dump(), {nullptr, "model.json"});
    REQUIRE_FALSE(result.hasValue());
    return result.error().message;
}

inline std::string errorOfFile(const std::string &path)
{
    auto result = readExportedProgramFile(path);
    REQUIRE_FALSE(result.hasValue());
    return result.error().message;
}

inline bool anyWarningContains(const LoadedModel &model, const std::string &text)
{
    for (const std::string &w : model.warnings)
        if (w.find(text) != std::string::npos)
            return true;
    return false;
}

inline const Node &named(const Graph &g, const std::string &name)
{
    NodeId id = g.findByName(name);
    REQUIRE(id.isValid());
    return *g.node(id);
}

inline OpSchemaRegistry exportSchemas()
{
    OpSchemaRegistry registry;
    registry.add({"aten::split",
                  "Tensor",
                  {{"self", "Tensor", {}, false}, {"split_size", "SymInt", {}, false}, {"dim", "int", "0", false}},
                  {{"", "Tensor[]", {}, false}},
                  false});
    registry.add({"aten::linear",
                  "",
                  {{"input", "Tensor", {}, false}, {"weight", "Tensor", {}, false}, {"bias", "Tensor?", "None", false}},
                  {{"", "Tensor", {}, false}},
                  false});
    return registry;
}

} // namespace fusebox::exporttest
