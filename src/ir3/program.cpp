#include "ir3/program.h"

#include <adreno/error.hpp>
#include <algorithm>
#include <bit>
#include <optional>
#include <vector>

#include "ir3/codec.h"

namespace adreno::ir3 {
namespace {

bool is_global_address(Form form) {
  return form == Form::ldg || form == Form::ldg_a || form == Form::stg || form == Form::stg_a ||
         form == Form::ldg_a_a7xx || form == Form::stg_a_a7xx || form == Form::atomic_global;
}

class Footprint {
 public:
  explicit Footprint(ProgramInfo& info) : info_(info) {}

  // A register operand covering `components` consecutive regids.
  void add(const Operand& op, unsigned components) {
    if (components == 0) return;
    const auto last = static_cast<int>(op.reg + components - 1);
    if (op.kind == OperandKind::constant) {
      info_.max_const = std::max(info_.max_const, last >> 2);
      return;
    }
    if (op.kind != OperandKind::gpr) return;
    if (last >= regid(kFirstSharedReg, 0)) return;  // shared file, a0 and p0 are not per-fiber
    if (!op.half) {
      info_.max_reg = std::max(info_.max_reg, last >> 2);
    } else if (info_.register_file == RegisterFile::merged) {
      info_.max_reg = std::max(info_.max_reg, last >> 3);  // two half registers per full one
    } else {
      info_.max_half_reg = std::max(info_.max_half_reg, last >> 2);
    }
  }

 private:
  ProgramInfo& info_;
};

void collect_registers(const Instruction& in, Footprint& fp) {
  const OpcodeInfo& row = info(in.opcode);
  const unsigned rpt = in.repeat + 1u;
  const auto& m = in.mem;
  switch (row.category) {
    case 1:
      if (row.form == Form::mov_multi) {
        const bool gather = in.opcode == Opcode::gat, scatter = in.opcode == Opcode::sct;
        fp.add(in.dst, gather ? 4 : 1);
        for (std::size_t i = 0; i < 4; ++i) fp.add(in.src[i], scatter && i == 0 ? 4 : 1);
        return;
      }
      [[fallthrough]];
    case 2:
    case 3:
    case 4:
      fp.add(in.dst, rpt);
      for (const Operand& op : in.src) fp.add(op, op.repeat ? rpt : 1);
      return;
    case 5:
      fp.add(in.dst, static_cast<unsigned>(std::bit_width(in.tex.wrmask)));
      for (const Operand& op : in.src) fp.add(op, 1);
      return;
    case 6: break;
    default: return;
  }
  // Every register counts once; vectors then widen to the components the instruction moves.
  if (in.dst.kind == OperandKind::gpr) fp.add(in.dst, 1);
  for (const Operand& op : in.src) fp.add(op, 1);
  if (is_global_address(row.form)) fp.add(in.src[0], 2);  // 64-bit address pair
  switch (row.form) {
    case Form::ldg:
    case Form::ldg_a:
    case Form::ldg_a_a7xx:
    case Form::ld_local:
    case Form::ldlv:
    case Form::ldc: fp.add(in.dst, m.size); break;
    case Form::stg:
    case Form::st_local: fp.add(in.src[1], m.size); break;
    case Form::stg_a:
    case Form::stg_a_a7xx: fp.add(in.src[2], m.size); break;
    case Form::stc: fp.add(in.src[0], m.size); break;
    case Form::ibo_ldst:
      fp.add(in.src[0], m.size);
      fp.add(in.src[1], m.dim);
      break;
    default: break;
  }
}

bool touches_local_memory(Opcode op) {
  switch (op) {
    case Opcode::ldl:
    case Opcode::stl:
    case Opcode::ldlw:
    case Opcode::stlw:
    case Opcode::atomic_add:
    case Opcode::atomic_sub:
    case Opcode::atomic_xchg:
    case Opcode::atomic_inc:
    case Opcode::atomic_dec:
    case Opcode::atomic_cmpxchg:
    case Opcode::atomic_min:
    case Opcode::atomic_max:
    case Opcode::atomic_and:
    case Opcode::atomic_or:
    case Opcode::atomic_xor: return true;
    default: return false;
  }
}

}  // namespace

ProgramInfo analyze(std::span<const std::uint64_t> words, RegisterFile file, Generation gen) {
  ProgramInfo info;
  info.register_file = file;
  std::vector<std::optional<Instruction>> program;
  program.reserve(words.size());
  for (std::uint64_t word : words) {
    try {
      program.emplace_back(decode(word, gen));
    } catch (const Error&) {
      program.emplace_back(std::nullopt);  // e.g. an assembler `raw` word
    }
  }
  std::size_t count = program.size();
  for (std::size_t i = program.size(); i > 0; --i) {
    if (program[i - 1] && program[i - 1]->opcode == Opcode::end) {
      count = i;
      break;
    }
  }
  info.instruction_count = static_cast<std::uint32_t>(count);
  info.instrlen = (info.instruction_count + kInstructionsPerGroup - 1) / kInstructionsPerGroup;
  Footprint fp(info);
  for (std::size_t i = 0; i < count; ++i) {
    if (!program[i]) continue;
    const Instruction& in = *program[i];
    const OpcodeInfo& row = ir3::info(in.opcode);
    const std::uint32_t slots = in.repeat + 1u;
    info.expanded_count += slots + in.nop;
    info.per_category[row.category] += slots;
    info.per_category[0] += in.nop;
    info.nop_count += in.nop + (in.opcode == Opcode::nop ? slots : 0);
    info.ss_count += in.ss ? 1 : 0;
    info.sy_count += in.sy ? 1 : 0;
    info.has_barrier = info.has_barrier || in.opcode == Opcode::bar;
    info.uses_local_memory = info.uses_local_memory || touches_local_memory(in.opcode);
    collect_registers(in, fp);
  }
  return info;
}

}  // namespace adreno::ir3
