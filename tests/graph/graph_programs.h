// Programs the graph tests run on the virtual GPU: Mesa's compiled `vector32` fixture
// (c[i] = a[i] + b[i] over 128 uint32 per work-group of 32; on an a7xx its listing assembled for
// a7xx, since the a7xx refuses Mesa's a630 words) and an assembled kernel with a scalar argument
// (out[i] = in[i] + k, one uint32 per invocation).
#pragma once

#include <adreno/adreno.hpp>

#include "../core/fixture_listing.h"
#include "../core/virtual_device.h"
#include "core/ir3_assembly.h"
#include "ir3/assembler.h"

#include <filesystem>
#include <vector>

inline constexpr std::uint32_t kAddElementsPerGroup = 128;

/// c[i] = a[i] + b[i]; arguments c, a, b. Launch with elements / 128 groups of 32.
inline adreno::Program load_add(adreno::Device& device) {
  const std::filesystem::path fixtures(ADRENO_IR3_FIXTURES_DIR);
  const adreno::ir3::Generation gen = instruction_set_of(device);
  if (gen == adreno::ir3::Generation::a6xx) return adreno::Program::from_ir3_fixture(device, fixtures / "vector32.json");
  adreno::Ir3Metadata m = adreno::load_ir3_metadata_json(fixtures / "vector32.json");
  m.compiled_for_gpu_id.reset();  // the words below are assembled for the device
  const adreno::ir3::Program assembled = adreno::ir3::assemble(
      fixture_listing_source(fixtures / "vector32.disasm.txt"),
      m.merged_regs ? adreno::ir3::RegisterFile::merged : adreno::ir3::RegisterFile::split,
      adreno::ir3::Scheduling::as_written, gen);
  m.instrlen = assembled.info.instrlen;
  std::vector<std::uint32_t> code = adreno::ir3_code_dwords(assembled);
  code.resize(std::size_t{m.instrlen} * 32, 0);  // whole 16-instruction groups
  return adreno::Program::from_ir3(device, code, m);
}

inline adreno::Launch add_launch(std::uint32_t elements) {
  return adreno::Launch{{elements / kAddElementsPerGroup, 1, 1}, {32, 1, 1}, std::nullopt};
}

/// out[lid.x] = in[lid.x] + k; arguments out (c0.xy), in (c0.zw), k (c1.x). One group.
/// `unused_scalar`: a fourth argument, a scalar (c1.y) the kernel does not read — a program whose
/// argument count differs from the add kernel's.
inline adreno::Program load_add_scalar(adreno::Device& device, bool unused_scalar = false) {
  const adreno::ir3::Program assembled = adreno::ir3::assemble(R"(
    (nop3) shl.b r1.x, r0.x, 2
    add.u r2.x, c0.z, r1.x
    mov.u32u32 r2.y, c0.w
    (rpt5)nop
    ldg.u32 r3.x, g[r2.x], 1
    add.u r4.x, c0.x, r1.x
    mov.u32u32 r4.y, c0.y
    (sy)(nop3) add.u r3.x, r3.x, c1.x
    (rpt2)nop
    stg.u32 g[r4.x], r3.x, 1
    end
  )", adreno::ir3::RegisterFile::split, adreno::ir3::Scheduling::as_written, instruction_set_of(device));
  std::vector<std::uint32_t> code = adreno::ir3_code_dwords(assembled);
  code.resize(std::size_t{assembled.info.instrlen} * 32, 0);  // whole 16-instruction groups
  adreno::Ir3Metadata m;
  m.name = "add_scalar";
  m.instrlen = assembled.info.instrlen;
  m.constlen_vec4 = 4;
  m.max_reg = assembled.info.max_reg;
  m.max_half_reg = assembled.info.max_half_reg;
  m.local_id_regid = 0;  // r0.x
  m.buffers = {{"out", 0}, {"in", 2}};
  m.scalars = {{"k", 4, 4}};
  if (unused_scalar) m.scalars.push_back({"unused", 5, 4});
  return adreno::Program::from_ir3(device, code, m);
}
