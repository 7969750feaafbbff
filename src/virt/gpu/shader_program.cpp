#include "virt/gpu/shader_program.h"

#include "adreno/error.hpp"
#include "ir3/codec.h"

#include <algorithm>

namespace adreno::virt {
namespace {

// a0.x, a1.x, p0.c and the shared file live above the per-fiber registers: not in the footprint.
constexpr int kFirstSharedRegid = ir3::kFirstSharedReg * 4;

void note(const ir3::Operand& operand, unsigned repeat, DecodedInstruction& decoded) {
  if (operand.kind != ir3::OperandKind::gpr) return;
  const int last = operand.reg + static_cast<int>(operand.repeat ? repeat : 0);
  if (operand.reg >= kFirstSharedRegid) return;
  int& max = operand.half ? decoded.max_half_regid : decoded.max_full_regid;
  max = std::max(max, last);
}

}  // namespace

ShaderProgram::ShaderProgram(std::uint64_t address, std::vector<std::uint64_t> words, ir3::Generation generation)
    : address_(address), generation_(generation), words_(std::move(words)) {
  code_.resize(words_.size());
  for (std::size_t i = 0; i < words_.size(); ++i) {
    DecodedInstruction& decoded = code_[i];
    try {
      decoded.instruction = ir3::decode(words_[i], generation_);
    } catch (const Error& error) {
      decoded.illegal = error.what();
      continue;
    }
    const ir3::Instruction& in = decoded.instruction;
    has_preamble_ = has_preamble_ || in.opcode == ir3::Opcode::shps;
    decoded.footprint = ir3::footprint(in, generation_);
    // (rptN) always advances the destination; sources advance only with (r). Vector widths
    // (ldg of 4 components) are checked at execution, where the component count is known.
    if (in.dst.kind == ir3::OperandKind::gpr && in.dst.reg < kFirstSharedRegid) {
      int& max = in.dst.half ? decoded.max_half_regid : decoded.max_full_regid;
      max = std::max(max, in.dst.reg + static_cast<int>(in.repeat));
    }
    for (const ir3::Operand& source : in.src) note(source, in.repeat, decoded);
  }
}

std::shared_ptr<const ShaderProgram> ShaderProgramCache::get(std::uint64_t address, std::span<const std::uint64_t> words) {
  std::lock_guard lock(mutex_);
  auto& slot = programs_[{address, words.size()}];
  if (slot && std::equal(slot->words().begin(), slot->words().end(), words.begin())) return slot;
  slot = std::make_shared<const ShaderProgram>(address, std::vector<std::uint64_t>(words.begin(), words.end()), generation_);
  return slot;
}

}  // namespace adreno::virt
