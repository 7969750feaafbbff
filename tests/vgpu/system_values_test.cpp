// [virtual-gpu] The registers that place system values, the entry offset and CP_RUN_OPENCL: a
// dispatch shaped like tinygrad's Qualcomm-binary path (SP_CS_CONST_CONFIG_0 = 0x00ccc0cf, grid
// from SP_CS_NDRANGE) sees its ids where those registers say.
#include "virtual_gpu.h"

#include <catch2/catch.hpp>

using namespace vgpu_test;

TEST_CASE("CP_RUN_OPENCL runs the NDRANGE grid from the entry offset with every system value in place", "[virtual-gpu][cp]") {
  // Instruction 0 is never executed (the entry offset skips it); each fiber stores
  // (linear id, wg size.x, wg offset.x + lid.x, wg id.x) at out[16 * global id].
  const ir3::Program program = ir3::assemble(R"(
    raw 0xffffffffffffffff
    (nop3) add.u r1.x, r51.x, r0.x
    (nop3) shl.b r1.y, r1.x, 4
    add.u r2.x, c0.x, r1.y
    mov.u32u32 r2.y, c0.y
    mov.u32u32 r3.x, r0.w
    mov.u32u32 r3.y, r48.x
    mov.u32u32 r3.z, r1.x
    mov.u32u32 r3.w, r51.w
    (rpt5)nop
    stg.u32 g[r2.x], r3.x, 4
    end
  )");
  for (auto size : {pm4::ThreadSize::THREAD64, pm4::ThreadSize::THREAD128}) {
    VirtualGpu gpu;
    Launch launch = launch_for(program);
    launch.full_footprint = 4;
    launch.local_size = {96, 1, 1};
    launch.groups = {5, 1, 1};
    launch.thread_size = size;
    launch.run_opencl = true;
    launch.entry_offset = 8;
    launch.local_id_regid = ir3::regid(0, 0);
    launch.linear_local_id_regid = ir3::regid(0, 3);
    launch.work_group_id_regid = 0xcf;      // r51.w
    launch.work_group_size_regid = 0xc0;    // r48.x
    launch.work_group_offset_regid = 0xcc;  // r51.x
    launch.constants = {static_cast<std::uint32_t>(gpu.va(VirtualGpu::kData)), static_cast<std::uint32_t>(gpu.va(VirtualGpu::kData) >> 32), 0, 0};
    gpu.run(program.words, launch);
    const auto out = gpu.get<std::uint32_t>(VirtualGpu::kData, 96 * 5 * 4);
    for (std::uint32_t g = 0; g < 5; ++g) {
      for (std::uint32_t i = 0; i < 96; ++i) {
        const std::uint32_t global = g * 96 + i;
        INFO("group " << g << " fiber " << i);
        REQUIRE(out[global * 4 + 0] == i);
        REQUIRE(out[global * 4 + 1] == 96);
        REQUIRE(out[global * 4 + 2] == global);
        REQUIRE(out[global * 4 + 3] == g);
      }
    }
  }
}

TEST_CASE("global and local atomics combine every fiber's operand exactly once", "[virtual-gpu][ir3][atomics]") {
  // Every fiber adds lid + 1 to a global counter and keeps the old value; within the group it
  // also takes the max of (lid * 7) mod 101 in l[0] and, after a barrier, stores what it sees.
  const ir3::Program program = ir3::assemble(R"(
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    (nop3) add.u r1.z, r0.x, 1
    (rpt2)nop
    atomic.g.add.untyped.1d.u32.1.g r2.x, r1.x, r1.z
    mul.u24 r1.w, r0.x, 7
    mov.u32u32 r3.x, 0
    mov.u32u32 r3.y, 101
    nop
    mov.u32u32 r3.z, r1.w
  mod:
    (rpt2)nop
    (nop3) cmps.u.lt p0.x, r3.z, r3.y
    (rpt2)nop
    br p0.x, #done
    sub.u r3.z, r3.z, r3.y
    jump #mod
  done:
    (jp)atomic.max.untyped.1d.u32.1.l r2.y, l[r3.x], r3.z
    bar
    (ss)nop
    (sy)ldl.u32 r2.z, l[r3.x], 1
    (nop3) shl.b r4.x, r0.x, 3
    add.u r4.x, r4.x, 8
    (nop3) mul.u24 r4.y, r48.x, c0.z
    (nop3) add.u r4.x, r4.x, r4.y
    add.u r5.x, c0.x, r4.x
    mov.u32u32 r5.y, c0.y
    (rpt5)nop
    (sy)stg.u32 g[r5.x], r2.x, 1
    (ss)(nop3) add.u r5.x, r5.x, 4
    (rpt2)nop
    stg.u32 g[r5.x], r2.z, 1
    end
  )");
  VirtualGpu gpu;
  Launch launch = launch_for(program);
  launch.local_size = {128, 1, 1};
  launch.groups = {6, 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.work_group_id_regid = ir3::regid(48, 0);
  launch.constants = {static_cast<std::uint32_t>(gpu.va(VirtualGpu::kData)), static_cast<std::uint32_t>(gpu.va(VirtualGpu::kData) >> 32),
                      258 * 4 /* bytes per group */, 0};
  gpu.put(VirtualGpu::kData, std::vector<std::uint32_t>(6 * 258 + 2, 0));
  gpu.run(program.words, launch);
  const auto out = gpu.get<std::uint32_t>(VirtualGpu::kData, 6 * 258 + 2);
  // 6 groups each add 1 + 2 + ... + 128.
  CHECK(out[0] == 6 * (128 * 129 / 2));
  std::uint32_t group_max = 0;
  for (std::uint32_t i = 0; i < 128; ++i) group_max = std::max(group_max, i * 7 % 101);
  std::vector<std::uint32_t> olds;
  for (std::uint32_t g = 0; g < 6; ++g) {
    for (std::uint32_t i = 0; i < 128; ++i) {
      const std::uint32_t at = 2 + g * 258 + i * 2;
      INFO("group " << g << " fiber " << i);
      REQUIRE(out[at + 1] == group_max);
      olds.push_back(out[at]);
    }
  }
  // The old values are the running totals before each add: all distinct and below the total.
  std::sort(olds.begin(), olds.end());
  CHECK(std::adjacent_find(olds.begin(), olds.end()) == olds.end());
  CHECK(olds.front() == 0);
  CHECK(olds.back() < out[0]);
}

TEST_CASE("every work group starts from zeroed registers and private memory, whatever the groups before it left",
          "[virtual-gpu][ir3][private]") {
  // Each fiber stores r2.x + p[0] as it finds them, then leaves the group's id + 1 in both; a
  // host thread runs many groups in turn, on the same waves.
  const ir3::Program program = ir3::assemble(R"(
    @localsize 64, 1, 1
    @invocationid(r0.x)
    @wgid(r48.x)
    shl.b r1.x, r48.x, 8
    shl.b r1.y, r0.x, 2
    add.u r1.x, r1.x, r1.y
    add.u r1.x, r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r3.x, 0
    ldp.u32 r3.y, p[r3.x], 1
    add.u r3.z, r2.x, r3.y
    stg.u32 g[r1.x], r3.z, 1
    add.u r2.x, r48.x, 1
    stp.u32 p[r3.x], r2.x, 1
    end
  )", ir3::RegisterFile::split, ir3::Scheduling::legalize);
  VirtualGpu gpu;
  constexpr std::uint32_t kGroups = 256;
  std::vector<std::uint32_t> poison(kGroups * 64, 0xdeadbeef);
  gpu.put(VirtualGpu::kData, poison);
  Launch launch = launch_for(program);
  launch.groups = {kGroups, 1, 1};
  launch.private_bytes = 512;
  const std::uint64_t out = gpu.va(VirtualGpu::kData);
  launch.constants = {static_cast<std::uint32_t>(out), static_cast<std::uint32_t>(out >> 32), 0, 0};
  gpu.run(program.words, launch);
  CHECK(gpu.get<std::uint32_t>(VirtualGpu::kData, kGroups * 64) == std::vector<std::uint32_t>(kGroups * 64, 0));
}
