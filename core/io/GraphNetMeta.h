#pragma once
// GraphNet's meta files: a GraphNet sample's model.py (a Dynamo graph whose
// inputs are annotated only as torch.Tensor) comes with weight_meta.py and
// input_meta.py beside it, one class per tensor:
//
//     class Program_weight_tensor_meta_L_x_:
//         name = "L_x_"
//         shape = [1, 3, 224, 224]
//         dtype = "torch.float32"
//         device = "cuda:0"
//         mean = 0.0
//         std = 1.0
//         data = None
//
// The reader takes the shapes, dtypes and devices of the graph's inputs from
// them. Internal to core/io's loaders.

#include "LoadedModel.h"
#include "core/ir/TensorMeta.h"

#include <map>
#include <string>
#include <string_view>

namespace fusebox {

/// The tensors a meta file describes, by their `name` (the graph input's name).
using GraphNetTensorMeta = std::map<std::string, TensorMeta>;

/// Parses a weight_meta.py / input_meta.py text. Errors are one line,
/// "file:line: expected <what>, found <what>". Attributes other than name,
/// shape, dtype and device are skipped.
Expected<GraphNetTensorMeta> parseGraphNetMeta(std::string_view text, const std::string &sourceName);

/// When modelPath has weight_meta.py or input_meta.py beside it, gives each
/// graph input they describe whose annotation recorded no shape their shape,
/// dtype and device. A meta file that does not parse, or that disagrees with a
/// recorded shape, is a warning; the graph is kept as read.
void applyGraphNetMeta(LoadedModel &model, const std::string &modelPath);

} // namespace fusebox
