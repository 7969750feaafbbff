// Small programs for dispatch tests: ir3 metadata over code that ends at once (the virtual GPU
// runs it: a dispatch of it completes, so a test that submits one sees it retire, never hang),
// and Qualcomm binaries from the builder.
#pragma once

#include <adreno/program.hpp>

#include "qualcomm_binary_builder.h"

#include <cstddef>
#include <vector>

/// 256 bytes of code, two 128-byte instruction groups, of nops with an `end` at instruction
/// `entry` (the first one a dispatch runs). The encoding of `end` is Mesa's test vector
/// (src/freedreno/ir3/tests/disasm.c: 03000000_00000000 "end"), low dword first; only the public
/// API is used here because the C API tests' tool shares this header.
inline std::vector<std::uint32_t> code_ending_at(std::size_t entry) {
  std::vector<std::uint32_t> code(64, 0);
  code.at(entry * 2 + 1) = 0x03000000;
  return code;
}

/// code_ending_at its first instruction.
inline std::vector<std::uint32_t> placeholder_code() { return code_ending_at(0); }

/// ir3 metadata of a program with three buffer pointers at c0.xy, c0.zw, c1.xy (the fixtures'
/// layout) and a 4-byte scalar at c1.z.
inline adreno::Ir3Metadata three_buffer_metadata() {
  adreno::Ir3Metadata m;
  m.name = "three_buffers";
  m.instrlen = 2;
  m.constlen_vec4 = 4;
  m.max_reg = 6;
  m.max_half_reg = 0;
  m.local_id_regid = 0;
  m.work_group_id_regid = 192;
  m.buffers = {{"c", 0}, {"a", 2}, {"b", 4}};
  m.scalars = {{"n", 6, 4}};
  return m;
}

/// A Qualcomm binary with two buffers, a texture, a storage image and a sampler.
inline ClBinaryBuilder image_kernel_binary() {
  ClBinaryBuilder b;
  b.name = "image_kernel";
  b.fregs = 10;
  b.hregs = 2;
  b.entry_offset = 0x20;  // instruction 4: what runs first must be the `end`
  b.code = code_ending_at(b.entry_offset / 8);
  b.samplers = 1;
  b.pvtmem = 700;
  b.shmem = 3000;
  b.arguments = {{0, 0}, {1, 0}, {2, 0}, {0, 2}};
  return b;
}
