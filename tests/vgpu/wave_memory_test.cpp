// [virtual-gpu] The lanes of a wave whose global accesses follow each other in memory move
// together (one translation and one cache lookup for the run): such a run must still fault at
// the first lane that leaves its mapping, keep the lanes before it, cross cache blocks and move
// every lane's data, and in a diverged wave touch only the lanes that execute.
#include "virtual_gpu.h"

#include "virt/kernels/ring.h"

#include <catch2/catch.hpp>

#include <mutex>
#include <random>
#include <vector>

using namespace vgpu_test;
using adreno::virt::FaultKind;
using adreno::virt::GpuFault;
using adreno::virt::Ring;

namespace {

// Fiber i stores i at c0.xy + 4·i: the 64 lanes of one wave store 256 consecutive bytes.
const char* const kStoreLaneIds = R"(
  @localsize 64, 1, 1
  @invocationid(r0.x)
  shl.b r0.y, r0.x, 2
  add.u r1.x, c0.x, r0.y
  mov.u32u32 r1.y, c0.y
  stg.u32 g[r1.x], r0.x, 1
  end
)";

// Fiber i loads the vec4 at c0.xy + 16·i; fibers from c1.x on store it at c0.zw + 16·i, the
// others branch past the store (the wave diverges: the storing lanes are not all of it).
const char* const kCopyVec4From = R"(
  @localsize 128, 1, 1
  @invocationid(r0.x)
  shl.b r0.y, r0.x, 4
  add.u r1.x, c0.x, r0.y
  mov.u32u32 r1.y, c0.y
  add.u r1.z, c0.z, r0.y
  mov.u32u32 r1.w, c0.w
  ldg.u32 r2.x, g[r1.x], 4
  cmps.u.lt p0.x, r0.x, c1.x
  br p0.x, #skip
  stg.u32 g[r1.z], r2.x, 4
skip:
  (jp)end
)";

}  // namespace

TEST_CASE("consecutive lanes' stores running off a mapping's end fault at its first byte past it, the lanes before it store",
          "[virtual-gpu][faults][memory]") {
  VirtualGpu gpu;
  // A mapping of 4032 bytes, alone in its MiB of address space: it ends inside a page (and a
  // cache block), where nothing else is mapped.
  constexpr std::uint64_t kMapped = 4096 - 64;
  auto backing = virt::Backing::create(4096);
  const std::uint64_t mapping = *gpu.memory()->map(backing, 0, kMapped, true, 1 << 20);
  const ir3::Program program = ir3::assemble(kStoreLaneIds, ir3::RegisterFile::split, ir3::Scheduling::legalize);
  Launch launch = launch_for(program);
  const std::uint64_t first = mapping + kMapped - 8 * 4;  // lanes 0-7 inside the mapping, 8-63 past its end
  launch.constants = {split(first)[0], split(first)[1], 0, 0};

  SECTION("fatal: the fault names the first unmapped address") {
    try {
      gpu.run(program.words, launch);
      FAIL("the dispatch did not fault");
    } catch (const GpuFault& fault) {
      CHECK(fault.kind() == FaultKind::page_fault);
      CHECK(fault.address() == mapping + kMapped);
    }
  }
  SECTION("on a ring that logs page faults and goes on: lanes 0-7 stored, the first fault at the mapping's end") {
    std::vector<adreno::virt::FaultRecord> page_faults;
    std::mutex logged_mutex;
    Ring ring(gpu.memory(), std::chrono::seconds(5),
              Ring::FaultLogs{{}, [&](const adreno::virt::FaultRecord& fault) {
                                std::lock_guard lock(logged_mutex);
                                page_faults.push_back(fault);
                              }});
    const virt::IbSpan ib = gpu.record(program.words, launch);
    REQUIRE(ring.wait(ring.submit({ib}), std::chrono::seconds(10)) == Ring::WaitResult::retired);
    std::vector<std::uint32_t> stored(8);
    std::memcpy(stored.data(), backing->host() + kMapped - 32, 32);
    CHECK(stored == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
    std::lock_guard lock(logged_mutex);
    // One fault per page: the lowest faulting address in each (lanes 16-63 reach the next page).
    REQUIRE(page_faults.size() == 2);
    CHECK(page_faults[0].address == mapping + kMapped);
    CHECK(page_faults[1].address == mapping + 4096);
    CHECK((page_faults[0].write && page_faults[1].write));
  }
}

TEST_CASE("a wave's consecutive vec4 loads and stores cross cache blocks, and in a diverged wave only the executing lanes store",
          "[virtual-gpu][memory]") {
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble(kCopyVec4From, ir3::RegisterFile::split, ir3::Scheduling::legalize);
  // 128 lanes × 16 bytes = 2 KiB each way, both ranges across a 4 KiB boundary.
  const std::uint64_t in = VirtualGpu::kData + 0x1000 - 0x300, out = VirtualGpu::kData + 0x4000 - 0x500;
  std::mt19937 rng(19);
  std::vector<std::uint32_t> input(128 * 4), before(128 * 4);
  for (auto& v : input) v = rng();
  for (auto& v : before) v = rng();
  const std::uint32_t first_storing = GENERATE(0u, 40u, 127u);
  gpu.put(in, input);
  gpu.put(out, before);
  Launch launch = launch_for(program);
  launch.thread_size = pm4::ThreadSize::THREAD128;
  launch.constants = {split(gpu.va(in))[0], split(gpu.va(in))[1], split(gpu.va(out))[0], split(gpu.va(out))[1],
                      first_storing, 0, 0, 0};
  gpu.run(program.words, launch);
  std::vector<std::uint32_t> expected = before;
  std::copy(input.begin() + first_storing * 4, input.end(), expected.begin() + first_storing * 4);
  CHECK(gpu.get<std::uint32_t>(out, 128 * 4) == expected);
}

// Kills: a store run's lines written in part not filled from memory first (the input sharing the
// output's first line would be read back as whatever the cache block held, by the last work
// group), a cache block or line two host threads reached together filled over one's stores, a
// translation or cache block kept from one instruction or work group for another it does not
// cover.
TEST_CASE("many work groups' vec4 adds on every host thread store every lane across cache blocks and keep the bytes around them",
          "[virtual-gpu][memory]") {
  const ir3::Program program = vector_add_vec4_program();
  const auto thread_size = GENERATE(pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128);
  CAPTURE(thread_size == pm4::ThreadSize::THREAD128);
  constexpr std::uint32_t kGroups = 256, kDwords = kGroups * 128 * 4, kAfter = 64 / 4;
  // a, b and c (then kAfter dwords the kernel leaves alone) follow each other in memory, none on
  // a cache line boundary: a ends in b's first line, b in c's first line.
  const std::uint64_t a = VirtualGpu::kData + 0x30, b = a + kDwords * 4, c = b + kDwords * 4;
  std::mt19937 rng(0x7add);
  std::vector<std::uint32_t> in_a(kDwords), in_b(kDwords), out(kDwords + kAfter);
  for (auto& v : in_a) v = rng();
  for (auto& v : in_b) v = rng();
  for (auto& v : out) v = rng();
  VirtualGpu gpu;
  gpu.put(a, in_a);
  gpu.put(b, in_b);
  gpu.put(c, out);
  Launch launch = vector_add_vec4_launch(program, gpu, c, a, b, kGroups);
  launch.thread_size = thread_size;
  gpu.run(program.words, launch);
  std::vector<std::uint32_t> expected = out;
  for (std::uint32_t i = 0; i < kDwords; ++i) expected[i] = in_a[i] + in_b[i];
  CHECK(gpu.get<std::uint32_t>(c, expected.size()) == expected);
}
