#pragma once

#include "core/ir/OpSchema.h"

#include <string>

namespace fusebox {

/// Every operator registered with libtorch (getAllOperators()), converted to
/// core's OpSchema: names, overloads, argument names, types and defaults.
/// Built once, on first use; thread-safe.
const OpSchemaRegistry &torchSchemas();

/// The schemas PT2 graphs (FX text, torch.export) are read with: libtorch
/// 1.13's, plus every schema of the bridge's PyTorch 2 that 1.13 lacks
/// (prims::, _c10d_functional::, aten::scaled_dot_product_attention, newer
/// overloads), taken from the schema cache of the Python the bridge would use
/// (core/pt2 cachedSchemas(); never starts a Python). 1.13's schema wins for
/// an op both know, so that a Dynamo graph and a TorchScript import of the
/// same model normalise arguments alike. Built once; thread-safe.
struct GraphSchemas {
    const OpSchemaRegistry &registry;
    /// "PyTorch 2.6.0+debian and libtorch 1.13", or "libtorch 1.13" without a cache.
    const std::string &origin;
};
GraphSchemas pt2GraphSchemas();

} // namespace fusebox
