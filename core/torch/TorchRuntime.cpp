#include "TorchRuntime.h"

namespace fusebox {

bool libtorchLinked() { return true; }

} // namespace fusebox
