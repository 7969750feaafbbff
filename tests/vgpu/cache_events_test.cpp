// [virtual-gpu] Which cache events make a dispatch's stores visible to the command processor's
// own reads (which bypass UCHE: indirect counts, memory waits, copies) on a6xx and a7xx. The
// expectations are the references' sequences for a CP read of shader results — a UCHE clean, then
// CP_WAIT_FOR_IDLE: Turnip's tu6_emit_flushes for TU_CMD_FLAG_CACHE_CLEAN (FD_CACHE_CLEAN is
// CACHE_FLUSH_TS on a6xx, CACHE_CLEAN on a7xx: freedreno_gpu_event.h), freedreno's
// fd6_memory_barrier(PIPE_BARRIER_INDIRECT_BUFFER), computerator's a7xx cache_flush (CACHE_FLUSH7),
// the kernels' a7xx fence (CACHE_CLEAN with WRITE_ENABLED: KGSL adreno_gen7_ringbuffer.c, msm
// a7xx_submit) — and adreno_pm4.xml's event docs: RB_DONE_TS waits for RB access, not UCHE.
#include "virtual_gpu.h"

#include "core/sync_commands.h"

#include <catch2/catch.hpp>

#include <array>
#include <functional>
#include <string>

using namespace vgpu_test;

namespace {

constexpr std::uint64_t kStored = VirtualGpu::kData, kProbe = kStored + 0x1000, kEventWrite = kStored + 0x2000,
                        kScratch = kStored + 0x3000;
constexpr std::uint32_t kBefore = 0x0badf00d, kValue = 0x600d5eed;

struct Outcome {
  std::uint32_t cp_read;      // what the CP's copy after the sequence read at kStored
  std::uint32_t in_memory;    // kStored after the submission retired
  std::uint32_t event_write;  // kEventWrite after the submission
};

/// One fiber stores kValue at kStored; then `sequence` and a CP_MEM_TO_MEM of kStored to kProbe.
Outcome run(pm4::Gen gen, const std::function<void(pm4::CommandStream&, VirtualGpu&)>& sequence) {
  const ir3::Program program = ir3::assemble(R"(
    mov.u32u32 r0.x, c0.x
    mov.u32u32 r0.y, c0.y
    mov.u32u32 r0.z, c1.x
    stg.u32 g[r0.x], r0.z, 1
    end
  )",
                                             ir3::RegisterFile::split, ir3::Scheduling::legalize,
                                             gen == pm4::kA7xx ? ir3::Generation::a7xx : ir3::Generation::a6xx);
  // Reordering and UCHE on (the default model), whatever the environment asks for.
  VirtualGpu gpu(gen, virt::ExecutionModel{});
  gpu.put<std::uint32_t>(kStored, {kBefore});
  gpu.put<std::uint32_t>(kProbe, {0});
  gpu.put<std::uint32_t>(kEventWrite, {0});
  Launch launch = launch_for(program);
  launch.local_size = {1, 1, 1};
  const std::uint64_t at = gpu.va(kStored);
  launch.constants = {static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at >> 32), 0, 0, kValue, 0, 0, 0};
  gpu.run(program.words, launch, [&](pm4::CommandStream& cs) {
    sequence(cs, gpu);
    const GpuAddress source(gpu.va(kStored));
    pm4::mem_to_mem(cs, GpuAddress(gpu.va(kProbe)), std::span(&source, 1));
  });
  return {gpu.get<std::uint32_t>(kProbe, 1)[0], gpu.get<std::uint32_t>(kStored, 1)[0], gpu.get<std::uint32_t>(kEventWrite, 1)[0]};
}

GpuAddress event_target(VirtualGpu& gpu) { return GpuAddress(gpu.va(kEventWrite)); }

}  // namespace

// Kills: a7xx CACHE_CLEAN, CACHE_FLUSH7 and CACHE_INVALIDATE7 applied when the CP reads the
// packet, before the dispatch issued ahead of them has run (Turnip's and freedreno's clean-then-
// wait made nothing visible); CACHE_CLEAN with a write (the kernels' a7xx fence) refused; an
// RB_DONE_TS that cleaned UCHE.
TEST_CASE("on a7xx a CP read sees a dispatch's stores after CACHE_CLEAN or CACHE_FLUSH7 and a wait for idle, not after RB_DONE_TS",
          "[virtual-gpu][cp]") {
  SECTION("CACHE_CLEAN, then CP_WAIT_FOR_IDLE: Turnip's FD_CACHE_CLEAN on a7xx") {
    const Outcome out = run(pm4::kA7xx, [](pm4::CommandStream& cs, VirtualGpu&) {
      pm4::event_write7(cs, pm4::EventType::CACHE_CLEAN);
      pm4::wait_for_idle(cs);
    });
    CHECK(out.cp_read == kValue);
  }
  SECTION("CACHE_CLEAN writing a value, as the kernels write their a7xx fence: the value lands after the clean") {
    const Outcome out = run(pm4::kA7xx, [](pm4::CommandStream& cs, VirtualGpu& gpu) {
      pm4::event_write7(cs, pm4::EventType::CACHE_CLEAN, event_target(gpu), 7);
      pm4::wait_for_idle(cs);
    });
    CHECK(out.cp_read == kValue);
    CHECK(out.event_write == 7);
  }
  SECTION("CACHE_FLUSH7 (clean and invalidate), then CP_WAIT_FOR_IDLE: computerator's a7xx cache_flush") {
    const Outcome out = run(pm4::kA7xx, [](pm4::CommandStream& cs, VirtualGpu&) {
      pm4::event_write7(cs, pm4::EventType::CACHE_FLUSH7);
      pm4::wait_for_idle(cs);
    });
    CHECK(out.cp_read == kValue);
  }
  SECTION("CACHE_FLUSH_TS writing a value: adreno_pm4.xml documents it as a UCHE flush on every generation") {
    const Outcome out = run(pm4::kA7xx, [](pm4::CommandStream& cs, VirtualGpu& gpu) {
      pm4::event_write7(cs, pm4::EventType::CACHE_FLUSH_TS, event_target(gpu), 9);
      pm4::wait_for_idle(cs);
    });
    CHECK(out.cp_read == kValue);
    CHECK(out.event_write == 9);
  }
  SECTION("RB_DONE_TS writing a value waits for RB access, not UCHE: the store stays in UCHE") {
    const Outcome out = run(pm4::kA7xx, [](pm4::CommandStream& cs, VirtualGpu& gpu) {
      pm4::event_write7(cs, pm4::EventType::RB_DONE_TS, event_target(gpu), 5);
      pm4::wait_for_idle(cs);
    });
    CHECK(out.cp_read == kBefore);
    CHECK(out.event_write == 5);
    CHECK(out.in_memory == kValue);  // the kernel's fence cleans at the end of the submission
  }
  SECTION("CACHE_INVALIDATE7 after the dispatch does not drop its stores") {
    const Outcome out = run(pm4::kA7xx, [](pm4::CommandStream& cs, VirtualGpu&) {
      pm4::event_write7(cs, pm4::EventType::CACHE_INVALIDATE7);
      pm4::wait_for_idle(cs);
    });
    CHECK(out.in_memory == kValue);
  }
}

// The other direction, on both generations: what does not make the stores visible.
TEST_CASE("a CP read does not see a dispatch's stores after a wait for idle alone, nor after a clean without the wait",
          "[virtual-gpu][cp]") {
  const pm4::Gen gen = GENERATE(pm4::kA6xx, pm4::kA7xx);
  CAPTURE(gen);
  SECTION("CP_WAIT_FOR_IDLE alone: the dispatch is done but its store is still in UCHE") {
    const Outcome out = run(gen, [](pm4::CommandStream& cs, VirtualGpu&) { pm4::wait_for_idle(cs); });
    CHECK(out.cp_read == kBefore);
    CHECK(out.in_memory == kValue);
  }
  SECTION("the clean alone: nothing waits for the dispatch") {
    const Outcome out = run(gen, [gen](pm4::CommandStream& cs, VirtualGpu& gpu) {
      if (gen == pm4::kA7xx)
        pm4::event_write7(cs, pm4::EventType::CACHE_CLEAN);
      else
        pm4::event_write(cs, pm4::EventType::CACHE_FLUSH_TS, event_target(gpu), 1);
    });
    CHECK(out.cp_read == kBefore);
    CHECK(out.in_memory == kValue);
  }
}

// Queue::barrier's and Queue::signal's sequences (core/sync_commands.h) before a CP read: the
// barrier makes the stores visible; so does the signal, before its value lands.
TEST_CASE("the library's barrier and signal make a dispatch's stores visible to a later CP read on a6xx and a7xx",
          "[virtual-gpu][cp]") {
  const pm4::Gen gen = GENERATE(pm4::kA6xx, pm4::kA7xx);
  CAPTURE(gen);
  const Outcome barrier = run(gen, [gen](pm4::CommandStream& cs, VirtualGpu& gpu) {
    emit_barrier(cs, gen, GpuAddress(gpu.va(kScratch)));
  });
  CHECK(barrier.cp_read == kValue);
  const Outcome signal = run(gen, [gen](pm4::CommandStream& cs, VirtualGpu& gpu) {
    emit_signal(cs, gen, event_target(gpu), 3);
    pm4::wait_for_idle(cs);
  });
  CHECK(signal.cp_read == kValue);
  CHECK(signal.event_write == 3);
}

namespace {

/// Stores c1.x at the address in c0.xy twice: a dispatch with the harness's constants (`first`
/// at kStored), then — after the CP rewrote those constants in memory to `second` at kProbe and
/// `between` ran — a dispatch that reloads them from memory with CP_LOAD_STATE6 SS6_INDIRECT,
/// the shape of an indirect dispatch's copied group counts. Returns {kStored, kProbe} after.
std::array<std::uint32_t, 2> reload_after_cp_write(pm4::Gen gen, std::uint32_t first, std::uint32_t second,
                                                   const std::function<void(pm4::CommandStream&)>& between) {
  const ir3::Program program = ir3::assemble(R"(
    mov.u32u32 r0.x, c0.x
    mov.u32u32 r0.y, c0.y
    mov.u32u32 r0.z, c1.x
    stg.u32 g[r0.x], r0.z, 1
    end
  )",
                                             ir3::RegisterFile::split, ir3::Scheduling::legalize,
                                             gen == pm4::kA7xx ? ir3::Generation::a7xx : ir3::Generation::a6xx);
  VirtualGpu gpu(gen, virt::ExecutionModel{});
  gpu.put<std::uint32_t>(kStored, {0});
  gpu.put<std::uint32_t>(kProbe, {0});
  Launch launch = launch_for(program);
  launch.local_size = {1, 1, 1};
  auto constants = [&](std::uint64_t offset, std::uint32_t value) {
    const std::uint64_t at = gpu.va(offset);
    return std::vector<std::uint32_t>{static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at >> 32), 0, 0, value, 0, 0, 0};
  };
  launch.constants = constants(kStored, first);
  gpu.run(program.words, launch, [&](pm4::CommandStream& cs) {
    // Turnip's order (tu_emit_compute_driver_params): wait for earlier users, the CP's write,
    // then whatever `between` is, the load, the dispatch.
    pm4::wait_for_idle(cs);
    pm4::mem_write(cs, GpuAddress(gpu.va(VirtualGpu::kConstants)), constants(kProbe, second));
    pm4::wait_mem_writes(cs);
    between(cs);
    pm4::load_state6_frag(cs, {pm4::StateType::ST6_CONSTANTS, pm4::StateBlock::SB6_CS_SHADER, 0, 2},
                          GpuAddress(gpu.va(VirtualGpu::kConstants)));
    pm4::exec_cs(cs, 1, 1, 1);
  });
  return {gpu.get<std::uint32_t>(kStored, 1)[0], gpu.get<std::uint32_t>(kProbe, 1)[0]};
}

}  // namespace

// Kills: CP_LOAD_STATE6 SS6_INDIRECT reading memory past UCHE, which let an indirect dispatch's
// count copy skip the invalidate Turnip emits between CP_WAIT_MEM_WRITES and the load
// (tu_emit_compute_driver_params, ST6_CONSTANTS path: FD_CACHE_INVALIDATE, then a WFI).
TEST_CASE("a constant load from memory the CP rewrote returns the stale UCHE line unless UCHE was invalidated in between",
          "[virtual-gpu][cp]") {
  const pm4::Gen gen = GENERATE(pm4::kA6xx, pm4::kA7xx);
  CAPTURE(gen);
  constexpr std::uint32_t kFirst = 0x0f157000, kSecond = 0x5ec0d000;
  SECTION("no invalidate: the second dispatch gets the first one's constants from UCHE") {
    const auto stored = reload_after_cp_write(gen, kFirst, kSecond, [](pm4::CommandStream&) {});
    CHECK(stored[0] == kFirst);
    CHECK(stored[1] == 0);
  }
  SECTION("the invalidate and a wait for idle (core emit_invalidate): the load reads the CP's write") {
    const auto stored = reload_after_cp_write(gen, kFirst, kSecond, [gen](pm4::CommandStream& cs) { emit_invalidate(cs, gen); });
    CHECK(stored[0] == kFirst);
    CHECK(stored[1] == kSecond);
  }
  // The model takes the strict reading of the WFI Turnip puts after the invalidate: an event acts
  // after the work before it, and nothing waits for it here.
  SECTION("the invalidate without the wait: it has not acted when the CP loads") {
    const auto stored = reload_after_cp_write(gen, kFirst, kSecond, [gen](pm4::CommandStream& cs) {
      pm4::event(cs, gen, gen == pm4::kA7xx ? pm4::EventType::CACHE_INVALIDATE7 : pm4::EventType::CACHE_INVALIDATE);
    });
    CHECK(stored[0] == kFirst);
    CHECK(stored[1] == 0);
  }
}
