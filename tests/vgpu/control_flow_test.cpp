// [virtual-gpu] Divergent branches and loops, barriers with local memory across waves, and
// multi-group dispatches of random shapes in THREAD64 and THREAD128.
#include "virtual_gpu.h"

#include <catch2/catch.hpp>

#include <random>

using namespace vgpu_test;

namespace {

// Per-fiber output address for a 32-bit store at out[lid.x] (out at c0.xy): r2.xy.
constexpr const char* kOutputAddress = R"(
    (nop3) shl.b r2.z, r0.x, 2
    add.u r2.x, c0.x, r2.z
    mov.u32u32 r2.y, c0.y
)";

std::vector<std::uint32_t> run_per_fiber(const std::string& body, std::uint32_t fibers, pm4::ThreadSize size,
                                         std::uint32_t shared_size_field = 1) {
  const ir3::Program program = ir3::assemble(std::string(kOutputAddress) + body + "\n(ss)(sy)(rpt5)nop\nstg.u32 g[r2.x], r3.x, 1\nend\n");
  VirtualGpu gpu;
  Launch launch = launch_for(program);
  launch.local_size = {fibers, 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.thread_size = size;
  launch.shared_size_field = shared_size_field;
  launch.full_footprint = std::max(launch.full_footprint, 4u);
  launch.constants = {split(gpu.va(VirtualGpu::kData))[0], split(gpu.va(VirtualGpu::kData))[1], 0, 0};
  gpu.put(VirtualGpu::kData, std::vector<std::uint32_t>(fibers, 0xdeadbeef));
  gpu.run(program.words, launch);
  return gpu.get<std::uint32_t>(VirtualGpu::kData, fibers);
}

}  // namespace

TEST_CASE("a divergent if/else runs each side for its own lanes and rejoins", "[virtual-gpu][ir3][control]") {
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    const auto out = run_per_fiber(R"(
      (nop3) and.b r0.y, r0.x, 3
      (nop3) cmps.u.eq p0.x, r0.y, 0
    (rpt2)nop
      br p0.x, #multiple_of_4
      add.u r3.x, r0.x, 300
      jump #join
    multiple_of_4:
      add.u r3.x, r0.x, 500
    join:
    (jp)(rpt2)nop
      (jp)add.u r3.x, r3.x, 7
    )", 200, size);
    for (std::uint32_t i = 0; i < 200; ++i) {
      INFO("fiber " << i);
      REQUIRE(out[i] == i + (i % 4 == 0 ? 500u : 300u) + 7);
    }
  }
}

TEST_CASE("a loop with a per-lane trip count keeps every lane's own count", "[virtual-gpu][ir3][control]") {
  const auto out = run_per_fiber(R"(
      mov.u32u32 r3.x, 0
      mov.u32u32 r3.y, 0
    loop:
    (rpt2)nop
      (nop3) cmps.u.ge p0.x, r3.y, r0.x
    (rpt2)nop
      br p0.x, #done
      add.u r3.x, r3.x, r3.y
      add.u r3.y, r3.y, 1
      jump #loop
    done:
      (jp)nop
  )", 150, pm4::ThreadSize::THREAD64);
  for (std::uint32_t i = 0; i < 150; ++i) {
    INFO("fiber " << i);
    REQUIRE(out[i] == (i == 0 ? 0 : i * (i - 1) / 2));
  }
}

TEST_CASE("bany and ball branch the whole wave on any or all lanes", "[virtual-gpu][ir3][control]") {
  // Only fiber 5 sets p0.x: bany jumps for every lane of wave 0; ball never jumps.
  const auto out = run_per_fiber(R"(
      cmps.u.eq p0.x, r0.x, 5
      mov.u32u32 r3.x, 1
    (rpt4)nop
      bany p0.x, #any
      jump #next
    any:
      (jp)add.u r3.x, r3.x, 10
    next:
      (jp)ball p0.x, #all
      jump #end
    all:
    (jp)(rpt1)nop
      (jp)add.u r3.x, r3.x, 100
    end:
      (jp)nop
  )", 128, pm4::ThreadSize::THREAD64);
  for (std::uint32_t i = 0; i < 128; ++i) {
    INFO("fiber " << i);
    REQUIRE(out[i] == (i < 64 ? 11u : 1u));
  }
}

TEST_CASE("a barrier orders local memory between the waves of a work group", "[virtual-gpu][ir3][barrier]") {
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    // Every fiber stores its id * 3 at l[4 * id], waits, and reads its neighbour's slot, which
    // another wave wrote for the fibers at wave edges.
    const std::uint32_t fibers = 512;
    const auto out = run_per_fiber(R"(
      shl.b r0.y, r0.x, 2
      (nop3) mul.u24 r1.x, r0.x, 3
    (rpt2)nop
      stl.u32 l[r0.y], r1.x, 1
      bar
      (ss)(sy)(nop3) add.u r0.z, r0.x, 1
      (nop3) and.b r0.z, r0.z, 511
      (nop3) shl.b r0.z, r0.z, 2
    (rpt2)nop
      ldl.u32 r3.x, l[r0.z], 1
    )", fibers, size, 1);
    for (std::uint32_t i = 0; i < fibers; ++i) {
      INFO("fiber " << i);
      REQUIRE(out[i] == (i + 1) % fibers * 3);
    }
  }
}

TEST_CASE("local memory outside SHARED_SIZE is a shader error", "[virtual-gpu][ir3][barrier]") {
  // SHARED_SIZE 0 gives 1 KiB: fiber 300 stores at byte 1200.
  try {
    run_per_fiber("shl.b r0.y, r0.x, 2\n(rpt5)nop\nstl.u32 l[r0.y], r0.x, 1\nmov.u32u32 r3.x, 0", 512, pm4::ThreadSize::THREAD64, 0);
    FAIL("no fault");
  } catch (const virt::GpuFault& fault) {
    CHECK(fault.kind() == virt::FaultKind::shader_error);
    CHECK_THAT(fault.what(), Catch::Contains("SHARED_SIZE"));
  }
}

TEST_CASE("local memory below byte 0 is a shader error naming the byte", "[virtual-gpu][ir3][barrier]") {
  // Fiber 0's address 0 with the offset -4 lies before local memory (fiber 1's is byte 0).
  try {
    run_per_fiber("shl.b r0.y, r0.x, 2\n(rpt5)nop\nstl.u32 l[r0.y-4], r0.x, 1\nmov.u32u32 r3.x, 0", 64, pm4::ThreadSize::THREAD64, 0);
    FAIL("no fault");
  } catch (const virt::GpuFault& fault) {
    CHECK(fault.kind() == virt::FaultKind::shader_error);
    CHECK_THAT(fault.what(), Catch::Contains("at byte -4 is outside") && Catch::Contains("SHARED_SIZE"));
  }
}

TEST_CASE("multi-group dispatches of random shapes give every fiber its ids once", "[virtual-gpu][ir3][grid]") {
  // Each fiber writes (lid.x | lid.y << 10 | lid.z << 20, wgid.x, wgid.y, wgid.z) at its flat
  // global index; consts: c0.xy output, c1 = (groups.x, groups.y, local.x, local.y), c2.x = fibers per group.
  const ir3::Program program = ir3::assemble(R"(
    (nop3) mul.u24 r1.x, r48.z, c1.y
    (nop3) add.u r1.x, r1.x, r48.y
    (nop3) mul.u24 r1.x, r1.x, c1.x
    (nop3) add.u r1.x, r1.x, r48.x
    mul.u24 r1.x, r1.x, c2.x
    (nop3) mul.u24 r1.y, r0.z, c1.w
    (nop3) add.u r1.y, r1.y, r0.y
    (nop3) mul.u24 r1.y, r1.y, c1.z
    (nop3) add.u r1.y, r1.y, r0.x
    (nop3) add.u r1.x, r1.x, r1.y
    (nop3) shl.b r1.x, r1.x, 4
    add.u r2.x, c0.x, r1.x
    mov.u32u32 r2.y, c0.y
    shl.b r4.x, r0.y, 10
    (nop3) shl.b r4.y, r0.z, 20
    (nop3) or.b r4.x, r4.x, r4.y
    or.b r4.x, r4.x, r0.x
    mov.u32u32 r4.y, r48.x
    mov.u32u32 r4.z, r48.y
    mov.u32u32 r4.w, r48.z
    (rpt5)nop
    stg.u32 g[r2.x], r4.x, 4
    end
  )");
  std::mt19937 rng32(1234);
  auto rng = [&] { return static_cast<std::uint32_t>(rng32()); };
  for (int trial = 0; trial < 12; ++trial) {
    Launch launch = launch_for(program);
    launch.thread_size = trial % 2 ? pm4::ThreadSize::THREAD128 : pm4::ThreadSize::THREAD64;
    do {
      launch.local_size = {1 + rng() % 40, 1 + rng() % 6, 1 + rng() % 4};
    } while (launch.local_size[0] * launch.local_size[1] * launch.local_size[2] > 1024);
    launch.groups = {1 + rng() % 5, 1 + rng() % 4, 1 + rng() % 3};
    launch.local_id_regid = ir3::regid(0, 0);
    launch.work_group_id_regid = ir3::regid(48, 0);
    const std::uint32_t per_group = launch.local_size[0] * launch.local_size[1] * launch.local_size[2];
    const std::uint32_t total = per_group * launch.groups[0] * launch.groups[1] * launch.groups[2];
    VirtualGpu gpu;
    gpu.put(VirtualGpu::kData, std::vector<std::uint32_t>(total * 4, 0xdeadbeef));
    launch.constants = {split(gpu.va(VirtualGpu::kData))[0], split(gpu.va(VirtualGpu::kData))[1], 0, 0,
                        launch.groups[0], launch.groups[1], launch.local_size[0], launch.local_size[1],
                        per_group, 0, 0, 0};
    gpu.run(program.words, launch);
    const auto out = gpu.get<std::uint32_t>(VirtualGpu::kData, total * 4);
    std::uint32_t index = 0;
    for (std::uint32_t gz = 0; gz < launch.groups[2]; ++gz)
      for (std::uint32_t gy = 0; gy < launch.groups[1]; ++gy)
        for (std::uint32_t gx = 0; gx < launch.groups[0]; ++gx)
          for (std::uint32_t z = 0; z < launch.local_size[2]; ++z)
            for (std::uint32_t y = 0; y < launch.local_size[1]; ++y)
              for (std::uint32_t x = 0; x < launch.local_size[0]; ++x, ++index) {
                INFO("trial " << trial << " group " << gx << "," << gy << "," << gz << " fiber " << x << "," << y << "," << z);
                REQUIRE(out[index * 4 + 0] == (x | y << 10 | z << 20));
                REQUIRE(out[index * 4 + 1] == gx);
                REQUIRE(out[index * 4 + 2] == gy);
                REQUIRE(out[index * 4 + 3] == gz);
              }
  }
}

TEST_CASE("private memory keeps each fiber's own values and is bounded by MEMSIZEPERITEM", "[virtual-gpu][ir3][private]") {
  // Each fiber stores lid + k at p[4k] for k = 0..3, then reads them back in reverse and sums.
  const ir3::Program program = ir3::assemble(std::string(kOutputAddress) + R"(
    add.u r1.x, r0.x, 0
    add.u r1.y, r0.x, 1
    add.u r1.z, r0.x, 2
    add.u r1.w, r0.x, 3
    mov.u32u32 r0.y, 0
    (rpt5)nop
    stp.u32 p[r0.y], r1.x, 4
    ldp.u32 r3.y, p[r0.y+12], 1
    ldp.u32 r3.z, p[r0.y+4], 1
    (sy)(nop3) shl.b r3.x, r3.y, 8
    (nop3) or.b r3.x, r3.x, r3.z
    (rpt2)nop
    stg.u32 g[r2.x], r3.x, 1
    end
  )");
  VirtualGpu gpu;
  Launch launch = launch_for(program);
  launch.local_size = {100, 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.private_bytes = 512;
  launch.constants = {split(gpu.va(VirtualGpu::kData))[0], split(gpu.va(VirtualGpu::kData))[1], 0, 0};
  gpu.run(program.words, launch);
  const auto out = gpu.get<std::uint32_t>(VirtualGpu::kData, 100);
  for (std::uint32_t i = 0; i < 100; ++i) {
    INFO("fiber " << i);
    REQUIRE(out[i] == ((i + 3) << 8 | (i + 1)));
  }

  const ir3::Program outside = ir3::assemble("mov.u32u32 r0.y, 0\n(rpt5)nop\nldp.u32 r1.x, p[r0.y+512], 1\nend\n");
  Launch outside_launch = launch_for(outside);
  outside_launch.private_bytes = 512;
  try {
    gpu.run(outside.words, outside_launch);
    FAIL("no fault");
  } catch (const virt::GpuFault& fault) {
    CHECK(fault.kind() == virt::FaultKind::shader_error);
    CHECK_THAT(fault.what(), Catch::Contains("MEMSIZEPERITEM"));
  }
}

TEST_CASE("a0.x-relative registers select a register per lane", "[virtual-gpu][ir3][control]") {
  const auto out = run_per_fiber(R"(
      mov.u32u32 r1.x, 10
      mov.u32u32 r1.y, 20
      mov.u32u32 r1.z, 30
      mov.u32u32 r1.w, 40
      (nop3) and.b r0.y, r0.x, 3
      cov.u32s16 hr0.x, r0.y
    (rpt2)nop
      mova a0.x, hr0.x
    (rpt5)nop
      mov.u32u32 r3.x, r<a0.x + 4>
  )", 64, pm4::ThreadSize::THREAD64);
  for (std::uint32_t i = 0; i < 64; ++i) {
    INFO("fiber " << i);
    REQUIRE(out[i] == 10 * (i % 4 + 1));
  }
}
