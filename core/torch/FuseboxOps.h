#pragma once

// Fusebox's own fused operators (namespace "fusebox::"), registered with
// libtorch so that graphs using them run in the executor (numeric
// verification, latency) and appear in torchSchemas(). Each is defined by its
// decomposition into ATen ops: what a production kernel must compute.
//
// | op                                   | computes                  |
// |--------------------------------------|---------------------------|
// | fusebox::linear_relu(input, weight, bias=None) | relu(linear(...)) |
// | fusebox::linear_gelu(input, weight, bias=None) | gelu(linear(...)) |

namespace fusebox {

/// Makes sure the registration is linked in (call before looking operators
/// up; idempotent and cheap).
void ensureFuseboxOpsRegistered();

} // namespace fusebox
