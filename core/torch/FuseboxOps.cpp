#include "FuseboxOps.h"

#include <ATen/ATen.h>
#include <torch/library.h>

namespace {

at::Tensor linearRelu(const at::Tensor &input, const at::Tensor &weight, const c10::optional<at::Tensor> &bias)
{
    return at::relu(at::linear(input, weight, bias));
}

at::Tensor linearGelu(const at::Tensor &input, const at::Tensor &weight, const c10::optional<at::Tensor> &bias)
{
    return at::gelu(at::linear(input, weight, bias));
}

} // namespace

// A static registrar: it runs when this object file is linked in, which
// ensureFuseboxOpsRegistered() guarantees (static libraries drop unreferenced
// objects).
TORCH_LIBRARY(fusebox, m)
{
    m.def("linear_relu(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", linearRelu);
    m.def("linear_gelu(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", linearGelu);
}

namespace fusebox {

void ensureFuseboxOpsRegistered() {}

} // namespace fusebox
