// The command sequences behind Queue::signal, Queue::wait and Queue::barrier, written once for
// the queue and for graphs. They return where their values sit in the stream, so a graph can
// patch a recorded signal or wait value in place. Each takes the GPU generation the stream is
// for: a6xx and a7xx differ in their event packet (CP_EVENT_WRITE / CP_EVENT_WRITE7), their
// cache events (a6xx cleans UCHE with CACHE_FLUSH_TS and invalidates with 0x31; a7xx cleans with
// 0x31, CACHE_CLEAN, and invalidates with CACHE_INVALIDATE7) and their memory waits
// (adreno_pm4.xml: CP_WAIT_MEM_GTE is A6XX only). sync_commands.cpp compares them with Mesa's
// and the kernels'.
#pragma once

#include <adreno/address.hpp>

#include "pm4/command_stream.h"
#include "pm4/field.h"

#include <cstdint>

namespace adreno {

/// Where a recorded signal's value lives in the stream.
struct SignalValueDwords {
  std::uint32_t* high;
  std::uint32_t* low;
};

/// Writes `value` to the 64-bit signal at `address` once prior work is idle, UCHE cleaned: the
/// low dword first, then the high one, so that a reader in between never sees more than `value`
/// (the signal must not be above `value` before).
SignalValueDwords emit_signal(pm4::CommandStream& cs, pm4::Gen gen, GpuAddress address, std::uint64_t value);
/// Where a recorded wait lives in the stream: a fixed number of dwords that patch_wait rewrites.
struct WaitSite {
  std::uint32_t* dwords;
  GpuAddress address;
  pm4::Gen gen;
};
/// Holds later work until the signal at `address` ≥ `value`, polled on the low dword: exact while
/// the signal is less than 2^30 below `value` when the wait starts and does not pass `value` by
/// 2^30 or more before the CP sees it; then invalidates the GPU caches so that later work reads
/// what the signaller wrote.
WaitSite emit_wait(pm4::CommandStream& cs, pm4::Gen gen, GpuAddress address, std::uint64_t value);
/// Makes a recorded wait wait for `value` instead.
void patch_wait(const WaitSite& site, std::uint64_t value);
/// Invalidates the GPU caches (UCHE) and drains: what a submission starts with, since neither
/// driver invalidates between one process's submissions and the host may have written memory.
void emit_invalidate(pm4::CommandStream& cs, pm4::Gen gen);
/// Writes the 64-bit GPU always-on counter (19.2 MHz) to `destination` once prior work is idle:
/// Queue::write_timestamp, and the trace's timestamps around a dispatch or a graph replay.
void emit_timestamp(pm4::CommandStream& cs, GpuAddress destination);
/// Writes back and invalidates the GPU caches and drains; on a6xx `scratch` receives the clean
/// event's write (a7xx's clean writes nothing).
void emit_barrier(pm4::CommandStream& cs, pm4::Gen gen, GpuAddress scratch);

}  // namespace adreno
