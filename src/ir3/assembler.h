// Assembler: ir3 source text (Mesa's syntax, plus computerator-style @directives) to a program
// binary and the metadata a runtime needs to launch it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <adreno/regid.hpp>

#include "ir3/instruction.h"
#include "ir3/program.h"

namespace adreno::ir3 {

/// A buffer the program expects: `@buf SIZE [(cN.c)] [v0, v1, ...]`, or `@ubo ...` for a uniform
/// buffer (Mesa computerator syntax). Both kinds count in one list, in source order; each kind's
/// slots are numbered in that order (computerator a6xx.cc cs_uav_emit, cs_ubo_emit).
struct BufferSlot {
  bool uniform = false;  ///< @ubo: a UBO slot read with ldc / ldc.k; else @buf: a UAV (IBO) slot
  std::uint32_t size_dwords = 0;
  std::optional<std::uint16_t> address_const;  ///< const regid where its 64-bit address goes
  std::vector<std::uint32_t> initial;          ///< initial contents, if given
};

/// `@const(cN.c) a, b, c, d`: four dwords to preload at a const regid.
struct ConstValues {
  std::uint16_t regid = 0;
  std::array<std::uint32_t, 4> values{};
};

/// The launch-facing facts declared by directives.
struct LaunchInfo {
  std::array<std::uint32_t, 3> local_size{1, 1, 1};    ///< @localsize X, Y, Z
  std::uint16_t local_id_regid = kUnusedRegid;         ///< @invocationid(rN.c)
  std::uint16_t work_group_id_regid = kUnusedRegid;    ///< @wgid(rN.c)
  std::optional<std::uint16_t> num_work_groups_const;  ///< @numwg(cN.c)
  std::optional<std::uint32_t> branch_stack;           ///< @branchstack N (the compiler's depth)
  std::optional<std::uint32_t> local_memory_bytes;     ///< @localmem N
  std::optional<std::uint32_t> private_memory_bytes;   ///< @pvtmem N (per fiber)
  bool early_preamble = false;                         ///< @earlypreamble: SP_CS_CNTL_0 EARLYPREAMBLE
  std::vector<BufferSlot> buffers;
  std::vector<ConstValues> constants;
};

struct Program {
  std::vector<std::uint64_t> words;
  ProgramInfo info;  ///< analyze(words)
  LaunchInfo launch;
  Generation generation = Generation::a6xx;  ///< the instruction set the words are in
};

/// How assemble() schedules the code: exactly as written, or through the legalizer
/// (legalize.h), which adds the (sy)/(ss) flags and delay slots the code lacks.
enum class Scheduling { as_written, legalize };

/// Assembles `source`. Lines hold one instruction, a `label:`, a directive or nothing; `;` and
/// `//` start comments; `raw 0x<16 hex digits>` emits a word verbatim. Directives are Mesa's
/// (ir3_lexer.l, ir3_parser.y) with computerator's meanings; `@fullnopstart`..`@fullnopend` puts
/// a `(rpt5)nop` and `@fullsyncstart`..`@fullsyncend` a `(ss)(sy)nop` before each instruction, as
/// Mesa's parser does. Directives compute kernels cannot use (@in, @out, @tex) are refused
/// saying so. Branch targets are
/// `#offset` or `#label`. Throws adreno::Error(malformed) whose detail starts with
/// "line:column:" and names the offending token. The source is in the instruction set of `gen`:
/// an instruction or form of the other generation only is refused, naming it.
Program assemble(std::string_view source, RegisterFile file = RegisterFile::split,
                 Scheduling scheduling = Scheduling::as_written, Generation gen = Generation::a6xx);

/// `source` with the waits the legalizer adds written into it: flags prefixed to the lines that
/// need them, `(rptN)nop` lines inserted (after any label on the line), comments kept.
std::string legalize_source(std::string_view source, RegisterFile file = RegisterFile::split,
                            Generation gen = Generation::a6xx);

}  // namespace adreno::ir3
