#pragma once
// The Inductor options a compile ran with, as its TORCH_TRACE log records
// them: fx_graph_runnable's `torch._inductor.config.*_fusion_options = {...}`
// lines, read as a pass config. The replay (TraceReplay.h) runs with them.

#include "core/io/PassConfig.h"
#include "core/io/TorchTrace.h"
#include "core/ir/Expected.h"

#include <optional>

namespace fusebox {

/// The compile's fx_graph_runnable payload (the last, when it logged more
/// than one), or nullptr.
const TracePayload *graphRunnableOf(const TraceCompile &compile);

/// The pass config a compile ran with, from its fx_graph_runnable payload
/// (torch._inductor.config.pre_grad_fusion_options = {...}); nullopt when the
/// log does not record one. An unreadable record is an Error.
Expected<std::optional<PassConfig>> compileOptions(const TraceLog &log, const TraceCompile &compile);

} // namespace fusebox
