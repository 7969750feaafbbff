// The command sequences behind Queue::signal, Queue::wait and Queue::barrier, written once for
// the queue and for graphs. They return where their values sit in the stream, so a graph can
// patch a recorded signal or wait value in place.
#pragma once

#include <adreno/address.hpp>

#include "pm4/command_stream.h"

#include <cstdint>

namespace adreno {

/// Where a recorded signal's value lives in the stream.
struct SignalValueDwords {
  std::uint32_t* high;
  std::uint32_t* low;
};

/// Writes `value` to the 64-bit signal at `address` once prior work is idle, caches flushed.
SignalValueDwords emit_signal(pm4::CommandStream& cs, GpuAddress address, std::uint64_t value);
/// Holds later work until the signal at `address` ≥ `value` (low 32 bits), then invalidates the
/// GPU caches so that later work reads what the signaller wrote. Returns the reference dword.
std::uint32_t* emit_wait(pm4::CommandStream& cs, GpuAddress address, std::uint64_t value);
/// Invalidates the GPU caches (UCHE) and drains: what a submission starts with, since neither
/// driver invalidates between one process's submissions and the host may have written memory.
void emit_invalidate(pm4::CommandStream& cs);
/// Writes back and invalidates the GPU caches and drains; `scratch` receives the flush's
/// timestamp write.
void emit_barrier(pm4::CommandStream& cs, GpuAddress scratch);

}  // namespace adreno
