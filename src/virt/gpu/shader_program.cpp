#include "virt/gpu/shader_program.h"

#include "adreno/error.hpp"
#include "ir3/codec.h"
#include "ir3/legalize.h"

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

// Appends the registers `uses` touch in `in`, in the hazard check's order, with the aliases a
// merged file adds; a relative use is one entry, resolved per fiber at run time.
TouchRange list_touches(const ir3::Instruction& in, std::span<const ir3::RegisterUse> uses, std::vector<RegisterTouch>& out) {
  TouchRange range{static_cast<std::uint32_t>(out.size()), 0};
  for (std::size_t k = 0; k < uses.size(); ++k) {
    const auto use = static_cast<std::uint8_t>(k);
    if (uses[k].relative) {
      RegisterTouch touch;
      touch.use = use;
      touch.relative = true;
      out.push_back(touch);
      continue;
    }
    // Every register is reported as existing, so that its aliases are listed too; the check
    // skips an alias whose primary register is outside the dispatch's file.
    ir3::each_touched_register(in, uses[k], true, [&](unsigned regid, bool half, unsigned step, unsigned use_regid) {
      out.push_back({static_cast<std::uint16_t>(regid), static_cast<std::uint16_t>(use_regid), use,
                     static_cast<std::uint8_t>(step), half, half != uses[k].half, false});
      return true;
    });
  }
  range.end = static_cast<std::uint32_t>(out.size());
  return range;
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
    const ir3::Footprint& f = decoded.footprint;
    decoded.read_touches = list_touches(in, std::span(f.reads).first(f.read_count), touches_);
    decoded.write_touches = list_touches(in, std::span(f.writes).first(f.write_count), touches_);
    // (rptN) always advances the destination; sources advance only with (r). Vector widths
    // (ldg of 4 components) are checked at execution, where the component count is known.
    if (in.dst.kind == ir3::OperandKind::gpr && in.dst.reg < kFirstSharedRegid) {
      int& max = in.dst.half ? decoded.max_half_regid : decoded.max_full_regid;
      max = std::max(max, in.dst.reg + static_cast<int>(in.repeat));
    }
    for (const ir3::Operand& source : in.src) note(source, in.repeat, decoded);
  }
}

bool ShaderProgram::hazard_free(bool merged) const {
  const std::size_t file = merged ? 1 : 0;
  std::call_once(proved_[file], [&] {
    // A word that does not decode stops the wave with a fault where it is: for the paths it ends
    // that is an `end`.
    ir3::Instruction end;
    end.opcode = ir3::Opcode::end;
    std::vector<ir3::Instruction> code;
    code.reserve(code_.size());
    for (const DecodedInstruction& decoded : code_) code.push_back(decoded.illegal.empty() ? decoded.instruction : end);
    hazard_free_[file] =
        ir3::check(code, merged ? ir3::RegisterFile::merged : ir3::RegisterFile::split, generation_).empty();
  });
  return hazard_free_[file];
}

std::shared_ptr<const ShaderProgram> ShaderProgramCache::get(std::uint64_t address, std::span<const std::uint64_t> words) {
  std::lock_guard lock(mutex_);
  auto& slot = programs_[{address, words.size()}];
  if (slot && std::equal(slot->words().begin(), slot->words().end(), words.begin())) return slot;
  slot = std::make_shared<const ShaderProgram>(address, std::vector<std::uint64_t>(words.begin(), words.end()), generation_);
  return slot;
}

}  // namespace adreno::virt
