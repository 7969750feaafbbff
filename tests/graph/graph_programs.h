// Programs the graph tests run on the virtual GPU: Mesa's compiled `vector32` fixture
// (c[i] = a[i] + b[i] over 128 uint32 per work-group of 32) and an assembled kernel with a
// scalar argument (out[i] = in[i] + k, one uint32 per invocation).
#pragma once

#include <adreno/adreno.hpp>

#include "core/ir3_assembly.h"
#include "ir3/assembler.h"

#include <filesystem>
#include <vector>

inline constexpr std::uint32_t kAddElementsPerGroup = 128;

/// c[i] = a[i] + b[i]; arguments c, a, b. Launch with elements / 128 groups of 32.
inline adreno::Program load_add(adreno::Device& device) {
  return adreno::Program::from_ir3_fixture(
      device, std::filesystem::path(ADRENO_IR3_FIXTURES_DIR) / "vector32.json");
}

inline adreno::Launch add_launch(std::uint32_t elements) {
  return adreno::Launch{{elements / kAddElementsPerGroup, 1, 1}, {32, 1, 1}, std::nullopt};
}

/// out[lid.x] = in[lid.x] + k; arguments out (c0.xy), in (c0.zw), k (c1.x). One group.
inline adreno::Program load_add_scalar(adreno::Device& device) {
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
  )");
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
  return adreno::Program::from_ir3(device, code, m);
}
