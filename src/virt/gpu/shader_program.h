// A compute program as the shader processor runs it: the words at SP_CS_BASE decoded once, with
// the register ranges each instruction touches worked out ahead of time, so that executing an
// instruction for a wave is a table lookup and a footprint compare, never a decode.
#pragma once

#include "ir3/instruction.h"
#include "ir3/scheduling.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace adreno::virt {

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

 private:
  std::uint64_t address_;
  ir3::Generation generation_;
  std::vector<std::uint64_t> words_;
  std::vector<DecodedInstruction> code_;
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
