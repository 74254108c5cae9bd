#include "TorchRuntime.h"

#include <torch/version.h>

namespace fusebox {

bool libtorchLinked()
{
    return true;
}

const char *libtorchVersion()
{
    return TORCH_VERSION;
}

} // namespace fusebox
