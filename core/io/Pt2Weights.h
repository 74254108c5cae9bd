#pragma once
// Internal to the torch.export importer: the weight payloads of .pt2 archives,
// in the pt2 package layout (data/weights/, data/constants/ and their payload
// configs, raw or pickled) and in the torch.export.save layout of torch 2.1-2.6
// (serialized_state_dict.pt and serialized_constants.pt, torch.save files).

#include "Pt2Archive.h"

#include "core/ir/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// Where one model's payloads live in an archive.
struct Pt2ModelLocation {
    /// The archive's root folder with its '/' ("archive/"), or "" when entries sit at the top.
    std::string root;
    /// The model name ("model" for models/model.json).
    std::string model;
};

/// Puts the payloads of the graph's tensor constants into graph.weights(),
/// keyed by their weightKey, reading <model>_weights_config.json (older:
/// <model>_model_param_config.json) and <model>_constants_config.json. A raw
/// payload is taken when its bytes cover the tensor its meta describes
/// (strided views of a shared storage are gathered); a pickled one
/// (use_pickle) is a torch.save file of the tensor. Every constant left
/// without a payload is named in a "weights not loaded: ..." warning with the reason.
void loadPt2Weights(const Pt2Archive &archive, const Pt2ModelLocation &location, Graph &graph,
                    std::vector<std::string> &warnings);

/// The same for the torch.export.save layout of torch 2.1-2.6: parameters and
/// persistent buffers from <root>serialized_state_dict.pt (torch 2.1:
/// serialized_state_dict.json), lifted constants and non-persistent buffers
/// from <root>serialized_constants.pt (.json); both are torch.save zips.
void loadTorchSaveWeights(const Pt2Archive &archive, const std::string &root, Graph &graph,
                          std::vector<std::string> &warnings);

/// Why a payload does not fit the constant node it is for (dtype or shape
/// differ from the graph's meta); "" when it fits.
std::string payloadMismatch(const TensorMeta &payload, const Node &node);

/// Copies the strided view (sizes, strides, element offset; strides absent:
/// row-major) of a raw storage into `out` as contiguous row-major bytes.
/// Returns the reason on failure ("payload has 20 bytes, the tensor needs
/// 128"), "" on success. Never reads outside `storage`.
std::string gatherStrided(const std::string &storage, DType dtype, const std::vector<int64_t> &sizes,
                          const std::optional<std::vector<int64_t>> &strides, int64_t storageOffset,
                          std::vector<std::byte> &out);

} // namespace fusebox
