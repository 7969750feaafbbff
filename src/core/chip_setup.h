// The per-chip state a context needs before its first compute work: what Mesa writes before
// compute and the kernel drivers leave to userspace. Emitted once per queue (kernel context),
// which keeps its registers across submissions.
#pragma once

#include "core/gpu_part.h"
#include "pm4/command_stream.h"

namespace adreno {

/// Appends the per-chip setup for `part` to `cs`.
void emit_chip_setup(pm4::CommandStream& cs, const GpuPart& part);

}  // namespace adreno
