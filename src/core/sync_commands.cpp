#include "core/sync_commands.h"

#include "pm4/a6xx_registers.h"
#include "pm4/packets.h"

namespace adreno {

SignalValueDwords emit_signal(pm4::CommandStream& cs, pm4::Gen gen, GpuAddress address, std::uint64_t value) {
  // The CP writes one dword at a time (a6xx CP_EVENT_WRITE carries a 32-bit payload,
  // adreno_pm4.xml), so a reader can see the signal between its two writes. The low dword goes
  // first: signals only grow, so the intermediate (old high, new low) is never above the new
  // value, where (new high, old low) is above it whenever the low dword carries
  // (0x0_FFFFFFFF -> 0x1_00000000 would show 0x1_FFFFFFFF and release a waiter of 0x1_00000000
  // early). Both dwords are written by cache-flush events: each write lands once the flush
  // made prior results visible, and the CP completes its events in the order issued (the
  // drivers read their own end-of-submission CACHE_FLUSH_TS timestamps as monotonic: KGSL's
  // adreno_ringbuffer.c retired timestamp, msm's a6xx_submit fence). A CP_MEM_WRITE of the high
  // dword would not wait for the flush before it and could land before the low dword.
  pm4::wait_for_idle(cs);
  // On a7xx the same event goes in CP_EVENT_WRITE7 (computerator's and Mesa's a7xx fences:
  // CACHE_FLUSH_TS with WRITE_ENABLED).
  std::uint32_t* const low = pm4::event(cs, gen, pm4::EventType::CACHE_FLUSH_TS, address, static_cast<std::uint32_t>(value));
  std::uint32_t* const high =
      pm4::event(cs, gen, pm4::EventType::CACHE_FLUSH_TS, address + 4, static_cast<std::uint32_t>(value >> 32));
  return {high + 4, low + 4};
}

namespace {

// CP_WAIT_REG_MEM is 1 + 6 dwords; CP_WAIT_MEM_GTE 1 + 4, padded with a 1 + 1 dword CP_NOP.
// a7xx has no CP_WAIT_MEM_GTE (adreno_pm4.xml: A6XX; 0x14 is CP_WAIT_TIMESTAMP on a7xx): its signed
// wait is CP_WAIT_REG_MEM with SIGNED_COMPARE, the same comparison (CP_WAIT_MEM_GTE's doc: "greater
// than or equal to the reference, using signed comparison").
constexpr std::uint32_t kWaitSiteDwords = 7;

// The CP compares one dword, so a 64-bit target is compared on its low dword, where the
// values just below the target can sit on the far side of a wrap (0xFFFFFFF0 before a target
// of 0x1_00000005). An unsigned compare is right around targets whose low dword is in the
// middle of the range, a signed one (the same compare on the low dword plus 2^31) around targets
// near the wrap: each is exact for signal values within 2^30 of the target.
void write_wait(std::uint32_t* site, pm4::Gen gen, GpuAddress address, std::uint64_t value) {
  const auto low = static_cast<std::uint32_t>(value);
  pm4::PacketWriter writer(site, site + kWaitSiteDwords);
  if (low >= (1u << 30) && low < (3u << 30)) {
    pm4::wait_mem(writer, pm4::CondFunction::WRITE_GE, address, low);
  } else if (gen == pm4::kA7xx) {
    pm4::wait_mem(writer, pm4::CondFunction::WRITE_GE, address, low, 0xffffffff, 16, true);
  } else {
    pm4::wait_mem_gte(writer, address, low);
    writer.packet(pm4::Opcode::CP_NOP, 0u);
  }
}

}  // namespace

WaitSite emit_wait(pm4::CommandStream& cs, pm4::Gen gen, GpuAddress address, std::uint64_t value) {
  const std::uint32_t zeros[kWaitSiteDwords] = {};
  WaitSite site{cs.append(zeros), address, gen};
  write_wait(site.dwords, gen, address, value);
  // The signaller's results are in memory (its signal flushed), but lines this queue read before
  // the wait may still be in UCHE.
  emit_invalidate(cs, gen);
  return site;
}

void emit_invalidate(pm4::CommandStream& cs, pm4::Gen gen) {
  // Turnip starts every a6xx command buffer with CACHE_INVALIDATE and a wait for idle
  // (tu_cmd_buffer.cc tu6_init_hw), and pairs the two again after CP writes shaders will read
  // (tu_emit_compute_driver_params). KGSL invalidates UCHE only on a context switch and MSM only
  // on a page-table switch, so a process's consecutive submissions share whatever UCHE holds.
  // a7xx names the event CACHE_INVALIDATE7 (0x31 is CACHE_CLEAN there; Turnip's a7xx
  // tu_emit_cache_flush invalidates with CACHE_INVALIDATE7).
  pm4::event(cs, gen, gen == pm4::kA7xx ? pm4::EventType::CACHE_INVALIDATE7 : pm4::EventType::CACHE_INVALIDATE);
  pm4::wait_for_idle(cs);
}

void patch_wait(const WaitSite& site, std::uint64_t value) { write_wait(site.dwords, site.gen, site.address, value); }

void emit_timestamp(pm4::CommandStream& cs, GpuAddress destination) {
  pm4::wait_for_idle(cs);
  pm4::reg_to_mem(cs, pm4::a6xx::CP_ALWAYS_ON_COUNTER.offset, 2, destination, true);
}

void emit_barrier(pm4::CommandStream& cs, pm4::Gen gen, GpuAddress scratch) {
  // Write back and invalidate the GPU caches, then drain: the sequence tinygrad's QCOM backend
  // uses for a memory barrier (ops_qcom.py, _cache_flush with write_back, invalidate, memsync, sync).
  pm4::event(cs, gen, pm4::EventType::CACHE_FLUSH_TS, scratch, 0);
  pm4::event(cs, gen, gen == pm4::kA7xx ? pm4::EventType::CACHE_INVALIDATE7 : pm4::EventType::CACHE_INVALIDATE);
  pm4::wait_mem_writes(cs);
  pm4::wait_for_idle(cs);
}

}  // namespace adreno
