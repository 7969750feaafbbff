#include "ir3/scheduling.h"

#include "ir3/opcodes.h"
#include "ir3/text.h"

#include <bit>

namespace adreno::ir3 {
namespace {

// Delay slots per generation, from Mesa 26.0-devel d02ba9bb9c01 (line numbers of that tree):
//  * src/freedreno/ir3/ir3_compiler.c ir3_compiler_create, lines 179-181, for every generation:
//    `delay_slots.alu_to_alu = 3; .non_alu = 6; .cat3_src2_read = 2;`, and lines 275-278, under
//    `if (compiler->gen == 7)`: 2, 5, 1. So on a6xx an ALU result is 3 slots from an ALU reader,
//    6 from any other (ir3_delay.c ir3_delayslots line 103: flow, SFU, texture, memory readers).
//  * half/full mismatch (merged registers only; split files do not alias): ir3_delay.c lines
//    109-112 add a penalty of 3 to alu_to_alu (the comment at 105 says 2; the code says 3),
//    3 + 3 = 6 = non_alu, which is what ir3_legalize.c delay_update uses for it (lines 589-591:
//    non_alu unless the consumer is ALU and the sizes match).
//  * mad/madsh read src2 cat3_src2_read cycles late (ir3_delay.c ir3_src_read_delay lines
//    42-44), so an ALU result needs 3 - 2 = 1 slot before it (4 across a size mismatch);
//    gat/swz read source n in cycle n (lines 36-38).
//  * a0.x/a1.x and p0 writes: non_alu before every reader (ir3_delay.c line 73 for
//    writes_addr0/writes_addr1; ir3_legalize.c delay_update lines 583-587 for IR3_REG_PREDICATE
//    or REG_A0 destinations, the same ready slot whatever the consumer).
constexpr std::array<DelaySlots, 2> kDelaySlots{{{Generation::a6xx, 3, 6, 2}, {Generation::a7xx, 2, 5, 1}}};
constexpr const DelaySlots& slots(Generation gen) { return kDelaySlots[static_cast<std::size_t>(gen)]; }
static_assert(kDelaySlots[0].gen == Generation::a6xx && kDelaySlots[1].gen == Generation::a7xx);

constexpr const DelaySlots& kA6 = slots(Generation::a6xx);
constexpr const DelaySlots& kA7 = slots(Generation::a7xx);

// One row per producer class and generation, in enum order; a class whose rule is the same on
// every generation has one row. The (ss)/(sy) classes are those of Mesa's ir3.h, which has no
// generation test in is_ss_producer/is_sy_producer/is_war_hazard_producer/is_barrier. The
// half/full mismatch costs non_alu on both: ir3_delay.c ir3_delayslots adds a 3-cycle penalty to
// alu_to_alu (3 + 3 = 6 on a6xx, 2 + 3 = 5 on a7xx) and ir3_legalize.c delay_update uses non_alu.
constexpr ProducerRule kRules[] = {
    {Producer::none, kEveryGeneration, "nothing to wait for", Wait::none, 0, 0,
     "ir3_legalize.c delay_update: non-ALU writes reset the ready cycle"},
    {Producer::alu, kA6xxOnly, "an ALU result", Wait::delay, kA6.alu_to_alu, kA6.non_alu,
     "ir3_legalize.c delay_update and ir3_delay.c ir3_delayslots with ir3_compiler.c's delay_slots: 3 slots ALU to "
     "ALU, 6 to other consumers or across a half/full size mismatch"},
    {Producer::alu, kA7xxOnly, "an ALU result", Wait::delay, kA7.alu_to_alu, kA7.non_alu,
     "ir3_legalize.c delay_update and ir3_delay.c ir3_delayslots with ir3_compiler.c's a7xx delay_slots: 2 slots "
     "ALU to ALU, 5 to other consumers or across a half/full size mismatch"},
    {Producer::address_or_predicate, kA6xxOnly, "an a0.x/a1.x/p0 write", Wait::delay, kA6.non_alu, kA6.non_alu,
     "ir3_delay.c ir3_delayslots (writes_addr0/writes_addr1: non_alu) and ir3_legalize.c delay_update "
     "(IR3_REG_PREDICATE or REG_A0 destination: non_alu for every reader)"},
    {Producer::address_or_predicate, kA7xxOnly, "an a0.x/a1.x/p0 write", Wait::delay, kA7.non_alu, kA7.non_alu,
     "ir3_delay.c ir3_delayslots (writes_addr0/writes_addr1) and ir3_legalize.c delay_update (predicates), with "
     "ir3_compiler.c's a7xx non_alu 5"},
    {Producer::shared_write, kEveryGeneration, "a shared-register write", Wait::ss, 0, 0, "ir3.h is_ss_producer (IR3_REG_SHARED dst)"},
    {Producer::sfu, kEveryGeneration, "an SFU result", Wait::ss, 0, 0, "ir3.h is_ss_producer / is_sfu"},
    {Producer::local_load, kEveryGeneration, "a local-memory load", Wait::ss, 0, 0, "ir3.h is_ss_producer / is_local_mem_load"},
    {Producer::shuffle, kEveryGeneration, "a shfl result", Wait::ss, 0, 0, "ir3.h is_ss_producer (OPC_SHFL)"},
    {Producer::local_atomic, kEveryGeneration, "a local atomic", Wait::ss, 0, 0, "ir3_legalize.c sync_update (local atomics)"},
    {Producer::resource_info, kEveryGeneration, "a resinfo result", Wait::ss, 0, 0, "ir3_legalize.c sync_update (OPC_RESINFO)"},
    {Producer::texture, kEveryGeneration, "a texture fetch", Wait::sy, 0, 0, "ir3.h is_sy_producer / is_tex_or_prefetch"},
    {Producer::global_load, kEveryGeneration, "a load from memory", Wait::sy, 0, 0, "ir3.h is_sy_producer (is_load, not local)"},
    {Producer::global_atomic, kEveryGeneration, "a global atomic", Wait::sy, 0, 0, "ir3.h is_sy_producer / is_atomic"},
    {Producer::barrier, kEveryGeneration, "a cat7 barrier", Wait::ss_sy, 0, 0,
     "ir3_legalize.c sync_update: is_barrier sets force_ss and force_sy, which ir3_required_sync_flags puts on the "
     "next instruction whatever it reads; ir3.h is_barrier: every cat7 instruction but alias"},
};

// The row of each producer class on each generation.
struct RuleIndex {
  std::array<std::array<std::uint8_t, kProducerCount>, 2> row{};
};
constexpr RuleIndex kRuleIndex = [] {
  RuleIndex index;
  for (auto& per_gen : index.row) per_gen.fill(0xff);
  for (std::size_t i = 0; i < std::size(kRules); ++i) {
    for (Generation gen : {Generation::a6xx, Generation::a7xx}) {
      if (!exists_on(kRules[i].gens, gen)) continue;
      std::uint8_t& slot = index.row[static_cast<std::size_t>(gen)][static_cast<std::size_t>(kRules[i].producer)];
      if (slot != 0xff) throw "two rules for one producer class on one generation";
      slot = static_cast<std::uint8_t>(i);
    }
  }
  for (const auto& per_gen : index.row)
    for (std::uint8_t slot : per_gen)
      if (slot == 0xff) throw "a producer class without a rule";
  return index;
}();

constexpr std::uint16_t kFirstSpecialRegid = regid(kAddressReg, 0);
constexpr std::uint16_t kFirstSharedRegid = regid(kFirstSharedReg, 0);
constexpr std::uint8_t kDst = 255;

bool is_special(std::uint16_t reg) { return reg >= kFirstSpecialRegid; }

class Builder {
 public:
  explicit Builder(Footprint& f) : f_(f) {}

  void read(const Operand& op, unsigned index, unsigned count = 1, std::uint8_t cycle = 0) {
    switch (op.kind) {
      case OperandKind::gpr:
        add(f_.reads, f_.read_count, {op.reg, static_cast<std::uint8_t>(count), op.half && !is_special(op.reg), op.repeat,
                                      cycle, static_cast<std::uint8_t>(index)});
        break;
      case OperandKind::relative_gpr:
        address(index);
        add(f_.reads, f_.read_count, {0, 1, op.half, op.repeat, cycle, static_cast<std::uint8_t>(index), true,
                                      static_cast<std::int16_t>(op.value)});
        break;
      case OperandKind::relative_const:
        address(index);
        f_.reads_constants = true;
        break;
      case OperandKind::constant:
        f_.reads_constants = true;
        break;
      default:
        break;
    }
  }
  void read_with(const Operand& op, unsigned index, bool half, unsigned count) {
    Operand copy = op;
    copy.half = half;
    read(copy, index, count);
  }
  void write(const Operand& op, unsigned count, bool half, bool repeats, std::uint8_t cycle = 0) {
    if (op.kind == OperandKind::relative_gpr) {
      // The register a0.x names; (rptN) always steps a relative destination (as the interpreter
      // executes it), so the use repeats.
      address(kDst);
      add(f_.writes, f_.write_count, {0, 1, half, true, cycle, kDst, true, static_cast<std::int16_t>(op.value)});
      return;
    }
    if (op.kind != OperandKind::gpr) return;
    add(f_.writes, f_.write_count,
        {op.reg, static_cast<std::uint8_t>(count), half && !is_special(op.reg), repeats, cycle, kDst});
  }

  // a1.x as an address source: Mesa's ir3_compiler_nir.c gives a cat5 with IR3_INSTR_A1EN
  // (emit_sam) and ldc.k (emit_intrinsic_copy_ubo_to_uniform) a1.x through
  // ir3_instr_set_address(instr, ir3_get_addr1(...)), so ir3_delay.c ir3_delayslots counts the
  // writes_addr1 producer's slots before them like before any reader.
  void address1(unsigned index) {
    add(f_.reads, f_.read_count,
        {static_cast<std::uint16_t>(kFirstSpecialRegid + 1), 1, false, false, 0, static_cast<std::uint8_t>(index)});
  }

 private:
  template <std::size_t N>
  static void add(std::array<RegisterUse, N>& uses, std::uint8_t& n, const RegisterUse& use) {
    if (n < N) uses[n++] = use;
  }
  void address(unsigned index) {
    add(f_.reads, f_.read_count, {kFirstSpecialRegid, 1, false, false, 0, static_cast<std::uint8_t>(index)});
  }
  Footprint& f_;
};

bool is_local_load(Opcode op) { return op == Opcode::ldl || op == Opcode::ldlw || op == Opcode::ldlv; }
bool is_store(Opcode op) {  // Mesa ir3.h is_store
  return op == Opcode::stg || op == Opcode::stg_a || op == Opcode::stg_a_a7xx || op == Opcode::stib_b ||
         op == Opcode::stp || op == Opcode::stl || op == Opcode::stlw;
}

Producer memory_producer(const Instruction& in) {
  const Form form = info(in.opcode).form;
  if (is_local_load(in.opcode)) return Producer::local_load;
  switch (form) {
    case Form::shfl: return Producer::shuffle;
    case Form::atomic_local: return Producer::local_atomic;
    case Form::atomic_global: case Form::ibo_atomic: return Producer::global_atomic;
    // ray_intersection is a load too (ir3.h is_load); its sources stay in use until (sy), which
    // the (ss)-or-(sy) class below only approximates (ir3_legalize.c sync_update needs_sy).
    case Form::ldg: case Form::ldg_a: case Form::ldg_a_a7xx: case Form::ldc: case Form::ray_intersection:
      return Producer::global_load;
    default: break;
  }
  if (in.opcode == Opcode::ldp || in.opcode == Opcode::ldib_b) return Producer::global_load;
  if (in.opcode == Opcode::resinfo_b) return Producer::resource_info;
  if (in.opcode == Opcode::getfiberid) return Producer::sfu;  // Mesa ir3.h is_sfu
  return Producer::none;
}

void memory_footprint(const Instruction& in, Builder& b) {
  const bool half = is_half(in.type);
  const unsigned size = in.mem.size;
  switch (info(in.opcode).form) {
    case Form::ldg: b.write(in.dst, size, half, false); b.read_with(in.src[0], 0, false, 2); break;
    case Form::ldg_a: case Form::ldg_a_a7xx:
      b.write(in.dst, size, half, false);
      b.read_with(in.src[0], 0, false, 2);
      b.read(in.src[1], 1);
      break;
    case Form::ldg_k: b.read_with(in.src[0], 0, false, 2); b.read(in.src[1], 1); break;
    case Form::stg: b.read_with(in.src[0], 0, false, 2); b.read_with(in.src[1], 1, half, size); break;
    case Form::stg_a: case Form::stg_a_a7xx:
      b.read_with(in.src[0], 0, false, 2);
      b.read(in.src[1], 1);
      b.read_with(in.src[2], 2, half, size);
      break;
    case Form::ld_local: case Form::ldc: b.write(in.dst, size, half, false); b.read(in.src[0], 0); b.read(in.src[1], 1); break;
    case Form::st_local: b.read(in.src[0], 0); b.read_with(in.src[1], 1, half, size); break;
    case Form::ldlv: b.write(in.dst, size, half, false); break;
    case Form::stsc: break;  // immediates in, constants out
    case Form::atomic_local: b.write(in.dst, 1, false, false); b.read(in.src[0], 0); b.read(in.src[1], 1); break;
    case Form::atomic_global:
      b.write(in.dst, 1, false, false);
      b.read_with(in.src[0], 0, false, 2);
      b.read(in.src[1], 1);
      break;
    case Form::ibo_ldst:
      if (in.opcode == Opcode::ldib_b) b.write(in.src[0], size, half, false);
      else b.read_with(in.src[0], 0, half, size);
      b.read_with(in.src[1], 1, false, in.mem.dim);
      b.read(in.src[2], 2);
      break;
    case Form::ibo_atomic:
      b.read(in.src[0], 0);
      b.write(in.src[0], 1, false, false);
      b.read_with(in.src[1], 1, false, in.mem.dim);
      b.read(in.src[2], 2);
      break;
    default:
      b.write(in.dst, size ? size : 1, half, false);
      for (unsigned i = 0; i < in.src.size(); ++i) b.read(in.src[i], i);
      break;
  }
}

// swz/gat/sct move several scalars in one instruction, one per cycle (ir3_delay.c
// ir3_src_read_delay: gat/swz read source n in cycle n; ir3_legalize.c delay_update: sct/swz
// write destination n in cycle n). Operands as instruction.h lays them out.
void multi_move_footprint(const Instruction& in, Builder& b) {
  switch (in.opcode) {
    case Opcode::swz:  // dst0, dst1 (src[2]) <- src0, src1
      b.read(in.src[0], 0, 1, 0);
      b.read(in.src[1], 1, 1, 1);
      b.write(in.dst, 1, in.dst.half, false, 0);
      b.write(in.src[2], 1, in.src[2].half, false, 1);
      break;
    case Opcode::gat:  // dst0 .. dst0 + 3 <- src0 .. src3
      for (unsigned i = 0; i < 4; ++i) b.read(in.src[i], i, 1, static_cast<std::uint8_t>(i));
      b.write(in.dst, 4, in.dst.half, false, 0);
      break;
    default:  // sct: dst0, dst1 .. dst3 (src[1..3]) <- src0 .. src0 + 3
      b.read(in.src[0], 0, 4, 0);
      b.write(in.dst, 1, in.dst.half, false, 0);
      for (unsigned i = 1; i < 4; ++i) b.write(in.src[i], 1, in.src[i].half, false, static_cast<std::uint8_t>(i));
      break;
  }
}

bool is_shared(const RegisterUse& use) {
  return !use.relative && use.regid >= kFirstSharedRegid && use.regid < kFirstSpecialRegid;
}

}  // namespace

std::string sync_flags(Wait wait) {
  return std::string(includes(wait, Wait::ss) ? "(ss)" : "") + (includes(wait, Wait::sy) ? "(sy)" : "");
}

Wait value_wait(Producer producer, bool shared_destination, Generation gen) noexcept {
  const Wait wait = rule(producer, gen).wait;
  if (!shared_destination) return wait;
  return wait == Wait::delay ? Wait::ss : wait | Wait::ss;
}

const DelaySlots& delay_slots(Generation gen) noexcept { return slots(gen); }

const ProducerRule& rule(Producer producer, Generation gen) noexcept {
  return kRules[kRuleIndex.row[static_cast<std::size_t>(gen)][static_cast<std::size_t>(producer)]];
}

unsigned required_delay(Producer producer, bool alu_consumer, bool size_matches, Generation gen) noexcept {
  const ProducerRule& r = rule(producer, gen);
  if (r.wait != Wait::delay) return 0;
  return alu_consumer && size_matches ? r.alu_delay : r.other_delay;
}

Footprint footprint(const Instruction& in, Generation gen) {
  Footprint f;
  Builder b(f);
  const OpcodeInfo& row = info(in.opcode);
  switch (row.category) {
    case 0:
      // ir3_legalize.c count_instruction: jumps and branches are not counted.
      f.counted = in.opcode != Opcode::jump && in.opcode != Opcode::br && in.opcode != Opcode::brao &&
                  in.opcode != Opcode::braa;
      if (row.form == Form::flow_branch || row.form == Form::flow_kill || row.form == Form::flow_branch2) {
        const unsigned predicates = row.form == Form::flow_branch2 ? 2 : 1;
        for (unsigned i = 0; i < predicates; ++i) {
          Operand p;
          p.kind = OperandKind::gpr;
          p.reg = static_cast<std::uint16_t>(regid(kPredicateReg, in.flow.comp[i]));
          b.read(p, i);
        }
      }
      break;
    case 1: case 2: case 3: {
      f.counted = true;
      f.alu_consumer = true;
      if (row.form == Form::mov_multi) {
        multi_move_footprint(in, b);
      } else {
        const bool mad = in.opcode == Opcode::mad_u16 || in.opcode == Opcode::mad_s16 || in.opcode == Opcode::mad_f16 ||
                         in.opcode == Opcode::mad_f32 || in.opcode == Opcode::mad_u24 || in.opcode == Opcode::mad_s24 ||
                         in.opcode == Opcode::madsh_u16 || in.opcode == Opcode::madsh_m16;
        for (unsigned i = 0; i < in.src.size(); ++i) {
          // ir3_delay.c ir3_src_read_delay: mad/madsh read src2 delay_slots.cat3_src2_read cycles late.
          b.read(in.src[i], i, 1, mad && i == 2 ? slots(gen).cat3_src2_read : 0);
        }
        const unsigned count = in.opcode == Opcode::movmsk ? in.repeat + 1u : 1u;
        b.write(in.dst, count, in.dst.half, in.opcode != Opcode::movmsk);  // (rptN) steps the destination
      }
      if (in.dst.kind == OperandKind::gpr) {
        f.producer = in.dst.reg >= kFirstSpecialRegid ? Producer::address_or_predicate
                     : in.dst.reg >= kFirstSharedRegid ? Producer::shared_write
                                                       : Producer::alu;
      } else if (in.dst.kind == OperandKind::relative_gpr) {
        f.producer = Producer::alu;
      }
      if (f.producer == Producer::shared_write) f.in_flight = InFlightRead::until_ss;  // ir3.h is_war_hazard_producer
      break;
    }
    case 4:
      b.read(in.src[0], 0);
      b.write(in.dst, 1, in.dst.half, true);
      f.producer = Producer::sfu;
      f.in_flight = InFlightRead::until_ss;
      break;
    case 5:
      if (in.opcode == Opcode::tcinv) break;
      // The coordinate's extra components depend on the texture; the first is always read.
      b.read(in.src[0], 0);
      b.read(in.src[1], 1);
      b.read(in.src[2], 2);
      if (in.tex.s2en_bindless && desc_uses_a1(in.tex.desc_mode)) b.address1(3);  // the index a1.x holds
      b.write(in.dst, static_cast<unsigned>(std::bit_width(unsigned{in.tex.wrmask ? in.tex.wrmask : 1u})), is_half(in.type),
              false);
      f.producer = Producer::texture;
      f.in_flight = InFlightRead::until_ss_or_sy;
      break;
    case 6:
      memory_footprint(in, b);
      // ldc.k writes c[a1.x]; stc and ldg.k may write c[a1.x + N].
      if (in.opcode == Opcode::ldc_k || in.mem.const_dst_a1) b.address1(3);
      f.producer = memory_producer(in);
      if (in.opcode == Opcode::ldg_k || in.opcode == Opcode::ldc_k) f.constants_written = Wait::sy;
      // stsc stands for Mesa's push-consts load macro, which needs (ss) like stc (ir3_legalize.c
      // sync_update: OPC_PUSH_CONSTS_LOAD_MACRO, OPC_STC).
      if (in.opcode == Opcode::stc || in.opcode == Opcode::stsc) f.constants_written = Wait::ss;
      if (in.opcode != Opcode::getfiberid) {
        // ir3.h is_war_hazard_producer / ir3_legalize.c sync_update.
        const bool ss = is_store(in.opcode) || in.opcode == Opcode::stc || in.opcode == Opcode::stsc ||
                        f.producer == Producer::local_load ||
                        f.producer == Producer::shuffle || f.producer == Producer::sfu;
        f.in_flight = ss ? InFlightRead::until_ss : InFlightRead::until_ss_or_sy;
      } else {
        f.in_flight = InFlightRead::until_ss;
      }
      break;
    default:
      f.barrier = in.opcode != Opcode::alias;  // ir3.h is_barrier: every cat7 instruction but alias
      break;
  }
  // A shared-register destination makes the instruction an ss producer, so its sources too are
  // released by (ss) only (ir3.h is_ss_producer, is_war_hazard_producer; sync_update needs_ss).
  if (f.in_flight == InFlightRead::until_ss_or_sy) {
    for (unsigned k = 0; k < f.write_count; ++k)
      if (is_shared(f.writes[k])) f.in_flight = InFlightRead::until_ss;
  }
  f.filler = in.opcode == Opcode::nop;
  if (f.counted) f.cycles = static_cast<std::uint8_t>(1 + in.repeat + in.nop);
  return f;
}

std::string describe(const Hazard& h, const Instruction& consumer, const Instruction& producer, Generation gen) {
  constexpr const char* kUnknownA0 =
      ": the checker does not know a0.x and takes r<a0.x + N> for any register of its size, as Mesa takes the whole array";
  // r61.y is a1.x as a register (Mesa's disasm.c: `mova1 a1.x, 0` has dst 0xf5, 61 * 4 + 1); the
  // printer keeps "a0.y" for an operand that spells it so, which the parser reads back.
  const std::string name = h.regid == regid(kAddressReg, 1) ? std::string("a1.x") : register_name(h.regid);
  const std::string reg = (h.half ? "h" : "") + name +
                          (h.possible && h.relative ? std::string(" (its relative operand may name it") + kUnknownA0 + ")"
                           : h.possible             ? std::string(" (if a relative destination named it") + kUnknownA0 + ")"
                           : h.relative             ? std::string(" (through its relative operand)")
                                                    : std::string());
  const std::string at = "`" + to_text(consumer, gen) + "` (instruction " + std::to_string(h.pc) + ")";
  const std::string by = "`" + to_text(producer, gen) + "` (instruction " + std::to_string(h.producer_pc) + ")";
  const std::string fix = h.fix == Wait::delay
                              ? "needs " + std::to_string(h.missing_slots) + " more delay slot" + (h.missing_slots == 1 ? "" : "s")
                              : "add " + sync_flags(h.fix);
  const ProducerRule& r = rule(h.producer, gen);
  const bool shared = h.regid >= kFirstSharedRegid && h.regid < kFirstSpecialRegid;
  // The rule's waits for this register: the class's, plus (ss) for a shared-register destination.
  const std::string waits = sync_flags(value_wait(h.producer, shared, gen));
  const std::string what = std::string(r.what) + (shared && r.wait != Wait::ss ? " into a shared register" : "");
  const std::string mesa = std::string(r.mesa) +
                           (shared && r.wait != Wait::ss ? "; a shared-register destination adds (ss): ir3_legalize.c "
                                                           "sync_update, IR3_REG_SHARED dsts go to needs_ss"
                                                         : "");
  switch (h.kind) {
    case Hazard::Kind::not_ready:
      if (r.wait == Wait::delay && !shared) {
        return at + " reads " + reg + " before " + r.what + " from " + by + " is ready: rule " + r.what + " needs " +
               std::to_string(r.alu_delay) + " delay slots before an ALU reader of the same size and " +
               std::to_string(r.other_delay) + " before any other (Mesa " + r.mesa + "); fix: " + fix;
      }
      return at + " reads " + reg + " before " + what + " from " + by + " arrived: rule " + what + " is waited for with " +
             waits + " (Mesa " + mesa + "); fix: " + fix;
    case Hazard::Kind::overwrite_pending:
      return at + " overwrites " + reg + " while " + what + " from " + by + " may still land in it: rule " + what +
             " is waited for with " + waits + " before the register is written again (Mesa ir3_legalize.c " +
             "ir3_required_sync_flags; " + mesa + "); fix: " + fix;
    case Hazard::Kind::overwrite_in_flight:
      return at + " overwrites " + reg + " while " + by + " may still be reading it: rule write-after-read, a source of " +
             info(producer.opcode).name + " stays in use until " +
             (h.in_flight == InFlightRead::until_ss ? "(ss)" : "(ss) or (sy)") +
             " (Mesa ir3.h is_war_hazard_producer, ir3_legalize.c sync_update); fix: " + fix;
    case Hazard::Kind::constants:
      return at + " reads constants before " + by + " finished writing them: rule const writes are waited for with " +
             sync_flags(h.fix) + " (Mesa ir3_legalize.c sync_update needs_*_for_const); fix: " + fix;
    case Hazard::Kind::barrier:
      return at + " is the first instruction after " + by + " and does not wait: rule after " + r.what +
             " the next instruction waits with (ss)(sy), a nop between them may carry the waits (Mesa " + r.mesa +
             "); fix: " + fix;
  }
  return at;
}

}  // namespace adreno::ir3
