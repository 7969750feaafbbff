#include "core/sync_commands.h"

#include "pm4/a6xx_registers.h"
#include "pm4/packets.h"

namespace adreno {

// What the references emit for the needs these sequences serve (UCHE is the GPU's cache between
// the shaders and memory; the CP's own reads and writes bypass it, src/virt/gpu/uche.h):
// - Shader writes, then shader reads (one dispatch after another): Turnip needs no cache event,
//   the two share UCHE (tu_flush_for_access: a UCHE write leaves CACHE_CLEAN pending, a UCHE read
//   flushes only CACHE_INVALIDATE and the other domains' cleans), only CP_WAIT_FOR_IDLE for the
//   stage (tu_flush_for_stage); on a7xx also CP_CCHE_INVALIDATE for the CCHE that the a740 added,
//   unless CACHE_INVALIDATE7 is emitted, which covers it (tu6_emit_flushes). freedreno's
//   fd6_memory_barrier(PIPE_BARRIER_SHADER_BUFFER) is CP_WAIT_FOR_IDLE alone.
// - Shader writes, then the CP or the host reads (indirect counts, signals, results): a UCHE
//   clean, then the wait (Turnip: SYSMEM_READ flushes pending CACHE_CLEAN; fd6_memory_barrier
//   PIPE_BARRIER_INDIRECT_BUFFER: FD6_FLUSH_CACHE | FD6_WAIT_FOR_IDLE). The clean is FD_CACHE_CLEAN
//   (freedreno_gpu_event.h): CACHE_FLUSH_TS with a write on a6xx, CACHE_CLEAN (0x31, no write
//   needed) on a7xx. The kernels' own end-of-submission fence is that clean with the fence write:
//   a6xx CACHE_FLUSH_TS (KGSL adreno_a6xx_ringbuffer.c, msm a6xx_gpu.c a6xx_submit), a7xx
//   CACHE_CLEAN with WRITE_ENABLED (KGSL adreno_gen7_ringbuffer.c gen7_ringbuffer_addcmds, msm
//   a7xx_submit).
// - The host or the CP wrote memory, then shaders read: invalidate UCHE and wait (Turnip
//   tu6_init_hw at each command buffer: CACHE_INVALIDATE, on a7xx CACHE_INVALIDATE7 then WFI;
//   tu_emit_compute_driver_params after CP writes: CP_WAIT_MEM_WRITES, invalidate, WFI).
// Ours: Queue::barrier and a graph's barriers clean, invalidate, wait for the CP's writes and
// for idle, in tu6_emit_flushes' order — more than a shader-to-shader dependency needs, what a
// CP read needs; a signal waits for idle and writes its value with the clean; a wait invalidates
// after it; a submission starts with the invalidate. On a7xx CACHE_FLUSH_TS is documented to
// flush UCHE (adreno_pm4.xml) and Mesa writes its userspace fences with it (freedreno_pipe.c
// fd_pipe_emit_fence), but no reference relies on it to make shader results visible on a7xx:
// every a7xx clean in Turnip, freedreno, KGSL and msm is CACHE_CLEAN, so ours is too.

namespace {

/// The event that writes UCHE's dirty lines back (FD_CACHE_CLEAN), which may carry a write.
pm4::EventType clean_event(pm4::Gen gen) { return gen == pm4::kA7xx ? pm4::EventType::CACHE_CLEAN : pm4::EventType::CACHE_FLUSH_TS; }

/// The event that drops UCHE's lines (FD_CACHE_INVALIDATE): 0x31 on a6xx is CACHE_CLEAN on a7xx.
pm4::EventType invalidate_event(pm4::Gen gen) {
  return gen == pm4::kA7xx ? pm4::EventType::CACHE_INVALIDATE7 : pm4::EventType::CACHE_INVALIDATE;
}

}  // namespace

SignalValueDwords emit_signal(pm4::CommandStream& cs, pm4::Gen gen, GpuAddress address, std::uint64_t value) {
  // The CP writes one dword at a time (an event's payload is 32 bits, adreno_pm4.xml), so a
  // reader can see the signal between its two writes. The low dword goes first: signals only
  // grow, so the intermediate (old high, new low) is never above the new value, where (new high,
  // old low) is above it whenever the low dword carries (0x0_FFFFFFFF -> 0x1_00000000 would
  // show 0x1_FFFFFFFF and release a waiter of 0x1_00000000 early). Both dwords are written by
  // clean events, as the drivers write their fences: each write lands once the clean made prior
  // results visible, and the CP completes its events in the order issued (the drivers read
  // their own end-of-submission fences as monotonic: KGSL's retired timestamp, msm's fence). A
  // CP_MEM_WRITE of the high dword would not wait for the clean before it and could land before
  // the low dword.
  pm4::wait_for_idle(cs);
  std::uint32_t* const low = pm4::event(cs, gen, clean_event(gen), address, static_cast<std::uint32_t>(value));
  std::uint32_t* const high = pm4::event(cs, gen, clean_event(gen), address + 4, static_cast<std::uint32_t>(value >> 32));
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
  // The signaller's results are in memory (its signal cleaned UCHE), but lines this queue read before
  // the wait may still be in UCHE.
  emit_invalidate(cs, gen);
  return site;
}

void emit_invalidate(pm4::CommandStream& cs, pm4::Gen gen) {
  // Turnip starts every command buffer with the invalidate and a wait for idle (tu6_init_hw), and
  // pairs the two again after CP writes shaders will read (tu_emit_compute_driver_params). No
  // driver invalidates between one context's submissions, and on a7xx not even at a switch: the
  // 0x31 that KGSL's gen7_rb_context_switch and msm's a6xx_set_pagetable write is CACHE_CLEAN
  // there.
  pm4::event(cs, gen, invalidate_event(gen));
  pm4::wait_for_idle(cs);
}

void patch_wait(const WaitSite& site, std::uint64_t value) { write_wait(site.dwords, site.gen, site.address, value); }

void emit_timestamp(pm4::CommandStream& cs, GpuAddress destination) {
  pm4::wait_for_idle(cs);
  pm4::reg_to_mem(cs, pm4::a6xx::CP_ALWAYS_ON_COUNTER.offset, 2, destination, true);
}

void emit_barrier(pm4::CommandStream& cs, pm4::Gen gen, GpuAddress scratch) {
  // Clean, invalidate, wait for the CP's writes, wait for idle: Turnip's tu6_emit_flushes for
  // TU_CMD_FLAG_CACHE_CLEAN | CACHE_INVALIDATE | WAIT_MEM_WRITES | WAIT_FOR_IDLE, in its order
  // (tinygrad's ops_qcom.py memory barrier is the same on a6xx). a6xx's clean writes a seqno
  // (freedreno_gpu_event.h needs_seqno; Turnip writes it to a dummy), a7xx's does not.
  if (gen == pm4::kA7xx) {
    pm4::event(cs, gen, clean_event(gen));
  } else {
    pm4::event(cs, gen, clean_event(gen), scratch, 0);
  }
  pm4::event(cs, gen, invalidate_event(gen));
  pm4::wait_mem_writes(cs);
  pm4::wait_for_idle(cs);
}

}  // namespace adreno
