// What a runtime needs to know about a program, computed from its decoded instructions the way
// Mesa's collect_reg_info() in src/freedreno/ir3/ir3.c computes it: a register counts up to
// regid + components - 1, registers from r48 up (the shared file) do not count, and half
// registers either have their own footprint or, merged, count as half of a full register.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "ir3/generation.h"

namespace adreno::ir3 {

/// How half registers are allocated (SP_CS_CNTL_0 MERGEDREGS): split gives them their own file
/// and footprint; merged packs two half registers into each full one.
enum class RegisterFile { split, merged };

struct ProgramInfo {
  RegisterFile register_file = RegisterFile::split;
  std::uint32_t instruction_count = 0;  ///< instructions through the last `end` (all if none)
  std::uint32_t instrlen = 0;           ///< SP_CS_INSTR_SIZE: groups of 16 instructions (128 B)
  int max_reg = -1;                     ///< highest full vec4 register written or read
  int max_half_reg = -1;                ///< highest half vec4 register (split file only)
  int max_const = -1;                   ///< highest const vec4 read directly
  std::uint32_t expanded_count = 0;     ///< instructions counting (rptN) and (nopN) expansion
  std::uint32_t nop_count = 0;          ///< nop slots, including (nopN)
  std::array<std::uint32_t, 8> per_category{};  ///< expanded count per category
  std::uint32_t ss_count = 0, sy_count = 0;
  bool has_barrier = false;
  bool uses_local_memory = false;

  std::uint32_t full_footprint_vec4() const { return static_cast<std::uint32_t>(max_reg + 1); }
  std::uint32_t half_footprint_vec4() const { return static_cast<std::uint32_t>(max_half_reg + 1); }
};

/// Instructions in 128-byte (16-instruction) units that SP_CS_INSTR_SIZE counts.
inline constexpr std::uint32_t kInstructionsPerGroup = 16;

/// Metadata of a program's words (instructions of `gen`). Words that decode to no instruction
/// still count as instructions (they occupy a slot) but contribute no registers.
ProgramInfo analyze(std::span<const std::uint64_t> words, RegisterFile file = RegisterFile::split,
                    Generation gen = Generation::a6xx);

}  // namespace adreno::ir3
