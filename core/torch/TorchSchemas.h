#pragma once

#include "core/ir/OpSchema.h"

namespace fusebox {

/// Every operator registered with libtorch (getAllOperators()), converted to
/// core's OpSchema: names, overloads, argument names, types and defaults.
/// Built once, on first use; thread-safe.
const OpSchemaRegistry &torchSchemas();

} // namespace fusebox
