// The per-chip state compute work needs: what Mesa writes before compute and the kernel drivers
// leave to userspace. Every submission starts with it (the queue's prologue), as Mesa writes it
// for every submission it makes: computerator at each submit (a6xx.cc cs_restore_emit, from
// a6xx_emit_grid), Turnip at the start of each command buffer (tu6_init_hw). Once per context
// would rest on an unverified premise — that nothing changes these registers between two
// submissions of one context (another context's work on the same GPU, a power collapse that
// restores only what the kernel's hw_init programs).
#pragma once

#include "core/gpu_part.h"
#include "pm4/command_stream.h"

namespace adreno {

/// Appends the per-chip setup for `part` to `cs`.
void emit_chip_setup(pm4::CommandStream& cs, const GpuPart& part);

}  // namespace adreno
