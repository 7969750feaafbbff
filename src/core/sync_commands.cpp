#include "core/sync_commands.h"

#include "pm4/packets.h"

namespace adreno {

SignalValueDwords emit_signal(pm4::CommandStream& cs, GpuAddress address, std::uint64_t value) {
  // The high dword first (only its own write is visible early: the value can look smaller, never
  // larger), then the low dword with the cache flush that makes prior results visible.
  pm4::wait_for_idle(cs);
  const std::uint32_t high[] = {static_cast<std::uint32_t>(value >> 32)};
  std::uint32_t* const high_dword = pm4::mem_write(cs, address + 4, high).data();
  std::uint32_t* const flush = pm4::event_write(cs, pm4::EventType::CACHE_FLUSH_TS, address, static_cast<std::uint32_t>(value));
  return {high_dword, flush + 4};
}

std::uint32_t* emit_wait(pm4::CommandStream& cs, GpuAddress address, std::uint64_t value) {
  std::uint32_t* const reference = pm4::wait_mem(cs, pm4::CondFunction::WRITE_GE, address, static_cast<std::uint32_t>(value)) + 4;
  // The signaller's results are in memory (its signal flushed), but lines this queue read before
  // the wait may still be in UCHE.
  emit_invalidate(cs);
  return reference;
}

void emit_invalidate(pm4::CommandStream& cs) {
  // Turnip starts every a6xx command buffer with CACHE_INVALIDATE and a wait for idle
  // (tu_cmd_buffer.cc tu6_init_hw), and pairs the two again after CP writes shaders will read
  // (tu_emit_compute_driver_params). KGSL invalidates UCHE only on a context switch and MSM only
  // on a page-table switch, so a process's consecutive submissions share whatever UCHE holds.
  pm4::event_write(cs, pm4::EventType::CACHE_INVALIDATE);
  pm4::wait_for_idle(cs);
}

void emit_barrier(pm4::CommandStream& cs, GpuAddress scratch) {
  // Write back and invalidate the GPU caches, then drain: the sequence tinygrad's QCOM backend
  // uses for a memory barrier (ops_qcom.py, _cache_flush with write_back, invalidate, memsync, sync).
  pm4::event_write(cs, pm4::EventType::CACHE_FLUSH_TS, scratch, 0);
  pm4::event_write(cs, pm4::EventType::CACHE_INVALIDATE);
  pm4::wait_mem_writes(cs);
  pm4::wait_for_idle(cs);
}

}  // namespace adreno
