// A compute program as the shader processor runs it: the words at SP_CS_BASE decoded once, with
// the register ranges each instruction touches worked out ahead of time, so that executing an
// instruction for a wave is a table lookup and a footprint compare, never a decode.
#pragma once

#include "ir3/instruction.h"
#include "ir3/scheduling.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace adreno::virt {

/// One register an operand of an instruction touches, in the order the hazard check visits them
/// (ir3::each_touched_register): worked out when the program is decoded, so that the check walks
/// a short array instead of the operand rules at every issue.
struct RegisterTouch {
  std::uint16_t regid = 0;      ///< in the half or full file, as each_touched_register names it
  std::uint16_t use_regid = 0;  ///< the register the operand names (the one a message names)
  std::uint8_t use = 0;         ///< index into the footprint's reads or writes
  std::uint8_t step = 0;        ///< the (rptN) repetition touching it
  bool half = false;
  /// A merged file's other-size register sharing the bits of the touch before it (hrN is half of
  /// r(N/2)): visited only with a merged file, and only when that register exists.
  bool alias = false;
  /// r<a0.x + N>: the register is known per fiber at run time only; the check visits the use then.
  bool relative = false;
};

/// Where an instruction's touches lie in ShaderProgram::touches().
struct TouchRange {
  std::uint32_t begin = 0, end = 0;
};

struct DecodedInstruction {
  ir3::Instruction instruction;
  /// Empty when the word decodes; otherwise why it does not (executing it is a shader error,
  /// but a program may carry undecodable words it never reaches, e.g. data after `end`).
  std::string illegal;
  /// Highest full / half regid below the shared file that a direct operand reaches, counting
  /// (rptN); -1 if none. Compared against the dispatch's footprint before the instruction runs.
  int max_full_regid = -1;
  int max_half_regid = -1;
  /// Registers read and written and the scheduling class, for the timing-hazard check.
  ir3::Footprint footprint;
  /// The registers the footprint's reads and writes touch, with their merged-file aliases.
  TouchRange read_touches, write_touches;
};

class ShaderProgram {
 public:
  /// `words` decoded as the instruction set of `generation` (the GPU model's).
  ShaderProgram(std::uint64_t address, std::vector<std::uint64_t> words, ir3::Generation generation);

  std::uint64_t address() const noexcept { return address_; }
  ir3::Generation generation() const noexcept { return generation_; }
  std::span<const std::uint64_t> words() const noexcept { return words_; }
  std::size_t size() const noexcept { return code_.size(); }
  const DecodedInstruction& operator[](std::size_t index) const noexcept { return code_[index]; }
  /// The program has a preamble (an shps), which the first wave to reach it runs once per dispatch.
  bool has_preamble() const noexcept { return has_preamble_; }
  /// No path from the first instruction reaches a timing hazard with a merged or split register
  /// file: the static checker (ir3::check, which follows every branch and loop to a fixed point,
  /// and takes a relative operand for any register) finds none, not even a possible one. Every
  /// fiber runs one such path, and the wave's check holds each to the same rules (scheduling.h),
  /// so it could report nothing: waves of the program skip it. Worked out once per register file,
  /// the first time a dispatch asks.
  bool hazard_free(bool merged) const;
  /// The registers `range` of an instruction touches.
  std::span<const RegisterTouch> touches(TouchRange range) const noexcept {
    return std::span(touches_).subspan(range.begin, range.end - range.begin);
  }

 private:
  std::uint64_t address_;
  ir3::Generation generation_;
  std::vector<std::uint64_t> words_;
  std::vector<DecodedInstruction> code_;
  std::vector<RegisterTouch> touches_;
  mutable std::array<std::once_flag, 2> proved_;  // by register file: split, merged
  mutable std::array<bool, 2> hazard_free_{};
  bool has_preamble_ = false;
};

/// Programs by GPU address and size, decoded for one GPU generation. A hit still compares the
/// words, because a buffer can be rewritten with another program at the same address; a compare
/// is far cheaper than a decode, and allocates nothing.
class ShaderProgramCache {
 public:
  explicit ShaderProgramCache(ir3::Generation generation) : generation_(generation) {}

  std::shared_ptr<const ShaderProgram> get(std::uint64_t address, std::span<const std::uint64_t> words);

 private:
  ir3::Generation generation_;
  std::mutex mutex_;
  std::map<std::pair<std::uint64_t, std::size_t>, std::shared_ptr<const ShaderProgram>> programs_;
};

}  // namespace adreno::virt
