#pragma once
// Internal to the torch.export importer: raw weight payloads of a current-layout
// .pt2 archive (data/weights/, data/constants/ and their payload configs).

#include "Pt2Archive.h"

#include "core/ir/Graph.h"

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

/// Puts the raw payloads of the graph's tensor constants into graph.weights(),
/// keyed by their weightKey, reading <model>_weights_config.json (older:
/// <model>_model_param_config.json) and <model>_constants_config.json. A payload
/// is taken when it is raw (not pickled) and its bytes cover the tensor its
/// meta describes (strided views of a shared storage are gathered). Every
/// constant left without a payload is named in a "weights not loaded: ..."
/// warning with the reason.
void loadPt2Weights(const Pt2Archive &archive, const Pt2ModelLocation &location, Graph &graph,
                    std::vector<std::string> &warnings);

} // namespace fusebox
