// [virtual-gpu] Uniform buffers and preambles on the virtual shader processor: ldc reads a UBO
// slot loaded with CP_LOAD_STATE6 ST6_UBO (the descriptor written here by hand from Mesa's
// a6xx_descriptors.xml A6XX_UBO: dword 0 the base's low half, dword 1 its high bits and SIZE in
// vec4s from bit 17), a preamble (shps … shpe) runs once per dispatch and alone writes the
// constant file (stc, ldc.k), and what the hardware would not run is a shader error.
#include "virtual_gpu.h"

#include <catch2/catch.hpp>

#include <random>

using namespace vgpu_test;

namespace {

std::vector<std::uint32_t> ubo_descriptor(std::uint64_t base, std::uint32_t size_vec4s) {
  return {static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(base >> 32) | size_vec4s << 17};
}

std::string shader_error(const ir3::Program& program, const Launch& launch) {
  VirtualGpu gpu;
  try {
    gpu.run(program.words, launch);
  } catch (const virt::GpuFault& fault) {
    CHECK(fault.kind() == virt::FaultKind::shader_error);
    return fault.what();
  }
  return "no fault";
}

}  // namespace

// Kills: ldc was "not modelled" (a shader error for every UBO read).
TEST_CASE("ldc reads a loaded UBO by vec4 and component, and zero beyond its SIZE", "[virtual-gpu][ubo]") {
  // Lane i loads 3 components from vec4 i of UBO 1, starting at component 1, and stores them
  // at dwords 4i..4i+2 of the buffer at c0.xy.
  const ir3::Program program = ir3::assemble(R"(
    @localsize 64, 1, 1
    @invocationid(r0.x)
    ldc.offset1.3.imm r1.x, r0.x, 1
    shl.b r2.x, r0.x, 4
    (rpt5)nop
    add.u r2.x, c0.x, r2.x
    mov.u32u32 r2.y, c0.y
    (sy)(rpt5)nop
    stg.u32 g[r2.x], r1.x, 3
    end
  )");
  VirtualGpu gpu;
  const std::uint64_t ubo_at = VirtualGpu::kData, out_at = VirtualGpu::kData + 0x10000;
  std::mt19937 rng(1405);
  std::vector<std::uint32_t> contents(64 * 4);
  for (auto& v : contents) v = static_cast<std::uint32_t>(rng());
  gpu.put(ubo_at, contents);
  gpu.put(out_at, std::vector<std::uint32_t>(64 * 4, 0x5eed5eed));
  Launch launch = launch_for(program);
  // Slot 0 a decoy; slot 1 holds 40 of the 64 vec4s: lanes 40..63 read past its SIZE.
  launch.ubos = ubo_descriptor(gpu.va(out_at), 64);
  const auto slot1 = ubo_descriptor(gpu.va(ubo_at), 40);
  launch.ubos.insert(launch.ubos.end(), slot1.begin(), slot1.end());
  launch.constants = {static_cast<std::uint32_t>(gpu.va(out_at)), static_cast<std::uint32_t>(gpu.va(out_at) >> 32), 0, 0};
  gpu.run(program.words, launch);
  const auto out = gpu.get<std::uint32_t>(out_at, 64 * 4);
  for (std::uint32_t lane = 0; lane < 64; ++lane) {
    for (std::uint32_t c = 0; c < 3; ++c) {
      INFO("lane " << lane << " component " << c);
      CHECK(out[4 * lane + c] == (lane < 40 ? contents[4 * lane + 1 + c] : 0u));
    }
    CHECK(out[4 * lane + 3] == 0x5eed5eedu);
  }
}

// Kills: an ldc from a slot nothing loaded read whatever the table held (or nothing at all).
TEST_CASE("ldc from a UBO slot no CP_LOAD_STATE6 loaded is a shader error", "[virtual-gpu][ubo][faults]") {
  const ir3::Program program = ir3::assemble("ldc.offset0.1.imm r1.x, 0, 2\n(sy)nop\nend\n");
  Launch launch = launch_for(program);
  launch.ubos = ubo_descriptor(0x100000000ull, 1);  // slot 0 only
  CHECK_THAT(shader_error(program, launch), Catch::Contains("UBO slot 2 is not bound"));
  launch.ubos.clear();
  CHECK_THAT(shader_error(program, launch), Catch::Contains("UBO slot 2 is not bound"));
}

// Kills: shps/getone/shpe and stc were "not modelled"; a preamble that ran in every wave would
// count more than once.
TEST_CASE("a preamble runs once per dispatch and its stc constants reach every work group", "[virtual-gpu][preamble]") {
  // The preamble (one fiber of the first wave) adds 1 to the counter at c0.xy and stores 7, 8 to
  // c1.x, c1.y; every fiber then writes c1.x + c1.y + its global index to out (c0.zw).
  const ir3::Program program = ir3::assemble(R"(
    @localsize 128, 1, 1
    @invocationid(r0.x)
    @wgid(r48.x)
    shps #main
    getone #main
    mov.u32u32 r2.x, c0.x
    mov.u32u32 r2.y, c0.y
    (rpt5)nop
    ldg.u32 r3.x, g[r2.x], 1
    mov.u32u32 r4.x, 7
    mov.u32u32 r4.y, 8
    (sy)(rpt5)nop
    add.u r3.x, r3.x, 1
    (rpt5)nop
    stg.u32 g[r2.x], r3.x, 1
    stc.u32 c[4], r4.x, 2
    (sy)(ss)shpe
    main:
    (jp)shl.b r1.x, r48.x, 7
    (rpt5)nop
    add.u r1.x, r1.x, r0.x
    (rpt5)nop
    shl.b r1.y, r1.x, 2
    add.u r1.x, r1.x, c1.x
    (rpt5)nop
    add.u r1.x, r1.x, c1.y
    add.u r2.x, c0.z, r1.y
    mov.u32u32 r2.y, c0.w
    (rpt5)nop
    stg.u32 g[r2.x], r1.x, 1
    end
  )");
  VirtualGpu gpu;
  const std::uint64_t counter_at = VirtualGpu::kData, out_at = VirtualGpu::kData + 0x1000;
  constexpr std::uint32_t kGroups = 6, kFibers = 128;
  gpu.put(counter_at, std::vector<std::uint32_t>{0});
  Launch launch = launch_for(program);
  launch.groups = {kGroups, 1, 1};
  launch.constants = {static_cast<std::uint32_t>(gpu.va(counter_at)), static_cast<std::uint32_t>(gpu.va(counter_at) >> 32),
                      static_cast<std::uint32_t>(gpu.va(out_at)), static_cast<std::uint32_t>(gpu.va(out_at) >> 32),
                      0, 0, 0, 0};
  gpu.run(program.words, launch);
  CHECK(gpu.get<std::uint32_t>(counter_at, 1)[0] == 1u);
  const auto out = gpu.get<std::uint32_t>(out_at, kGroups * kFibers);
  for (std::uint32_t i = 0; i < kGroups * kFibers; ++i) {
    INFO("fiber " << i);
    CHECK(out[i] == i + 15);
  }
}

TEST_CASE("constant writes outside a preamble and malformed preambles are shader errors", "[virtual-gpu][preamble][faults]") {
  const auto error_of = [](const std::string& source, bool early = false) {
    const ir3::Program program = ir3::assemble(source);
    Launch launch = launch_for(program);
    launch.constants = {0, 0, 0, 0};
    launch.ubos = ubo_descriptor(0x100000000ull, 4);
    launch.early_preamble = early;
    return shader_error(program, launch);
  };
  CHECK_THAT(error_of("mov.u32u32 r48.x, 1\n(ss)(rpt5)nop\nstc.u32 c[0], r48.x, 1\nend\n"),
             Catch::Contains("stc outside a preamble"));
  CHECK_THAT(error_of("mova1 a1.x, 0\n(rpt5)nop\nldc.1.k.imm c[a1.x], 0, 0\nend\n"), Catch::Contains("ldc.k outside a preamble"));
  CHECK_THAT(error_of("(sy)(ss)shpe\nend\n"), Catch::Contains("shpe outside a preamble"));
  CHECK_THAT(error_of("shps #1\ngetone #1\nshpe\nend\n"), Catch::Contains("shpe without (ss)(sy)"));
  CHECK_THAT(error_of("shps #2\ngetone #1\nend\n"), Catch::Contains("end inside the preamble"));
  // Mesa's early preamble touches no GPR: r1 there is an error, r48 (shared) is not.
  const std::string gpr_preamble = "shps #4\ngetone #3\nmov.u32u32 r1.x, 1\n(sy)(ss)shpe\nend\n";
  CHECK_THAT(error_of(gpr_preamble, true), Catch::Contains("early preamble (SP_CS_CNTL_0 EARLYPREAMBLE) reaches a per-fiber register"));
  CHECK(error_of(gpr_preamble, false) == "no fault");
  CHECK(error_of("shps #4\ngetone #3\nmov.u32u32 r48.x, 1\n(sy)(ss)shpe\nend\n", true) == "no fault");
  // ldc.k moves whole groups of 4 vec4s (ir3-cat6.xml ldc.k).
  CHECK_THAT(error_of("shps #6\ngetone #5\nmova1 a1.x, 4\n(rpt5)nop\nldc.1.k.imm c[a1.x], 0, 0\n(sy)(ss)shpe\nend\n"),
             Catch::Contains("both must be multiples of 4 vec4s"));
}
