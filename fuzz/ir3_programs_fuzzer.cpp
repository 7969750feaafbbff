// Random but well-formed ir3 programs on the virtual GPU. The input picks, for each of up to 48
// instructions, an opcode from the instruction table (src/ir3/opcodes.h; its a6xx rows) and operands of the kind
// its form takes — registers in a small footprint, constants, immediates, branch targets inside
// the program — and the instruction is kept only when the encoder accepts it (a few tries, then
// a nop), so every word is one the assembler could have written. Some programs are legalized
// first (the assembler's (sy)/(ss)/delay-slot placement), so they get past the timing-hazard check
// and run their semantics. The program then runs as a compute dispatch (tests/vgpu/virtual_gpu.h:
// the same PM4 a runtime emits, read by the virtual command processor) with buffers, constants,
// storage-buffer descriptors, local and private memory to reach, and a small hang detector.
//
// What may happen: the dispatch completes, or the GPU reports a fault (GpuFault: a page fault,
// shader error, CP error or hang), as hardware reports a misbehaving shader. Anything else — a
// crash, a sanitizer report, another exception — is a bug in the virtual GPU.
#include "../tests/vgpu/virtual_gpu.h"

#include "ir3/codec.h"
#include "ir3/legalize.h"
#include "ir3/program.h"
#include "pm4/a6xx_descriptors.h"
#include "virt/gpu/gpu_fault.h"

#include <adreno/error.hpp>
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

namespace {

using namespace adreno;
using ir3::Form;
using ir3::Instruction;
using ir3::Operand;
using ir3::OperandKind;
using ir3::Type;

constexpr unsigned kMaxInstructions = 48;
constexpr unsigned kRegisters = 8;   // r0..r7 (and hr0..hr7): a small footprint, so values meet
constexpr unsigned kConstants = 16;  // c0..c15, loaded below
constexpr std::uint64_t kDataBytes = 64 * 1024;
constexpr auto kHangTimeout = std::chrono::milliseconds(30);

class ProgramGenerator {
 public:
  explicit ProgramGenerator(FuzzedDataProvider& input) : in_(input) {}

  std::vector<std::uint64_t> generate() {
    const unsigned count = in_.ConsumeIntegralInRange<unsigned>(1, kMaxInstructions);
    std::vector<Instruction> code;
    for (unsigned pc = 0; pc < count && in_.remaining_bytes() > 0; ++pc) code.push_back(instruction(pc, count));
    Instruction end;
    end.opcode = ir3::Opcode::end;
    code.push_back(end);
    if (in_.ConsumeBool()) {
      std::vector<Instruction> legal;
      for (const ir3::Placed& placed : ir3::legalize(code)) legal.push_back(placed.instruction);
      code = std::move(legal);
    }
    std::vector<std::uint64_t> words;
    for (const Instruction& instruction : code) {
      try {
        words.push_back(ir3::encode(instruction));
      } catch (const Error&) {  // the legalizer moved a branch target out of its field
        words.push_back(0);    // nop
      }
    }
    return words;
  }

 private:
  // One instruction at `pc` of `count`: a table row, then up to four attempts at operands the
  // encoder takes; a nop if none.
  Instruction instruction(unsigned pc, unsigned count) {
    const std::vector<const ir3::OpcodeInfo*>& rows = a6xx_rows();
    const ir3::OpcodeInfo& row = *rows[in_.ConsumeIntegralInRange<std::size_t>(0, rows.size() - 1)];
    for (int attempt = 0; attempt < 4; ++attempt) {
      Instruction candidate = fill(row, pc, count);
      try {
        (void)ir3::encode(candidate);
        return candidate;
      } catch (const Error&) {
      }
    }
    return Instruction{};
  }

  // The table's rows that exist on a6xx, the virtual GPU's generation here.
  static const std::vector<const ir3::OpcodeInfo*>& a6xx_rows() {
    static const std::vector<const ir3::OpcodeInfo*> rows = [] {
      std::vector<const ir3::OpcodeInfo*> found;
      for (const ir3::OpcodeInfo* row = ir3::opcode_table_begin(); row != ir3::opcode_table_end(); ++row) {
        if (ir3::exists_on(row->gens, ir3::Generation::a6xx)) found.push_back(row);
      }
      return found;
    }();
    return rows;
  }

  unsigned pick(unsigned low, unsigned high) { return in_.ConsumeIntegralInRange<unsigned>(low, high); }
  bool chance(unsigned one_in) { return pick(1, one_in) == 1; }

  Operand gpr(bool half) {
    Operand op;
    op.kind = OperandKind::gpr;
    op.half = half;
    op.reg = static_cast<std::uint16_t>(pick(0, kRegisters * 4 - 1));
    return op;
  }
  // A destination: mostly a register, sometimes p0.x or a0.x.
  Operand destination(bool half) {
    Operand op = gpr(half);
    if (chance(12)) op.reg = ir3::regid(ir3::kPredicateReg, pick(0, 3)), op.half = false;
    return op;
  }
  Operand constant(bool half) {
    Operand op;
    op.kind = OperandKind::constant;
    op.half = half;
    op.reg = static_cast<std::uint16_t>(pick(0, kConstants * 4 - 1));
    return op;
  }
  Operand immediate(std::int32_t low, std::int32_t high) {
    Operand op;
    op.kind = OperandKind::immediate;
    op.value = in_.ConsumeIntegralInRange<std::int32_t>(low, high);
    return op;
  }
  // An ALU source: a register, a constant, an immediate or (rarely) relative to a0.x.
  Operand alu_source(bool half, bool immediates = true) {
    switch (pick(0, 9)) {
      case 0: case 1: return constant(half);
      case 2: if (immediates) return immediate(-512, 511); break;
      case 3:
        if (chance(3)) {
          Operand op;
          op.kind = chance(2) ? OperandKind::relative_gpr : OperandKind::relative_const;
          op.value = in_.ConsumeIntegralInRange<std::int32_t>(-8, 15);
          op.half = half;
          return op;
        }
        break;
      default: break;
    }
    Operand op = gpr(half);
    op.neg = chance(6);
    op.abs = chance(8);
    return op;
  }
  // A branch offset whose target stays inside the program (mostly forward: loops hang).
  std::int32_t target(unsigned pc, unsigned count) {
    if (chance(8)) return -static_cast<std::int32_t>(pick(0, pc));
    return static_cast<std::int32_t>(pick(1, count - pc + 1));
  }
  Type type() { return static_cast<Type>(pick(0, 7)); }

  Instruction fill(const ir3::OpcodeInfo& row, unsigned pc, unsigned count) {
    Instruction in;
    in.opcode = row.opcode;
    const bool half = chance(4);
    // Scheduling flags, where the category has them (the encoder refuses the others).
    in.sy = chance(6);
    in.jp = chance(16);
    if (row.category != 5 && row.category != 6) in.ss = chance(6);
    auto& mem = in.mem;
    switch (row.form) {
      case Form::flow_bare:
        if (row.opcode == ir3::Opcode::nop) in.repeat = static_cast<std::uint8_t>(pick(0, 5));
        break;
      case Form::flow_immed: in.flow.target = target(pc, count); break;
      case Form::flow_branch2:
        in.flow.invert[1] = chance(2);
        in.flow.comp[1] = static_cast<std::uint8_t>(pick(0, 3));
        [[fallthrough]];
      case Form::flow_branch:
        in.flow.target = target(pc, count);
        [[fallthrough]];
      case Form::flow_kill:
        in.flow.invert[0] = chance(2);
        in.flow.comp[0] = static_cast<std::uint8_t>(pick(0, 3));
        break;
      case Form::flow_brac:
        in.flow.target = target(pc, count);
        in.flow.index = static_cast<std::uint8_t>(pick(0, 7));
        break;
      case Form::flow_getlast:
        in.flow.target = target(pc, count);
        in.flow.index = static_cast<std::uint8_t>(pick(0, 3));
        break;
      case Form::mov: {
        in.src_type = type();
        in.type = type();
        in.round = static_cast<std::uint8_t>(pick(0, 3));
        in.repeat = static_cast<std::uint8_t>(chance(4) ? pick(1, 3) : 0);
        in.dst = gpr(ir3::is_cat1_half(in.type));
        if (chance(10)) in.dst.reg = ir3::regid(ir3::kAddressReg, 0), in.src_type = in.type = Type::s16;  // mova
        in.src[0] = chance(3) ? immediate(-100000, 100000) : alu_source(ir3::is_cat1_half(in.src_type), false);
        in.src[0].neg = in.src[0].abs = false;
        break;
      }
      case Form::mov_multi:
        in.type = in.src_type = chance(2) ? Type::u32 : Type::u16;
        in.dst = gpr(ir3::is_cat1_half(in.type));
        for (auto& source : in.src) source = gpr(ir3::is_cat1_half(in.type));
        break;
      case Form::movmsk:
        in.dst = gpr(false);
        in.repeat = static_cast<std::uint8_t>(pick(0, 1));
        break;
      case Form::alu_1src:
      case Form::alu_2src:
      case Form::alu_cmp:
      case Form::alu_input:
      case Form::sfu:
        in.dst = destination(half);
        in.src[0] = alu_source(half);
        if (row.form != Form::alu_1src && row.form != Form::sfu) in.src[1] = alu_source(half);
        in.cond = static_cast<std::uint8_t>(pick(0, 5));
        in.sat = chance(12);
        if (chance(5)) {
          in.nop = static_cast<std::uint8_t>(pick(1, 3));
        } else if (chance(6)) {
          in.repeat = static_cast<std::uint8_t>(pick(1, 3));
          in.src[0].repeat = chance(2);
        }
        break;
      case Form::tri:
      case Form::tri_alt:
      case Form::tri_dot:
        in.dst = destination(half);
        in.src[0] = row.form == Form::tri_alt && chance(2) ? immediate(0, 31) : alu_source(half, false);
        in.src[1] = gpr(half);
        in.src[2] = row.form == Form::tri_alt && chance(2) ? immediate(0, 31) : alu_source(half, false);
        for (auto& source : in.src) source.abs = false;
        if (chance(5)) in.nop = static_cast<std::uint8_t>(pick(1, 3));
        break;
      case Form::tex:
      case Form::tex_isam:
      case Form::tex_brcst:
      case Form::tex_quad:
      case Form::tex_tcinv:
        in.type = type();
        in.dst = gpr(ir3::is_half(in.type));
        in.src[0] = gpr(half);
        in.src[1] = gpr(half);
        in.tex.wrmask = static_cast<std::uint8_t>(pick(1, 15));
        in.tex.samp = static_cast<std::uint8_t>(pick(0, 1));
        in.tex.tex = static_cast<std::uint8_t>(pick(0, 1));
        in.tex.full = !half;
        in.tex.is_3d = chance(8);
        in.tex.array = chance(8);
        in.tex.offset = chance(8);
        in.tex.cluster = static_cast<std::uint8_t>(pick(0, 3));
        break;
      default:  // cat6 memory and cat7 barriers
        in.type = chance(2) ? Type::u32 : type();
        in.dst = gpr(ir3::is_half(in.type));
        in.src[0] = gpr(false);
        in.src[1] = chance(5) ? immediate(0, 63) : gpr(ir3::is_half(in.type));
        in.src[2] = gpr(ir3::is_half(in.type));
        mem.size = static_cast<std::uint8_t>(pick(1, 4));
        mem.offset = in_.ConsumeIntegralInRange<std::int32_t>(-64, 255);
        mem.shift = static_cast<std::uint8_t>(pick(0, 3));
        mem.dim = 1;
        mem.typed = chance(4);
        mem.mode = static_cast<std::uint8_t>(chance(2) ? 0 : pick(1, 2));
        if (row.form == Form::ibo_ldst || row.form == Form::ibo_atomic || row.form == Form::res_1src ||
            row.form == Form::ldc) {
          Operand& descriptor = row.form == Form::res_1src ? in.src[0] : row.form == Form::ldc ? in.src[1] : in.src[2];
          descriptor = mem.mode == 0 ? immediate(0, 1) : gpr(false);
          if (row.form == Form::ibo_ldst) mem.offset = in_.ConsumeIntegralInRange<std::int32_t>(0, 15);
          if (row.form == Form::ldc) in.src[0] = chance(2) ? immediate(0, 15) : gpr(false);
        }
        if (row.form == Form::ldg_k || row.form == Form::stc) {
          in.dst = Operand{};
          in.dst.kind = OperandKind::constant;
          in.dst.value = static_cast<std::int32_t>(pick(0, kConstants * 4 - 1));
        }
        in.sync.g = chance(2);
        in.sync.l = chance(2);
        in.sync.r = chance(2);
        in.sync.w = chance(2);
        break;
    }
    return in;
  }

  FuzzedDataProvider& in_;
};

// A storage-buffer descriptor (ST6_UAV) over `elements` 32-bit words at `base`, as Turnip's
// tu_buffer_view writes one (TEX_CONST_2 TYPE A6XX_TEX_BUFFER; a6xx.xml A6XX_TEX_CONST).
std::vector<std::uint32_t> buffer_descriptor(std::uint64_t base, std::uint32_t elements) {
  namespace d = pm4::a6xx_descriptors;
  std::vector<std::uint32_t> out(d::kTextureDwords, 0);
  out[0] = static_cast<std::uint32_t>(d::TEX_CONST_0.pack({{"FMT", pm4::raw(d::Format::FMT6_32_UINT)}}));
  out[1] = static_cast<std::uint32_t>(d::TEX_CONST_1.pack({{"WIDTH", elements & 0x7fff}, {"HEIGHT", elements >> 15}}));
  out[2] = static_cast<std::uint32_t>(d::TEX_CONST_2.pack({{"TYPE", pm4::raw(d::TexType::A6XX_TEX_BUFFER)}}));
  const std::uint64_t base_dwords = d::TEX_CONST_BASE.pack({{"BASE", base}, {"DEPTH", 1}});
  out[4] = static_cast<std::uint32_t>(base_dwords);
  out[5] = static_cast<std::uint32_t>(base_dwords >> 32);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  using vgpu_test::VirtualGpu;
  VirtualGpu gpu(0x100000000ull, kHangTimeout);

  vgpu_test::Launch launch;
  launch.thread_size = input.ConsumeBool() ? pm4::ThreadSize::THREAD128 : pm4::ThreadSize::THREAD64;
  launch.local_size = {input.ConsumeIntegralInRange<std::uint32_t>(1, 128), input.ConsumeIntegralInRange<std::uint32_t>(1, 2), 1};
  launch.groups = {input.ConsumeIntegralInRange<std::uint32_t>(1, 3), 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.work_group_id_regid = input.ConsumeBool() ? ir3::regid(1, 0) : 0xfc;
  launch.merged_registers = input.ConsumeBool();
  launch.shared_size_field = input.ConsumeIntegralInRange<std::uint32_t>(0, 3);
  launch.private_bytes = input.ConsumeBool() ? 512 : 0;  // MEMSIZEPERITEM counts 512-byte units
  // c0.xy and c0.zw: the data buffer's address (lo, hi) and its middle; c1..: values from the
  // input, so that address arithmetic on constants reaches mapped memory.
  const std::uint64_t data_va = gpu.va(VirtualGpu::kData);
  launch.constants = {static_cast<std::uint32_t>(data_va), static_cast<std::uint32_t>(data_va >> 32),
                      static_cast<std::uint32_t>(data_va + kDataBytes / 2), static_cast<std::uint32_t>(data_va >> 32)};
  while (launch.constants.size() < kConstants * 4) launch.constants.push_back(input.ConsumeIntegral<std::uint32_t>());
  for (int slot = 0; slot < 2; ++slot) {
    const auto descriptor = buffer_descriptor(data_va + slot * (kDataBytes / 2), kDataBytes / 8);
    launch.uavs.insert(launch.uavs.end(), descriptor.begin(), descriptor.end());
  }

  const std::vector<std::uint64_t> code = ProgramGenerator(input).generate();
  const ir3::ProgramInfo info =
      ir3::analyze(code, launch.merged_registers ? ir3::RegisterFile::merged : ir3::RegisterFile::split);
  launch.full_footprint = std::max(info.full_footprint_vec4(), 2u);  // r0/r1 hold the ids
  launch.half_footprint = info.half_footprint_vec4();
  launch.instr_size = info.instrlen;
  try {
    gpu.run(code, launch);
  } catch (const virt::GpuFault&) {
    // What hardware reports for a misbehaving shader: fine.
  } catch (const std::exception& error) {
    std::fprintf(stderr, "the virtual GPU threw something other than a GpuFault: %s\n", error.what());
    std::abort();
  }
  return 0;
}
