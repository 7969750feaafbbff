// [virtual-gpu] The command sequence that writes a 64-bit signal (core/sync_commands.h), run on
// the virtual command processor with the signal read between every two of its packets, for a6xx
// (CP_EVENT_WRITE) and a7xx (CP_EVENT_WRITE7) on a CP of that generation. Also: a CP refuses the
// other generation's registers and event packets.
#include "core/sync_commands.h"
#include "pm4/packet.h"
#include "pm4/packets.h"
#include "virt/gpu/backing.h"
#include "virt/gpu/command_processor.h"
#include "virt/gpu/gpu_memory.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <random>
#include <vector>

using namespace adreno;

namespace {

constexpr std::uint64_t kBytes = 1 << 16, kStream = 0, kProbed = 0x4000, kSignal = 0x8000, kProbes = 0x9000;

/// Hands a command stream one chunk of host memory; only the dwords are used.
struct HostChunk : pm4::ChunkSource {
  std::vector<std::uint32_t> dwords = std::vector<std::uint32_t>(1024);
  bool used = false;
  pm4::Chunk acquire(std::uint32_t min_dwords) override {
    REQUIRE((!used && min_dwords <= dwords.size()));
    used = true;
    return {CpuView(dwords.data(), dwords.size() * 4), GpuAddress(0x1000), static_cast<std::uint32_t>(dwords.size()), 0};
  }
};

struct Probed {
  std::vector<std::uint64_t> seen;  // the signal after each packet of the sequence, as the CP read it
  std::uint64_t final_value;
};

/// Runs emit_signal(`value`) over a signal holding `before`, with a 64-bit CP_MEM_TO_MEM copy of
/// the signal after each of its packets. The copy reads memory as it is when the CP gets there:
/// a write the CP has not made yet (an event still pending, in the relaxed model) is not seen.
Probed run_probed(std::uint64_t before, std::uint64_t value, virt::ExecutionModel model, pm4::Gen gen) {
  auto memory = std::make_shared<virt::GpuMemory>(0x100000000ull, 1ull << 30);
  auto backing = virt::Backing::create(kBytes);
  const std::uint64_t va = *memory->map(backing, 0, kBytes, true);
  std::memcpy(backing->host() + kSignal, &before, 8);

  HostChunk recorded;
  pm4::CommandStream signal_stream(recorded);
  emit_signal(signal_stream, gen, GpuAddress(va + kSignal), value);
  const std::uint32_t signal_dwords = static_cast<std::uint32_t>(signal_stream.finish().front().dwords);

  // The sequence again, packet by packet, each followed by a probe.
  HostChunk probed;
  pm4::CommandStream cs(probed);
  std::size_t probes = 0;
  for (std::uint32_t at = 0; at < signal_dwords;) {
    const auto header = pm4::decode_header(recorded.dwords[at]);
    REQUIRE(header);
    cs.append(std::span(recorded.dwords).subspan(at, 1 + header->count));
    at += 1 + header->count;
    const GpuAddress source(va + kSignal);
    pm4::mem_to_mem(cs, GpuAddress(va + kProbes + 8 * probes++), std::span(&source, 1), {.double_width = true});
  }
  const auto ib = cs.finish().front();
  std::memcpy(backing->host() + kProbed, probed.dwords.data(), ib.dwords * 4);

  const std::atomic<bool> stop{false};
  virt::CommandProcessor cp(*memory, std::chrono::milliseconds(100), stop, 0, model,
                            gen == pm4::kA7xx ? ir3::Generation::a7xx : ir3::Generation::a6xx);
  const virt::IbSpan span{va + kProbed, ib.dwords};
  cp.execute(std::span(&span, 1));

  Probed out{std::vector<std::uint64_t>(probes), 0};
  std::memcpy(out.seen.data(), backing->host() + kProbes, probes * 8);
  std::memcpy(&out.final_value, backing->host() + kSignal, 8);
  return out;
}

}  // namespace

TEST_CASE("a signal written across a carry into its high dword never reads above its new value", "[virtual-gpu][cp]") {
  // The case first, then seeded carries of every size of high-dword step.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> cases = {{0xFFFFFFFFull, 0x100000000ull}};
  std::mt19937_64 rng(20);
  for (int i = 0; i < 6; ++i) {
    const std::uint64_t high = rng() % 0xFFFF0000ull;
    const std::uint64_t before = (high << 32) | (0xFFFFFFFFull - rng() % 0x10000);
    const std::uint64_t step = 1 + (i % 2 == 0 ? 0 : rng() % 0x1000);
    cases.emplace_back(before, ((high + step) << 32) | (rng() % 0x10000));
  }
  // Events completed at once (strict) and as late as the model allows (relaxed: at the next
  // wait or the end of the submission).
  const pm4::Gen gen = GENERATE(pm4::kA6xx, pm4::kA7xx);
  for (const virt::ExecutionModel& model : {virt::ExecutionModel::strict(), virt::ExecutionModel{}}) {
    for (const auto& [before, value] : cases) {
      CAPTURE(gen, model.reorder, before, value);
      const Probed probed = run_probed(before, value, model, gen);
      CHECK(probed.final_value == value);
      for (std::size_t i = 0; i < probed.seen.size(); ++i) {
        CAPTURE(i, probed.seen[i]);
        // Above the new value a waiter for it would be released before the flush; anything else
        // the reader may see (the old value, or the old high dword with the new low one).
        CHECK(probed.seen[i] <= value);
      }
    }
  }
}

namespace {

/// Runs the dwords `build` records on a CP of `gen`; returns the CP error's text, or "" when none.
template <typename Build>
std::string cp_error_of(pm4::Gen gen, Build&& build) {
  auto memory = std::make_shared<virt::GpuMemory>(0x100000000ull, 1ull << 30);
  auto backing = virt::Backing::create(kBytes);
  const std::uint64_t va = *memory->map(backing, 0, kBytes, true);
  HostChunk recorded;
  pm4::CommandStream cs(recorded);
  build(cs, GpuAddress(va + kSignal));
  const auto ib = cs.finish().front();
  std::memcpy(backing->host() + kStream, recorded.dwords.data(), ib.dwords * 4);
  const std::atomic<bool> stop{false};
  virt::CommandProcessor cp(*memory, std::chrono::milliseconds(100), stop, 0, virt::ExecutionModel::strict(),
                            gen == pm4::kA7xx ? ir3::Generation::a7xx : ir3::Generation::a6xx);
  const virt::IbSpan span{va + kStream, ib.dwords};
  try {
    cp.execute(std::span(&span, 1));
  } catch (const virt::GpuFault& fault) {
    CHECK(fault.kind() == virt::FaultKind::cp_error);
    return fault.what();
  }
  return "";
}

}  // namespace

// Kills: a CP that runs the other generation's stream — a6xx's SP_CS_NDRANGE_0 (0xb990) or its
// CP_WAIT_MEM_GTE on an a7xx GPU, a7xx's SP_CS_NDRANGE_0 (0xa9d4) or CP_EVENT_WRITE7 on an a6xx
// one — where hardware would write another register or run another packet.
TEST_CASE("a CP refuses the other generation's registers and event packets, in each direction", "[virtual-gpu][cp]") {
  namespace r = pm4::a6xx;
  // Each generation's own stream runs.
  for (pm4::Gen gen : {pm4::kA6xx, pm4::kA7xx}) {
    CAPTURE(gen);
    CHECK(cp_error_of(gen, [&](pm4::CommandStream& cs, GpuAddress signal) {
            pm4::write_register(cs, *r::compute_registers(gen).ndrange[0], 3);
            emit_signal(cs, gen, signal, 1);
            emit_wait(cs, gen, signal, 1);
          }) == "");
  }
  // a6xx on a7xx.
  CHECK_THAT(cp_error_of(pm4::kA7xx, [](pm4::CommandStream& cs, GpuAddress) { pm4::write_register(cs, r::SP_CS_NDRANGE_0, 3); }),
             Catch::Contains("SP_CS_NDRANGE_0") && Catch::Contains("a7xx"));
  CHECK_THAT(cp_error_of(pm4::kA7xx, [](pm4::CommandStream& cs, GpuAddress signal) { pm4::wait_mem_gte(cs, signal, 0); }),
             Catch::Contains("CP_WAIT_MEM_GTE"));
  CHECK_THAT(cp_error_of(pm4::kA7xx, [](pm4::CommandStream& cs, GpuAddress) { pm4::write_register(cs, r::HLSQ_SHARED_CONSTS, 0); }),
             Catch::Contains("HLSQ_SHARED_CONSTS"));
  // a6xx's CACHE_INVALIDATE (0x31) in CP_EVENT_WRITE's layout is CACHE_CLEAN to an a7xx CP;
  // its CACHE_FLUSH_TS with a write lacks WRITE_ENABLED there, and is refused.
  CHECK_THAT(cp_error_of(pm4::kA7xx, [](pm4::CommandStream& cs, GpuAddress signal) {
               pm4::event_write(cs, pm4::EventType::CACHE_FLUSH_TS, signal, 1);
             }),
             Catch::Contains("CP_EVENT_WRITE7"));
  // a7xx on a6xx.
  CHECK_THAT(cp_error_of(pm4::kA6xx, [](pm4::CommandStream& cs, GpuAddress) { pm4::write_register(cs, r::SP_CS_NDRANGE_0_A7XX, 3); }),
             Catch::Contains("SP_CS_NDRANGE_0") && Catch::Contains("a6xx"));
  CHECK_THAT(cp_error_of(pm4::kA6xx, [](pm4::CommandStream& cs, GpuAddress) { pm4::write_register(cs, r::SP_CHICKEN_BITS_1_A7XX, 0); }),
             Catch::Contains("SP_CHICKEN_BITS_1"));
  CHECK_THAT(cp_error_of(pm4::kA6xx, [](pm4::CommandStream& cs, GpuAddress) {
               pm4::event_write7(cs, pm4::EventType::CACHE_INVALIDATE7);
             }),
             Catch::Contains("CP_EVENT_WRITE") && Catch::Contains("0x33"));
}

namespace {

/// The type-7 packets `build` records, as (opcode, payload), parsed with the header rules alone.
template <typename Build>
std::vector<std::vector<std::uint32_t>> packets_of(Build&& build) {
  HostChunk recorded;
  pm4::CommandStream cs(recorded);
  build(cs);
  const auto dwords = cs.finish().front().dwords;
  std::vector<std::vector<std::uint32_t>> packets;
  for (std::uint32_t at = 0; at < dwords;) {
    const auto header = pm4::decode_header(recorded.dwords[at]);
    REQUIRE(header);
    REQUIRE(header->type == pm4::Header::Type::type7);
    std::vector<std::uint32_t> packet{header->reg_or_opcode};
    packet.insert(packet.end(), recorded.dwords.begin() + at + 1, recorded.dwords.begin() + at + 1 + header->count);
    packets.push_back(std::move(packet));
    at += 1 + header->count;
  }
  return packets;
}

// adreno_pm4.xml opcodes: CP_WAIT_FOR_IDLE 0x26, CP_WAIT_MEM_WRITES 0x12, CP_EVENT_WRITE (a6xx) and
// CP_EVENT_WRITE7 (a7xx) 0x46.
constexpr std::uint32_t kWaitForIdle = 0x26, kWaitMemWrites = 0x12, kEventWrite = 0x46;

}  // namespace

// The event dwords are the kernels' own: msm's a6xx_submit and KGSL's a6xx ringbuffer write the
// fence with CP_EVENT_WRITE CACHE_FLUSH_TS (4; adreno_pm4types.h); msm's a7xx_submit and KGSL's
// gen7_ringbuffer_addcmds with CACHE_CLEAN (0x31) | BIT(27), WRITE_ENABLED, to RAM from the
// 32-bit payload (both zero fields). Kills: an a7xx signal written by CACHE_FLUSH_TS, which no
// a7xx reference relies on to make shader results visible.
TEST_CASE("a signal's value is written by the clean event each kernel writes its fence with, low dword first", "[pure][pm4]") {
  const std::uint64_t address = 0x1'2345'6780;
  const std::uint64_t value = 0x0000'0007'8000'0001;
  SECTION("a6xx: CACHE_FLUSH_TS") {
    CHECK(packets_of([&](pm4::CommandStream& cs) { emit_signal(cs, pm4::kA6xx, GpuAddress(address), value); }) ==
          std::vector<std::vector<std::uint32_t>>{{kWaitForIdle},
                                                  {kEventWrite, 0x4, 0x23456780, 0x1, 0x80000001},
                                                  {kEventWrite, 0x4, 0x23456784, 0x1, 0x7}});
  }
  SECTION("a7xx: CACHE_CLEAN with WRITE_ENABLED") {
    CHECK(packets_of([&](pm4::CommandStream& cs) { emit_signal(cs, pm4::kA7xx, GpuAddress(address), value); }) ==
          std::vector<std::vector<std::uint32_t>>{{kWaitForIdle},
                                                  {kEventWrite, 0x08000031, 0x23456780, 0x1, 0x80000001},
                                                  {kEventWrite, 0x08000031, 0x23456784, 0x1, 0x7}});
  }
}

// Turnip's tu6_emit_flushes for CACHE_CLEAN | CACHE_INVALIDATE | WAIT_MEM_WRITES | WAIT_FOR_IDLE,
// through tu_emit_raw_event_write with freedreno_gpu_event.h's tables: on a6xx CACHE_FLUSH_TS
// with a seqno write (needs_seqno), then CACHE_INVALIDATE (0x31); on a7xx CACHE_CLEAN (0x31)
// without one, then CACHE_INVALIDATE7 (0x33), each CP_EVENT_WRITE7 to RAM from the 32-bit payload.
// Kills: an a7xx barrier cleaning with CACHE_FLUSH_TS, or invalidating with a6xx's 0x31 (a clean
// on a7xx).
TEST_CASE("a barrier is Turnip's clean, invalidate, wait for memory writes and wait for idle on each generation",
          "[pure][pm4]") {
  const std::uint64_t scratch = 0x1'0000'4000;
  CHECK(packets_of([&](pm4::CommandStream& cs) { emit_barrier(cs, pm4::kA6xx, GpuAddress(scratch)); }) ==
        std::vector<std::vector<std::uint32_t>>{
            {kEventWrite, 0x4, 0x4000, 0x1, 0}, {kEventWrite, 0x31}, {kWaitMemWrites}, {kWaitForIdle}});
  CHECK(packets_of([&](pm4::CommandStream& cs) { emit_barrier(cs, pm4::kA7xx, GpuAddress(scratch)); }) ==
        std::vector<std::vector<std::uint32_t>>{{kEventWrite, 0x31}, {kEventWrite, 0x33}, {kWaitMemWrites}, {kWaitForIdle}});
}
