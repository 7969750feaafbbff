// [virtual-gpu] The shader processor keeps its waves, register files, hazard state and local
// memory from dispatch to dispatch (and from work group to work group) to spare their setup:
// nothing of an earlier dispatch may show through. Every register a program has not written
// reads zero, as the model starts each wave (wave.h), every local memory byte too, and no
// hazard of an earlier dispatch is pending. And a stream of dispatches like the earlier ones
// runs without a heap allocation.
#include "virtual_gpu.h"

// heap_allocations counts every global operator new of this test binary.
#include "../heap_counter.h"

#include <catch2/catch.hpp>

using namespace vgpu_test;

namespace {

// Each fiber stores, at out[4 * gid .. 4 * gid + 2] (gid its global id, r48.x + lid): r1.x and
// r3.x as it found them (never written before), then the local memory word at l[4 * lid] as it
// found it. Then it leaves
// behind what a later dispatch must not see: r1.x = 42 + lid, l[4 * lid] = 7, and a global load
// into r3.x still in flight at `end` (a pending (sy) for the hazard check).
const char* const kLeavesState = R"(
    (nop3) add.u r0.w, r48.x, r0.x
    (nop3) shl.b r0.y, r0.w, 4
    add.u r2.x, c0.x, r0.y
    mov.u32u32 r2.y, c0.y
    shl.b r0.z, r0.x, 2
    mov.u32u32 r1.y, r1.x
    mov.u32u32 r1.z, r3.x
    (rpt3)nop
    ldl.u32 r1.w, l[r0.z], 1
    (ss)(rpt5)nop
    stg.u32 g[r2.x], r1.y, 3
    add.u r1.x, r0.x, 42
    mov.u32u32 r4.x, 7
    (rpt5)nop
    stl.u32 l[r0.z], r4.x, 1
    ldg.u32 r3.x, g[r2.x], 1
    end
  )";

struct Stream {
  ir3::Program program = ir3::assemble(kLeavesState);
  VirtualGpu gpu;
  Launch launch = launch_for(program);
  std::atomic<bool> stop{false};
  virt::CommandProcessor cp{*gpu.memory(), std::chrono::seconds(20), stop};

  explicit Stream(std::uint32_t fibers) {
    launch.local_size = {fibers, 1, 1};
    launch.local_id_regid = ir3::regid(0, 0);
    launch.work_group_offset_regid = ir3::regid(48, 0);
    launch.constants = {split(gpu.va(VirtualGpu::kData))[0], split(gpu.va(VirtualGpu::kData))[1], 0, 0};
  }
  // One submission of `dispatches` dispatches of `groups` work groups each.
  virt::IbSpan record(int dispatches, std::uint32_t groups) {
    launch.groups = {groups, 1, 1};
    return gpu.record(program.words, launch, [&](pm4::CommandStream& cs) {
      for (int i = 1; i < dispatches; ++i) pm4::exec_cs(cs, groups, 1, 1);
    });
  }
};

}  // namespace

TEST_CASE("a dispatch finds every register and local memory byte zero and no hazard pending, whatever ran before",
          "[virtual-gpu][ir3][reuse]") {
  // Waves of 64 and 128 fibers; one or two waves per group; dispatches one after another in a
  // submission and in the next submission, and work groups one after another in a dispatch.
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    for (std::uint32_t fibers : {64u, 128u}) {
      Stream stream(fibers);
      stream.launch.thread_size = size;
      for (std::uint32_t groups : {1u, 3u}) {
        const std::size_t words = std::size_t{groups} * fibers * 4;
        stream.gpu.put(VirtualGpu::kData, std::vector<std::uint32_t>(words, 0xdeadbeef));
        const virt::IbSpan ib = stream.record(3, groups);
        for (int submission = 0; submission < 2; ++submission) {
          INFO("wave " << (size == pm4::ThreadSize::THREAD64 ? 64 : 128) << ", " << fibers << " fibers, " << groups
                       << " groups, submission " << submission);
          REQUIRE_NOTHROW(stream.cp.execute(std::span(&ib, 1)));
          const auto out = stream.gpu.get<std::uint32_t>(VirtualGpu::kData, words);
          for (std::uint32_t gid = 0; gid < groups * fibers; ++gid) {
            INFO("fiber " << gid);
            REQUIRE(out[4 * gid + 0] == 0);  // r1.x
            REQUIRE(out[4 * gid + 1] == 0);  // r3.x
            REQUIRE(out[4 * gid + 2] == 0);  // l[4 * lid]
          }
        }
      }
    }
  }
}

TEST_CASE("a submission of small dispatches like the earlier ones allocates nothing on the host",
          "[virtual-gpu][reuse][heap]") {
  // The fixed cost of a dispatch the CI runs of applications pay: the command processor's
  // dispatch state, the waves, their registers and hazard state, the work group's local memory
  // and the host threads that share the work groups are all kept from the earlier submission.
  auto allocations = [](Stream& stream, const virt::IbSpan& ib) {
    const std::size_t before = heap_allocations.load();
    stream.cp.execute(std::span(&ib, 1));
    return heap_allocations.load() - before;
  };
  SECTION("one work group per dispatch: the caller's thread runs them all") {
    Stream stream(128);
    const virt::IbSpan ib = stream.record(50, 1);
    stream.cp.execute(std::span(&ib, 1));
    CHECK(allocations(stream, ib) == 0);
  }
  SECTION("three work groups per dispatch, shared with the helper threads") {
    // Which thread runs which group is up to the scheduler: a helper thread allocates in the
    // first submission where it gets a group. Once every thread had one, nothing allocates.
    Stream stream(128);
    const virt::IbSpan ib = stream.record(50, 3);
    int submissions = 1;
    while (allocations(stream, ib) != 0 && submissions < 20) ++submissions;
    REQUIRE(submissions < 20);
    for (int i = 0; i < 3; ++i) CHECK(allocations(stream, ib) == 0);
  }
}

TEST_CASE("a work group finds local memory zero after an earlier group changed it only with atomics",
          "[virtual-gpu][ir3][reuse]") {
  // Each fiber stores l[4 * lid] as it found it at out[gid], then adds 5 to it atomically: the
  // host threads run the work groups one after another, and each must start from zeros (the
  // local memory is cleared only after a group wrote it, and an atomic writes it).
  const ir3::Program program = ir3::assemble(R"(
    (nop3) add.u r0.w, r48.x, r0.x
    (nop3) shl.b r0.y, r0.w, 2
    shl.b r0.z, r0.x, 2
    add.u r2.x, c0.x, r0.y
    mov.u32u32 r2.y, c0.y
    mov.u32u32 r3.z, 5
    (rpt5)nop
    ldl.u32 r1.x, l[r0.z], 1
    (ss)nop
    atomic.add.untyped.1d.u32.1.l r1.y, l[r0.z], r3.z
    (ss)(sy)(rpt5)nop
    stg.u32 g[r2.x], r1.x, 1
    end
  )");
  constexpr std::uint32_t kFibers = 64, kGroups = 16;
  VirtualGpu gpu;
  Launch launch = launch_for(program);
  launch.local_size = {kFibers, 1, 1};
  launch.groups = {kGroups, 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.work_group_offset_regid = ir3::regid(48, 0);
  launch.constants = {split(gpu.va(VirtualGpu::kData))[0], split(gpu.va(VirtualGpu::kData))[1], 0, 0};
  gpu.put(VirtualGpu::kData, std::vector<std::uint32_t>(kFibers * kGroups, 0xdeadbeef));
  gpu.run(program.words, launch);
  CHECK(gpu.get<std::uint32_t>(VirtualGpu::kData, kFibers * kGroups) == std::vector<std::uint32_t>(kFibers * kGroups, 0));
}
