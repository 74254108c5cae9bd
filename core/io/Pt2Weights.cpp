#include "core/ir/GraphBuilder.h"
#include "Pt2Weights.h"

#include "ExportArgumentDecoder.h"
#include "JsonSupport.h"
#include "TorchPickle.h"

#include <cstring>
#include <map>

namespace fusebox {

namespace {

using export_json::Cursor;
using export_json::JsonPathError;

/// One PayloadMeta of a payload config, and where it was read.
struct PayloadEntry {
    std::string dir;    // "data/weights/" or "data/constants/"
    std::string config; // the config entry, for messages
    nlohmann::json meta;
};

/// Reasons a payload was not loaded -> the weight keys it applies to.
using Reasons = std::map<std::string, std::vector<std::string>>;

/// Reads the first config in `names` that the archive holds into payloads
/// (keys already present win: weights are read before constants).
void readPayloadConfig(const Pt2Archive &archive, const Pt2ModelLocation &at, const std::string &dir,
                       const std::vector<std::string> &names, std::map<std::string, PayloadEntry> &payloads,
                       std::vector<std::string> &warnings)
{
    for (const std::string &name : names) {
        const std::string entry = at.root + dir + name;
        if (!archive.contains(entry))
            continue;
        const std::string where = archive.path() + "/" + entry;
        auto text = archive.read(entry);
        if (!text) {
            warnings.push_back("weights not loaded: " + text.error().message);
            return;
        }
        auto parsed = json_support::parse(*text, where);
        if (!parsed) {
            warnings.push_back("weights not loaded: " + parsed.error().message);
            return;
        }
        try {
            const Cursor config = Cursor(*parsed, "")["config"];
            for (const auto &item : config.object().items())
                payloads.emplace(item.key(), PayloadEntry{dir, where, item.value()});
        } catch (const JsonPathError &e) {
            warnings.push_back("weights not loaded: " + where + ": " + e.path + ": " + e.message);
        }
        return;
    }
}

/// a*b, or nullopt on overflow or a negative factor.
std::optional<int64_t> checkedMul(int64_t a, int64_t b)
{
    int64_t r;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

} // namespace

std::string gatherStrided(const std::string &storage, DType dtype, const std::vector<int64_t> &sizes,
                          const std::optional<std::vector<int64_t>> &stridesGiven, int64_t storageOffset,
                          std::vector<std::byte> &out)
{
    const int64_t elem = elementSize(dtype);
    if (elem == 0)
        return "payload dtype not supported";
    std::vector<int64_t> strides(sizes.size(), 1);
    for (size_t k = sizes.size(); k-- > 1;)
        strides[k - 1] = strides[k] * std::max<int64_t>(sizes[k], 1);
    const bool contiguousStrides = !stridesGiven || *stridesGiven == strides;
    if (stridesGiven) {
        if (stridesGiven->size() != sizes.size())
            return "strides and sizes differ in rank";
        strides = *stridesGiven;
    }
    std::optional<int64_t> numel = 1;
    for (int64_t s : sizes)
        numel = numel ? checkedMul(*numel, s) : std::nullopt;
    const auto bytes = numel ? checkedMul(*numel, elem) : std::nullopt;
    if (!bytes || *bytes > (int64_t(1) << 40))
        return "implausible tensor size";
    out.clear();
    if (*numel == 0)
        return {};
    if (storageOffset < 0)
        return "negative storage offset";
    // The largest storage element the view touches must lie inside the payload.
    std::optional<int64_t> last = storageOffset;
    for (size_t k = 0; k < sizes.size() && last; ++k) {
        auto span = checkedMul(sizes[k] - 1, strides[k]);
        last = span ? std::optional<int64_t>(*last + *span) : std::nullopt;
    }
    const auto needed = last && *last >= 0 ? checkedMul(*last + 1, elem) : std::nullopt;
    if (!needed)
        return "negative or overflowing strides";
    if (*needed > int64_t(storage.size()))
        return "payload has " + std::to_string(storage.size()) + " bytes, the tensor needs " + std::to_string(*needed);

    out.resize(static_cast<size_t>(*bytes));
    const char *base = storage.data() + storageOffset * elem;
    if (contiguousStrides) {
        std::memcpy(out.data(), base, out.size());
        return {};
    }
    std::vector<int64_t> index(sizes.size(), 0);
    for (int64_t i = 0; i < *numel; ++i) {
        int64_t offset = 0;
        for (size_t k = 0; k < sizes.size(); ++k)
            offset += index[k] * strides[k];
        std::memcpy(out.data() + i * elem, base + offset * elem, static_cast<size_t>(elem));
        for (size_t k = sizes.size(); k-- > 0;) {
            if (++index[k] < sizes[k])
                break;
            index[k] = 0;
        }
    }
    return {};
}

std::string payloadMismatch(const TensorMeta &payload, const Node &node)
{
    if (node.meta.dtype != DType::Unknown && node.meta.dtype != payload.dtype)
        return "payload dtype " + std::string(shortName(payload.dtype)) + " differs from the graph's "
               + std::string(shortName(node.meta.dtype));
    if (node.meta.hasStaticShape() && payload.shape && node.meta.shape != payload.shape)
        return "payload shape " + payload.shapeString() + " differs from the graph's " + node.meta.shapeString();
    return {};
}

namespace {

/// The tensor constants of a graph that have no payload yet.
std::vector<NodeId> wantedConstants(const Graph &graph)
{
    std::vector<NodeId> wanted;
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (n.kind() == NodeKind::Constant && !n.weightKey.empty() && n.type == "Tensor"
            && !graph.weights().contains(n.weightKey))
            wanted.push_back(id);
    }
    return wanted;
}

std::string listKeys(const std::vector<std::string> &keys)
{
    std::string text;
    const size_t shown = std::min<size_t>(keys.size(), 8);
    for (size_t i = 0; i < shown; ++i)
        text += (i ? ", " : "") + keys[i];
    if (keys.size() > shown)
        text += " and " + std::to_string(keys.size() - shown) + " more";
    return text;
}

void warnReasons(const std::string &path, const Reasons &reasons, std::vector<std::string> &warnings)
{
    for (const auto &[reason, keys] : reasons)
        warnings.push_back(path + ": weights not loaded: " + listKeys(keys) + " (" + reason + ")");
}

/// The tensor stored under `key` in a torch.save file, checked against the
/// node it is for; the reason when there is none.
std::string loadPickled(const torch_pickle::TorchSaveFile &file, const std::string &key, const Node &node,
                        Weight &weight)
{
    auto found = file.contents().tensors.find(key);
    if (found == file.contents().tensors.end()) {
        auto other = file.contents().others.find(key);
        if (other != file.contents().others.end())
            return file.name() + " holds " + other->second + " there, not a tensor";
        return "not in " + file.name();
    }
    auto loaded = file.load(found->second);
    if (!loaded)
        return loaded.error().message;
    if (std::string mismatch = payloadMismatch(loaded->meta, node); !mismatch.empty())
        return mismatch;
    weight = std::move(loaded).value();
    return {};
}

/// The payload of one constant, or the reason it cannot be loaded.
std::string loadOne(const Pt2Archive &archive, const Pt2ModelLocation &at, const PayloadEntry &entry, const Node &node,
                    std::map<std::string, std::string> &storages, Weight &weight)
{
    const Cursor meta(entry.meta, "config." + node.weightKey);
    const bool pickled = meta.find("use_pickle") && meta["use_pickle"].boolean();
    const std::string pathName = meta["path_name"].string();
    auto tensorMeta = meta.find("tensor_meta");
    if (!tensorMeta)
        return "no tensor_meta in " + entry.config;
    export_json::Warnings ignored;
    const export_json::DecodedTensorMeta decoded = export_json::decodeTensorMeta(*tensorMeta, ignored);
    if (elementSize(decoded.meta.dtype) == 0)
        return "payload dtype not supported";
    if (!decoded.meta.hasStaticShape())
        return "payload shape is symbolic";
    if (std::string mismatch = payloadMismatch(decoded.meta, node); !mismatch.empty())
        return mismatch;

    auto cached = storages.find(entry.dir + pathName);
    if (cached == storages.end()) {
        auto bytes = archive.read(at.root + entry.dir + pathName);
        if (!bytes)
            return bytes.error().message;
        cached = storages.emplace(entry.dir + pathName, std::move(bytes).value()).first;
    }
    if (cached->second.empty() && decoded.meta.numel().value_or(0) > 0)
        return "empty payload (the archive was saved without weights)";
    if (pickled) {
        // A torch.save file of the one tensor (tensor subclasses are pickled whole).
        auto file = torch_pickle::TorchSaveFile::open(cached->second,
                                                      archive.path() + "/" + at.root + entry.dir + pathName);
        if (!file)
            return file.error().message;
        return loadPickled(*file, "", node, weight);
    }
    std::vector<int64_t> sizes;
    for (const Dim &d : *decoded.meta.shape)
        sizes.push_back(std::get<int64_t>(d));
    weight.meta = TensorMeta{decoded.meta.dtype, decoded.meta.shape, std::nullopt, decoded.meta.device};
    const std::string reason = gatherStrided(cached->second, decoded.meta.dtype, sizes, decoded.meta.strides,
                                             decoded.storageOffset, weight.data);
    return reason.empty() ? std::string() : entry.dir + pathName + ": " + reason;
}

/// A torch.save file of an archive, opened when present: nullopt when the
/// archive lacks every name, an Error when the one it has cannot be read.
std::optional<Expected<torch_pickle::TorchSaveFile>> openTorchSave(const Pt2Archive &archive, const std::string &root,
                                                                   const std::vector<std::string> &names)
{
    for (const std::string &name : names) {
        const std::string entry = root + name;
        if (!archive.contains(entry))
            continue;
        auto bytes = archive.read(entry);
        if (!bytes)
            return Expected<torch_pickle::TorchSaveFile>(bytes.error());
        if (bytes->empty()) // serialize_torch_artifact(None): nothing saved
            return std::nullopt;
        return torch_pickle::TorchSaveFile::open(std::move(bytes).value(), archive.path() + "/" + entry);
    }
    return std::nullopt;
}

} // namespace

void loadPt2Weights(const Pt2Archive &archive, const Pt2ModelLocation &at, Graph &graph,
                    std::vector<std::string> &warnings)
{
    const std::vector<NodeId> wanted = wantedConstants(graph);
    if (wanted.empty())
        return;

    std::map<std::string, PayloadEntry> payloads;
    readPayloadConfig(archive, at, "data/weights/",
                      {at.model + "_weights_config.json", at.model + "_model_param_config.json"}, payloads, warnings);
    readPayloadConfig(archive, at, "data/constants/",
                      {at.model + "_constants_config.json", at.model + "_model_constants_config.json"}, payloads,
                      warnings);
    // An early package spec kept the whole state dict as one torch.save file.
    auto stateDict = openTorchSave(archive, at.root, {"data/weights/" + at.model + ".pt"});

    // The payloads join the graph the archive's reader has just built.
    GraphBuilder build = GraphBuilder::reopen(graph);
    Reasons reasons;
    std::map<std::string, std::string> storages;
    for (NodeId id : wanted) {
        const Node &node = *graph.node(id);
        if (graph.weights().contains(node.weightKey))
            continue; // two constants sharing one key
        Weight weight;
        std::string reason;
        auto entry = payloads.find(node.weightKey);
        if (entry != payloads.end()) {
            try {
                reason = loadOne(archive, at, entry->second, node, storages, weight);
            } catch (const JsonPathError &e) {
                reason = entry->second.config + ": " + e.path + ": " + e.message;
            }
        } else if (stateDict && *stateDict) {
            reason = loadPickled(**stateDict, node.weightKey, node, weight);
        } else if (stateDict) {
            reason = stateDict->error().message;
        } else {
            reason = "no entry in the archive's payload configs";
        }
        if (reason.empty())
            build.weights().put(node.weightKey, std::move(weight));
        else
            reasons[reason].push_back(node.weightKey);
    }
    warnReasons(archive.path(), reasons, warnings);
}

void loadTorchSaveWeights(const Pt2Archive &archive, const std::string &root, Graph &graph,
                          std::vector<std::string> &warnings)
{
    const std::vector<NodeId> wanted = wantedConstants(graph);
    if (wanted.empty())
        return;
    // torch 2.1 wrote the same torch.save bytes under .json names.
    auto stateDict = openTorchSave(archive, root, {"serialized_state_dict.pt", "serialized_state_dict.json"});
    auto constants = openTorchSave(archive, root, {"serialized_constants.pt", "serialized_constants.json"});
    std::vector<const torch_pickle::TorchSaveFile *> files;
    std::string unreadable;
    for (const auto *opened : {&stateDict, &constants}) {
        if (!*opened)
            continue;
        if (**opened)
            files.push_back(&***opened);
        else if (unreadable.empty())
            unreadable = (*opened)->error().message;
    }

    GraphBuilder build = GraphBuilder::reopen(graph); // as in loadPt2Weights
    Reasons reasons;
    for (NodeId id : wanted) {
        const Node &node = *graph.node(id);
        if (graph.weights().contains(node.weightKey))
            continue;
        Weight weight;
        std::string reason;
        bool found = false;
        for (const torch_pickle::TorchSaveFile *file : files) {
            const auto &contents = file->contents();
            if (!contents.tensors.contains(node.weightKey) && !contents.others.contains(node.weightKey))
                continue;
            found = true;
            reason = loadPickled(*file, node.weightKey, node, weight);
            break;
        }
        if (!found) {
            if (!unreadable.empty())
                reason = unreadable;
            else if (files.empty())
                reason = "the archive has no serialized_state_dict.pt";
            else
                reason = "in neither serialized_state_dict.pt nor serialized_constants.pt";
        }
        if (reason.empty())
            build.weights().put(node.weightKey, std::move(weight));
        else
            reasons[reason].push_back(node.weightKey);
    }
    warnReasons(archive.path(), reasons, warnings);
}

} // namespace fusebox
