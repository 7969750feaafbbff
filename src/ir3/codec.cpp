#include "ir3/codec.h"

#include <adreno/error.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <string>

#include "ir3/encoding.h"
#include "ir3/syntax.h"
#include "ir3/text.h"

namespace adreno::ir3 {
namespace {

using bits::Field;

// ---------------------------------------------------------------------------------------------
// Opcode lookup: (form, opcode value, sub-opcode) -> table row, built once per generation from
// the rows of opcodes.h that exist on it.

struct Lookup {
  std::array<std::int16_t, kFormCount * 64 * 8> by_form{};
  std::array<std::int16_t, 8 * 64 * 8> by_category{};
  explicit Lookup(Generation gen) {
    by_form.fill(-1);
    by_category.fill(-1);
    for (const OpcodeInfo* row = opcode_table_begin(); row != opcode_table_end(); ++row) {
      if (!exists_on(row->gens, gen)) continue;
      auto index = static_cast<std::int16_t>(row - opcode_table_begin());
      by_form[(static_cast<std::size_t>(row->form) * 64 + row->value) * 8 + row->sub] = index;
      std::int16_t& slot = by_category[(row->category * 64u + row->value) * 8 + row->sub];
      if (slot < 0) slot = index;  // the first form listed wins; ambiguous ones use by_form
    }
  }
};
const Lookup& lookup(Generation gen) {
  static const Lookup a6xx(Generation::a6xx), a7xx(Generation::a7xx);
  return gen == Generation::a6xx ? a6xx : a7xx;
}

// One word being decoded for one generation.
struct Decoding {
  std::uint64_t word;
  Generation gen;
  const Lookup& table;
};

[[noreturn]] void no_match(const Decoding& d) {
  char text[80];
  std::snprintf(text, sizeof text, "word 0x%016llx matches no %s instruction", static_cast<unsigned long long>(d.word),
                generation_name(d.gen));
  throw Error(Errc::malformed, "ir3 decode", text);
}

Opcode by_form(const Decoding& d, Form form, unsigned value, unsigned sub) {
  if (value >= 64 || sub >= 8) no_match(d);
  std::int16_t index = d.table.by_form[(static_cast<std::size_t>(form) * 64 + value) * 8 + sub];
  if (index < 0) no_match(d);
  return opcode_table_begin()[index].opcode;
}
bool has_form(const Decoding& d, Form form, unsigned value, unsigned sub = 0) {
  return value < 64 && sub < 8 && d.table.by_form[(static_cast<std::size_t>(form) * 64 + value) * 8 + sub] >= 0;
}
Opcode by_category(const Decoding& d, unsigned category, unsigned value, unsigned sub) {
  std::int16_t index = d.table.by_category[(category * 64u + value) * 8 + sub];
  if (index < 0) no_match(d);
  return opcode_table_begin()[index].opcode;
}

std::int32_t sign_extend(std::uint64_t value, unsigned width) {
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  return static_cast<std::int32_t>(static_cast<std::int64_t>((value ^ sign)) -
                                   static_cast<std::int64_t>(sign));
}

// ---------------------------------------------------------------------------------------------
// Encoder helper: every write is range-checked and names its field on failure.

class Word {
 public:
  Word(const char* name, Generation gen) : name_(name), gen_(gen) {}
  void put(Field f, std::uint64_t value, const char* field) {
    if (value > f.mask()) fail(field, std::to_string(value), f);
    word_ |= value << f.low;
  }
  void put_signed(Field f, std::int64_t value, const char* field) {
    const std::int64_t limit = std::int64_t{1} << (f.width() - 1);
    if (value < -limit || value >= limit) fail(field, std::to_string(value), f);
    word_ |= (static_cast<std::uint64_t>(value) & f.mask()) << f.low;
  }
  void flag(Field f, bool on) { word_ |= static_cast<std::uint64_t>(on) << f.low; }
  [[noreturn]] void reject(const std::string& what) const {
    throw Error(Errc::invalid_argument, std::string("ir3 encode ") + name_, what);
  }
  std::uint64_t value() const { return word_; }
  const char* name() const { return name_; }
  Generation gen() const { return gen_; }

 private:
  [[noreturn]] void fail(const char* field, const std::string& value, Field f) const {
    reject(std::string(field) + " = " + value + " does not fit bits " + std::to_string(f.low) +
           ".." + std::to_string(f.high));
  }
  const char* name_;
  Generation gen_;
  std::uint64_t word_ = 0;
};

Operand gpr(std::uint64_t reg, bool half = false) {
  Operand op;
  op.kind = OperandKind::gpr;
  op.reg = static_cast<std::uint16_t>(reg);
  op.half = half;
  return op;
}
Operand immediate(std::int64_t value) {
  Operand op;
  op.kind = OperandKind::immediate;
  op.value = static_cast<std::int32_t>(value);
  return op;
}

void need_gpr(Word& w, const Operand& op, const char* field) {
  if (op.kind != OperandKind::gpr) w.reject(std::string(field) + " must be a register");
}
void put_gpr(Word& w, Field f, const Operand& op, const char* field) {
  need_gpr(w, op, field);
  w.put(f, op.reg, field);
}
// #cat6-src-const-or-gpr: an 8-bit register or const, chosen by a separate flag.
Operand const_or_gpr(std::uint64_t value, bool constant) {
  Operand op = gpr(value);
  if (constant) op.kind = OperandKind::constant;
  return op;
}
// #cat6-src: an 8-bit register or an immediate, chosen by a separate flag.
Operand cat6_src(std::uint64_t value, bool immediate_form) {
  return immediate_form ? immediate(static_cast<std::int64_t>(value)) : gpr(value);
}
void put_const_or_gpr(Word& w, Field f, const Operand& op, const char* field) {
  if (op.kind == OperandKind::constant) {
    w.put(f, op.reg, field);
    w.flag(bits::cat6::kSrc1Const, true);
  } else {
    put_gpr(w, f, op, field);
  }
}
void put_cat6_src(Word& w, Field f, const Operand& op, const char* field) {
  if (op.kind == OperandKind::immediate) {
    w.put(f, static_cast<std::uint32_t>(op.value), field);
  } else {
    put_gpr(w, f, op, field);
  }
}

// Destination precision of cat2/cat3/cat4 (ir3-common.xml #dest-half): a register is half when
// FULL == DST_CONV, except p0 which never is.
constexpr unsigned kLastHalfCapableDst = 0xf7;
bool dest_half(bool full, bool dst_conv, std::uint64_t dst) {
  return full == dst_conv && dst <= kLastHalfCapableDst;
}
bool dest_conv(bool full, const Operand& dst) {
  if (dst.reg > kLastHalfCapableDst) return false;
  return dst.half == full;
}

void decode_abs_neg(Operand& op, std::uint64_t absneg) {
  op.neg = (absneg & 1) != 0;
  op.abs = (absneg & 2) != 0;
}
std::uint64_t abs_neg(const Operand& op) { return (op.neg ? 1u : 0u) | (op.abs ? 2u : 0u); }

// ---------------------------------------------------------------------------------------------
// cat2/cat4 source (#multisrc).

constexpr std::size_t kConditionCount = syntax::kConditions.size();
constexpr std::size_t kFlutEntries = syntax::kFloatTable.size();

Operand decode_multisrc(std::uint64_t s, bool full, const Decoding& d) {
  namespace m = bits::multisrc;
  Operand op;
  const std::uint64_t kind = m::kKind.get(s);
  if (kind == 0) {
    op = gpr(m::kReg.get(s), !full);
    op.last = m::kLast.get(s) != 0;
    if ((s & 0x300) != 0) no_match(d);
  } else if ((kind & 3) == 2) {
    op.kind = OperandKind::constant;
    op.reg = static_cast<std::uint16_t>(m::kConst.get(s));
    op.half = !full;
  } else if (kind == 4) {
    op = immediate(sign_extend(m::kImmed.get(s), m::kImmed.width()));
    op.half = !full;
  } else if (kind == 5) {
    if (m::kFlut.get(s) >= kFlutEntries) no_match(d);
    op = immediate(static_cast<std::int64_t>(m::kFlut.get(s)));
    op.flut = true;
    op.half = m::kFlutHalf.get(s) != 0;
  } else if (kind == 1) {
    op.kind = m::kRelConst.get(s) ? OperandKind::relative_const : OperandKind::relative_gpr;
    op.value = sign_extend(m::kRelOffset.get(s), m::kRelOffset.width());
    op.half = !full;
  } else {
    no_match(d);
  }
  decode_abs_neg(op, m::kAbsNeg.get(s));
  return op;
}

std::uint64_t encode_multisrc(Word& w, const Operand& op, const char* field) {
  namespace m = bits::multisrc;
  Word s(w.name(), w.gen());  // the source field, built apart
  switch (op.kind) {
    case OperandKind::gpr:
      s.put(m::kReg, op.reg, field);
      s.flag(m::kLast, op.last);
      break;
    case OperandKind::constant:
      s.put(m::kConst, op.reg, field);
      s.put(m::kKind, 2, field);
      break;
    case OperandKind::immediate:
      if (op.flut) {
        s.put(m::kFlut, static_cast<std::uint32_t>(op.value), field);
        s.flag(m::kFlutHalf, op.half);
        s.put(m::kKind, 5, field);
      } else {
        s.put_signed(m::kImmed, op.value, field);
        s.put(m::kKind, 4, field);
      }
      break;
    case OperandKind::relative_gpr:
    case OperandKind::relative_const:
      s.put_signed(m::kRelOffset, op.value, field);
      s.flag(m::kRelConst, op.kind == OperandKind::relative_const);
      s.put(m::kKind, 1, field);
      break;
    case OperandKind::none: w.reject(std::string(field) + " is missing");
  }
  s.put(m::kAbsNeg, abs_neg(op), field);
  return s.value();
}

// The FULL bit of cat2/cat4: the precision of the register sources (a flut immediate carries
// its own precision bit, so it does not decide).
bool sources_full(const Instruction& in, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (in.src[i].kind != OperandKind::none && !in.src[i].flut) return !in.src[i].half;
  }
  return !in.src[0].half;
}

// ---------------------------------------------------------------------------------------------
// cat3 source (13 bits).

// The sub-opcode of the plain three-source rows that set the AL bit (mad.f32.mul2 ...).
constexpr unsigned kTriWithAlBit = 1;

Operand decode_cat3_src(std::uint64_t s, bool full, bool immed_form, const Decoding& d) {
  namespace c = bits::cat3src;
  Operand op;
  if (c::kConstOrImmed.get(s)) {
    if (immed_form) {
      return immediate(static_cast<std::int64_t>(c::kImmed.get(s)));
    }
    if (c::kRel.get(s)) no_match(d);
    op.kind = OperandKind::constant;
    op.reg = static_cast<std::uint16_t>(c::kConst.get(s));
  } else if (c::kRel.get(s)) {
    op.kind = c::kRelConst.get(s) ? OperandKind::relative_const : OperandKind::relative_gpr;
    op.value = sign_extend(c::kRelOffset.get(s), c::kRelOffset.width());
  } else {
    if ((s & 0x300) != 0) no_match(d);
    op = gpr(c::kReg.get(s));
    op.last = c::kLast.get(s) != 0;
  }
  op.half = !full;
  return op;
}

std::uint64_t encode_cat3_src(Word& w, const Operand& op, bool immed_form, const char* field) {
  namespace c = bits::cat3src;
  Word s(w.name(), w.gen());  // the source field, built apart
  switch (op.kind) {
    case OperandKind::gpr:
      s.put(c::kReg, op.reg, field);
      s.flag(c::kLast, op.last);
      break;
    case OperandKind::constant:
      if (immed_form) w.reject(std::string(field) + " cannot be a const in this instruction");
      s.put(c::kConst, op.reg, field);
      s.flag(c::kConstOrImmed, true);
      break;
    case OperandKind::immediate:
      if (!immed_form) w.reject(std::string(field) + " cannot be an immediate in this instruction");
      s.put(c::kImmed, static_cast<std::uint32_t>(op.value), field);
      s.flag(c::kConstOrImmed, true);
      break;
    case OperandKind::relative_gpr:
    case OperandKind::relative_const:
      s.put_signed(c::kRelOffset, op.value, field);
      s.flag(c::kRelConst, op.kind == OperandKind::relative_const);
      s.flag(c::kRel, true);
      break;
    case OperandKind::none: w.reject(std::string(field) + " is missing");
  }
  return s.value();
}

// ---------------------------------------------------------------------------------------------
// Per-category decoders.

void decode_cat0(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat0;
  const unsigned value = static_cast<unsigned>(c::kOpc.get(word) | c::kOpcHi.get(word) << 4);
  const bool branch = value == info(Opcode::br).value;  // brtype picks br/brao/braa/...
  const unsigned sub = branch ? static_cast<unsigned>(c::kBrType.get(word)) : 0;
  in.opcode = by_category(d, 0, value, sub);
  in.ss = bits::kSs.get(word) != 0;
  const Form form = info(in.opcode).form;
  const bool has_eq = form == Form::flow_bare || form == Form::flow_branch ||
                      form == Form::flow_branch2 || form == Form::flow_brac ||
                      form == Form::flow_kill;
  if (has_eq) in.eq = c::kEq.get(word) != 0;
  if (form != Form::flow_bare && form != Form::flow_kill) {
    in.flow.target = sign_extend(c::kImmed.get(word), c::kImmed.width());
  }
  // Bits the 0- and 1-source forms fix to 0 (ir3-cat0.xml: BRTYPE, src1 and src0 patterns).
  constexpr Field kSrc1Bits{45, 47}, kSrc0Bits{52, 54}, kIndexBits{32, 36};
  const bool bare_or_kill = form == Form::flow_bare || form == Form::flow_kill;
  if (bare_or_kill && (c::kBrType.get(word) || kSrc1Bits.get(word))) no_match(d);
  switch (form) {
    case Form::flow_bare:
      if (c::kBareZero.get(word) || kSrc0Bits.get(word)) no_match(d);
      in.repeat = static_cast<std::uint8_t>(c::kRepeat.get(word));
      in.flow.eolm = c::kEolm.get(word) != 0;
      in.flow.eogm = c::kEogm.get(word) != 0;
      in.flow.eostsc = c::kEostsc.get(word) != 0;
      break;
    case Form::flow_branch2:
      in.flow.invert[1] = c::kInv2.get(word) != 0;
      in.flow.comp[1] = static_cast<std::uint8_t>(c::kComp2.get(word));
      [[fallthrough]];
    case Form::flow_branch:
    case Form::flow_kill:
      if (form == Form::flow_kill && kIndexBits.get(word)) no_match(d);
      in.flow.invert[0] = c::kInv1.get(word) != 0;
      in.flow.comp[0] = static_cast<std::uint8_t>(c::kComp1.get(word));
      break;
    case Form::flow_brac: in.flow.index = static_cast<std::uint8_t>(c::kIndex.get(word)); break;
    case Form::flow_getlast:
      in.flow.index = static_cast<std::uint8_t>(c::kClusterW.get(word));
      break;
    default: break;
  }
}

// mova/mova1: a cat1 move into a0.x (s16) or a1.x (u16), ir3-cat1.xml #instruction-cat1-mov.
bool is_mova(const Instruction& in) {
  return in.dst.kind == OperandKind::gpr && ((in.dst.reg == regid(kAddressReg, 0) &&
                                              in.src_type == Type::s16 && in.type == Type::s16) ||
                                             (in.dst.reg == regid(kAddressReg, 1) &&
                                              in.src_type == Type::u16 && in.type == Type::u16));
}

Operand decode_cat1_src(const Decoding& d, bool half, Type type, bool mova) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat1;
  const std::uint64_t src = c::kSrc.get(word);
  Operand op;
  switch (c::kSrcKind.get(word)) {
    case 0:
      if (c::kSrcRel.get(src)) {
        op.kind =
            c::kSrcRelConst.get(src) ? OperandKind::relative_const : OperandKind::relative_gpr;
        op.value = sign_extend(c::kSrcRelOffset.get(src), c::kSrcRelOffset.width());
        if ((src >> 12) != 0) no_match(d);
      } else {
        op = gpr(c::kSrcReg.get(src));
        op.last = c::kSrcLast.get(src) != 0;
        if ((src & ~std::uint64_t{0x4ff}) != 0) no_match(d);
      }
      break;
    case 1:
      op.kind = OperandKind::constant;
      op.reg = static_cast<std::uint16_t>(c::kSrcConst.get(src));
      if ((src >> 11) != 0) no_match(d);
      break;
    case 2: {
      // Mesa shows only the low half of a 16-bit signed or float immediate.
      const bool low_half_only = type == Type::s16 || type == Type::f16;
      op = immediate(static_cast<std::int64_t>(
          static_cast<std::uint32_t>(low_half_only ? src & 0xffff : src)));
      break;
    }
    default: no_match(d);
  }
  op.half = half;
  // On an immediate, (r) only shows (and only means something) for mova.
  op.repeat = c::kSrcR.get(word) != 0 && (op.kind != OperandKind::immediate || mova);
  return op;
}

void decode_cat1(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat1;
  const unsigned value = static_cast<unsigned>(c::kOpc.get(word));
  const bool multi = value == info(Opcode::swz).value;  // SUB_OPC picks swz/gat/sct
  // movs: a mov from a register with bit 31 of the source set.
  const bool movs = value == info(Opcode::movs).value && c::kSrcKind.get(word) == 0 && c::kMovsMarker.get(word);
  const unsigned sub = multi ? static_cast<unsigned>(c::kRepeat.get(word)) : movs ? info(Opcode::movs).sub : 0;
  in.opcode = by_category(d, 1, value, sub);
  in.ss = bits::kSs.get(word) != 0;
  in.ul = bits::kUl.get(word) != 0;
  in.type = static_cast<Type>(c::kDstType.get(word));
  in.src_type = static_cast<Type>(c::kSrcType.get(word));
  const bool src_half = is_cat1_half(in.src_type);
  const bool dst_half = is_cat1_half(in.type);
  auto dst = [&](std::uint64_t reg) {
    Operand op = gpr(reg, dst_half);
    return op;
  };
  auto mov_fields = [&] {
    in.repeat = static_cast<std::uint8_t>(c::kRepeat.get(word));
    in.sat = c::kSat.get(word) != 0;
    in.round = static_cast<std::uint8_t>(c::kRound.get(word));
    in.dst = dst(c::kDst.get(word));
    if (c::kDstRel.get(word)) {
      in.dst.kind = OperandKind::relative_gpr;
      in.dst.value = static_cast<std::int32_t>(c::kDst.get(word));
      in.dst.reg = 0;
    }
  };
  switch (info(in.opcode).form) {
    case Form::mov:
      mov_fields();
      in.src[0] = decode_cat1_src(d, src_half, in.src_type, is_mova(in));
      break;
    case Form::movs: {
      if ((word & c::kMovsZeroBits) != 0) no_match(d);
      mov_fields();
      in.src[0] = gpr(c::kSrcReg.get(word), src_half);
      in.src[0].last = c::kSrcLast.get(word) != 0;
      in.src[0].repeat = c::kSrcR.get(word) != 0;
      if (c::kMovsFromA0.get(word)) {
        if (c::kMovsFiber.get(word) != 0) no_match(d);
        in.src[1] = gpr(regid(kAddressReg, 0));
      } else {
        in.src[1] = immediate(static_cast<std::int64_t>(c::kMovsFiber.get(word)));
      }
      break;
    }
    case Form::mov_multi: {
      if (c::kSrcKind.get(word) != 0 || c::kSrcR.get(word) || c::kDstRel.get(word)) no_match(d);
      in.sat = c::kSat.get(word) != 0;
      in.round = static_cast<std::uint8_t>(c::kRound.get(word));
      in.dst = dst(c::kDst.get(word));
      in.src[0] = gpr(c::kSrcReg.get(word), src_half);
      const std::array<std::uint64_t, 3> more{c::kMulti1.get(word), c::kMulti2.get(word),
                                              c::kMulti3.get(word)};
      if (in.opcode == Opcode::swz) {
        in.src[1] = gpr(more[0], src_half);
        in.src[2] = dst(more[1]);
        if (more[2] != 0) no_match(d);
      } else {
        const bool extra_are_dsts = in.opcode == Opcode::sct;
        for (std::size_t i = 0; i < 3; ++i) {
          in.src[i + 1] = extra_are_dsts ? dst(more[i]) : gpr(more[i], src_half);
        }
      }
      break;
    }
    case Form::movmsk:
      if (in.type != Type::u32 || in.src_type != Type::u32 || c::kSrc.get(word) != 0 ||
          c::kSrcR.get(word) || c::kSrcKind.get(word) != 0) {
        no_match(d);
      }
      in.repeat = static_cast<std::uint8_t>(c::kRepeat.get(word));
      in.dst = dst(c::kDst.get(word));
      in.dst.half = false;
      if (c::kDstRel.get(word)) no_match(d);
      break;
    default: no_match(d);
  }
}

void decode_cat2(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat2;
  const unsigned value = static_cast<unsigned>(c::kOpc.get(word));
  const bool input = value == info(Opcode::bary_f).value;  // bit 50 picks bary.f/flat.b
  const unsigned sub = input ? static_cast<unsigned>(c::kInputSub.get(word)) : 0;
  in.opcode = by_category(d, 2, value, sub);
  const Form form = info(in.opcode).form;
  in.ss = bits::kSs.get(word) != 0;
  in.ul = bits::kUl.get(word) != 0;
  in.sat = c::kSat.get(word) != 0;
  in.ei = c::kEi.get(word) != 0;
  in.repeat = static_cast<std::uint8_t>(c::kRepeat.get(word));
  const bool full = c::kFull.get(word) != 0;
  const std::uint64_t dst = c::kDst.get(word);
  in.dst = gpr(dst, dest_half(full, c::kDstConv.get(word) != 0, dst));
  if (form == Form::alu_cmp) {
    in.cond = static_cast<std::uint8_t>(c::kCond.get(word));
    if (in.cond >= kConditionCount) no_match(d);
  }
  const bool r1 = c::kSrc1R.get(word) != 0, r2 = c::kSrc2R.get(word) != 0;
  const bool nop_form = (r1 || r2) && in.repeat == 0;
  in.src[0] = decode_multisrc(c::kSrc1.get(word), full, d);
  if (form != Form::alu_1src) in.src[1] = decode_multisrc(c::kSrc2.get(word), full, d);
  if (nop_form) {
    in.nop = static_cast<std::uint8_t>((r1 ? 1 : 0) | (r2 ? 2 : 0));
  } else {
    in.src[0].repeat = r1;
    if (form != Form::alu_1src) in.src[1].repeat = r2;
  }
}

void decode_cat3(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat3;
  const unsigned value = static_cast<unsigned>(c::kOpc.get(word));
  const bool alt = c::kAlt.get(word) != 0;
  Form form = alt ? Form::tri_alt : Form::tri;
  unsigned sub = 0;
  if (alt && value == info(Opcode::dp2acc).value) {
    form = Form::tri_dot;
    sub = static_cast<unsigned>(c::kDstConv.get(word));
  } else if (alt && has_form(d, Form::tri, value, kTriWithAlBit)) {
    form = Form::tri;  // a7xx mad.*.mul2/div2: the plain form with the AL bit set
    sub = kTriWithAlBit;
  }
  in.opcode = by_form(d, form, value, sub);
  in.ss = bits::kSs.get(word) != 0;
  in.ul = bits::kUl.get(word) != 0;
  in.repeat = static_cast<std::uint8_t>(c::kRepeat.get(word));
  bool full = full_precision(info(in.opcode));
  if (form == Form::tri_alt) {
    full = c::kSatOrFull.get(word) != 0;
  } else {
    in.sat = c::kSatOrFull.get(word) != 0;
  }
  const std::uint64_t dst = c::kDst.get(word);
  in.dst = gpr(dst, form != Form::tri_dot && dest_half(full, c::kDstConv.get(word) != 0, dst));
  const bool immed_form = form == Form::tri_alt;
  in.src[0] = decode_cat3_src(c::kSrc1.get(word), full, immed_form, d);
  in.src[1] = gpr(c::kSrc2.get(word), !full);
  in.src[2] = decode_cat3_src(c::kSrc3.get(word), full, immed_form, d);
  in.src[2].neg = c::kSrc3Neg.get(word) != 0;
  if (form == Form::tri_dot) {
    in.dot.mixed = c::kSrc1Neg.get(word) != 0;
    in.dot.high = c::kSrc2Neg.get(word) != 0;
  } else {
    in.src[0].neg = c::kSrc1Neg.get(word) != 0;
    in.src[1].neg = c::kSrc2Neg.get(word) != 0;
  }
  const bool r1 = c::kSrc1R.get(word) != 0, r2 = c::kSrc2R.get(word) != 0;
  if ((r1 || r2) && in.repeat == 0) {
    in.nop = static_cast<std::uint8_t>((r1 ? 1 : 0) | (r2 ? 2 : 0));
  } else {
    in.src[0].repeat = r1;
    in.src[1].repeat = r2;
  }
  // The (nopN) display drops src3's (r); only the dot forms show it there.
  if (in.nop == 0 || form == Form::tri_dot) in.src[2].repeat = c::kSrc3R.get(word) != 0;
  if (form == Form::tri_dot) in.repeat = 0;
}

void decode_cat4(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat2;
  in.opcode = by_category(d, 4, static_cast<unsigned>(c::kOpc.get(word)), 0);
  in.ss = bits::kSs.get(word) != 0;
  in.ul = bits::kUl.get(word) != 0;
  in.sat = c::kSat.get(word) != 0;
  in.repeat = static_cast<std::uint8_t>(c::kRepeat.get(word));
  const bool full = c::kFull.get(word) != 0;
  const std::uint64_t dst = c::kDst.get(word);
  in.dst = gpr(dst, dest_half(full, c::kDstConv.get(word) != 0, dst));
  in.src[0] = decode_multisrc(c::kSrc1.get(word), full, d);
  in.src[0].repeat = c::kSrc1R.get(word) != 0;
}

void decode_cat5(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat5;
  const unsigned value = static_cast<unsigned>(c::kOpc.get(word));
  if (value == info(Opcode::brcst_active).value) {  // bit 53 picks brcst/quad_shuffle
    const bool quad = c::kP.get(word) != 0;
    in.opcode = quad ? by_form(d, Form::tex_quad, 31, static_cast<unsigned>(c::kW.get(word)))
                     : Opcode::brcst_active;
    if (c::kNot1d.get(word) || c::kSv.get(word)) no_match(d);
  } else {
    in.opcode = by_category(d, 5, value, 0);
  }
  const OpcodeInfo& row = info(in.opcode);
  if (row.form == Form::tex_tcinv) return;
  Instruction::Tex& t = in.tex;
  t.full = c::kFull.get(word) != 0;
  t.wrmask = static_cast<std::uint8_t>(c::kWrmask.get(word));
  // Without a displayed type the field is not shown; Mesa encodes f32 there.
  const bool has_type = shows_type(row);
  in.type = has_type ? static_cast<Type>(c::kType.get(word)) : Type::f32;
  in.dst = gpr(c::kDst.get(word), is_half(in.type));
  const unsigned num_src = texture_sources(row);
  if (num_src > 0) in.src[0] = gpr(c::kSrc1.get(word), !t.full);
  if (row.form == Form::tex_brcst || row.form == Form::tex_quad) {
    if (row.form == Form::tex_brcst) t.cluster = static_cast<std::uint8_t>(c::kW.get(word));
    if (num_src > 1) in.src[1] = gpr(c::kSrc2.get(word), !t.full);
    return;
  }
  t.is_3d = c::k3d.get(word) != 0;
  t.array = c::kA.get(word) != 0;
  t.offset = c::kO.get(word) != 0;
  t.sv = c::kSv.get(word) != 0;
  if (row.form == Form::tex_isam) {
    t.not_1d = c::kNot1d.get(word) != 0;
    // ir3-cat5.xml #cat5-src2: a register when .o, else the immediate offset, which shows (and
    // so means something) only when it is not 0.
    if (t.offset) {
      in.src[1] = gpr(c::kSrc2.get(word), !t.full);
    } else if (c::kP.get(word) && c::kSrc2.get(word) != 0) {
      in.src[1] = immediate(static_cast<std::int64_t>(c::kSrc2.get(word)));
    }
  } else {
    if (c::kNot1d.get(word)) no_match(d);
    t.proj = c::kP.get(word) != 0;
    if (t.offset || num_src > 1) in.src[1] = gpr(c::kSrc2.get(word), !t.full);
  }
  t.s2en_bindless = c::kS2enBindless.get(word) != 0;
  // FULL describes the register sources; with none shown it carries nothing.
  if (in.src[0].kind != OperandKind::gpr && in.src[1].kind != OperandKind::gpr) t.full = false;
  const bool has_samp = has_sampler(row), has_tex = has_texture(row);
  if (!t.s2en_bindless) {
    if (c::kBaseLo.get(word) || c::kW.get(word)) no_match(d);
    if (has_samp) t.samp = static_cast<std::uint8_t>(c::kSamp.get(word));
    if (has_tex) t.tex = static_cast<std::uint8_t>(c::kTex.get(word));
    return;
  }
  t.desc_mode = static_cast<std::uint8_t>(c::kDescMode.get(word));
  // The base only exists (and only shows) in the bindless modes.
  if (desc_bindless(t.desc_mode)) {
    t.base = static_cast<std::uint8_t>(c::kW.get(word) << 1 | c::kBaseLo.get(word));
  }
  const std::uint64_t src3 = c::kSrc3.get(word);
  if (desc_indirect(t.desc_mode)) {
    in.src[2] = gpr(src3, !desc_bindless(t.desc_mode));
  } else if (desc_uses_a1(t.desc_mode)) {
    // a1.x holds the other index: on a6xx src3 is an 8-bit sampler, on a7xx an 8-bit texture
    // (ir3-cat5.xml #cat5-s2enb-uses_a1-gen6 / -gen7).
    if (d.gen == Generation::a6xx && has_samp) t.samp = static_cast<std::uint8_t>(src3);
    if (d.gen == Generation::a7xx && has_tex) t.tex = static_cast<std::uint8_t>(src3);
  } else {
    if (has_samp) t.samp = static_cast<std::uint8_t>(src3 & 0xf);
    if (has_tex) t.tex = static_cast<std::uint8_t>(src3 >> 4);
  }
}

constexpr bool valid_shuffle_mode(unsigned mode) { return syntax::kShuffleModes[mode][0] != '\0'; }

// The a6xx cat6 forms keep their opcode in bits 14..19; they all set bit 53.
std::optional<Form> a6xx_cat6_form(const Decoding& d) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat6;
  if (!c::kBit53.get(word)) return std::nullopt;
  const unsigned opc = static_cast<unsigned>(c::kA6Opc.get(word));
  const std::uint64_t sub = c::kA6Sub.get(word);
  const bool plain = c::kOpc.get(word) == 0 && c::kOffsetHi.get(word) == 0 && !c::kRck.get(word);
  const bool is52 = c::kBit52.get(word) != 0, bit0 = c::kBit0.get(word) != 0;
  const bool descriptor_sub = (sub & 0x7) == c::kSubDescriptor;
  auto listed = [&](Form form) { return has_form(d, form, opc); };
  if (listed(Form::ldc) && (sub & c::kSubLdc) && plain && (c::kType.get(word) & 3) == 3) {
    return is52 ? Form::ldc_k : Form::ldc;
  }
  if (!is52 && listed(Form::sysid) && plain && !bit0 && (sub & c::kSubSysId) &&
      (opc != c::kOpcFiberId || (sub & c::kSubFiberId) == c::kSubFiberId)) {
    return Form::sysid;
  }
  if (listed(Form::res_1src) && plain && !bit0 && sub == c::kSubDescriptor) return Form::res_1src;
  if (is52 && descriptor_sub && plain && !c::kBit23.get(word) && listed(Form::ibo_atomic)) {
    return Form::ibo_atomic;
  }
  // stib.b requires bit 0 clear; ldib.b leaves it free (ir3-cat6.xml).
  if (!is52 && descriptor_sub && listed(Form::ibo_ldst) &&
      (opc != info(Opcode::stib_b).value || !bit0)) {
    // On a7xx an ldib.b with bit 0 set and OFFSET_LO 14 is also a ray_intersection, whose
    // pattern leaves every other bit free; isaspec decodes a word two bitsets match as nothing.
    if (d.gen == Generation::a7xx && bit0 && c::kOffsetLo.get(word) == info(Opcode::ray_intersection).value) no_match(d);
    return Form::ibo_ldst;
  }
  return std::nullopt;
}

void decode_cat6(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat6;
  auto& m = in.mem;
  in.type = static_cast<Type>(c::kType.get(word));
  const bool type_half = is_half(in.type);
  if (auto form = a6xx_cat6_form(d)) {
    const unsigned opc = static_cast<unsigned>(c::kA6Opc.get(word));
    in.opcode = by_form(d, *form, opc, 0);
    m.mode = static_cast<std::uint8_t>(c::kMode.get(word));
    if (m.mode >= syntax::kDescriptorModes.size()) no_match(d);
    m.bindless = c::kBindless.get(word) != 0;
    if (m.bindless) m.base = static_cast<std::uint8_t>(c::kBase.get(word));  // shown only then
    // Component count, dimension and typed-ness exist where the syntax shows them; ldc reuses
    // the dimension and typed bits for its offset and .u.
    if (*form != Form::ldc_k && *form != Form::sysid) {
      m.size = static_cast<std::uint8_t>(c::kTypeSizeMinus1.get(word) + 1);
    }
    if (*form == Form::res_1src || *form == Form::ibo_ldst || *form == Form::ibo_atomic) {
      m.dim = static_cast<std::uint8_t>(c::kDimMinus1.get(word) + 1);
      m.typed = c::kTyped.get(word) != 0;
    }
    const bool ssbo_im = m.mode == 0;
    switch (*form) {
      case Form::ldc:
        m.uniform_u = c::kLdcU.get(word) != 0;
        m.offset = static_cast<std::int32_t>(c::kLdcOffset.get(word));
        in.dst = gpr(c::kDst.get(word));
        [[fallthrough]];
      case Form::ldc_k:
        if (*form == Form::ldc_k) m.size = static_cast<std::uint8_t>(c::kDst.get(word) + 1);
        in.type = Type::u32;
        in.src[0] = cat6_src(c::kSrc2.get(word), c::kSrc2Im.get(word) != 0);
        in.src[1] = cat6_src(c::kSsbo.get(word), ssbo_im);
        break;
      case Form::sysid: in.dst = gpr(c::kDst.get(word)); break;
      case Form::res_1src:
        in.dst = gpr(c::kDst.get(word));
        in.src[0] = cat6_src(c::kSsbo.get(word), ssbo_im);
        break;
      case Form::ibo_ldst:
        m.offset = static_cast<std::int32_t>(c::kOffsetHi.get(word) << 5 | c::kOffsetLo.get(word));
        if (!c::kBit23.get(word) && m.offset != 0) no_match(d);
        m.rck = c::kRck.get(word) != 0;
        [[fallthrough]];
      case Form::ibo_atomic:
        in.src[0] = gpr(c::kDst.get(word), *form == Form::ibo_ldst && type_half);
        in.src[1] = gpr(c::kSrc2.get(word));
        in.src[2] = cat6_src(c::kSsbo.get(word), ssbo_im);
        break;
      default: no_match(d);
    }
    return;
  }
  const unsigned opc = static_cast<unsigned>(c::kOpc.get(word));
  const bool b52 = c::kBit52.get(word) != 0, b53 = c::kBit53.get(word) != 0;
  // The a3xx-style forms: the opcode picks the family, bits 52/53 (and 22) the variant.
  Form form;
  // The register-offset forms of ldg/stg differ by generation (two ir3-cat6.xml bitsets each).
  const bool a7xx_address = d.gen == Generation::a7xx;
  if (has_form(d, Form::ldg, opc)) {
    if (b53) no_match(d);
    form = b52 ? Form::ldg_k : !c::kRegForm.get(word) ? Form::ldg : a7xx_address ? Form::ldg_a_a7xx : Form::ldg_a;
  } else if (has_form(d, Form::stg, opc)) {
    if (b53) no_match(d);
    form = !b52 ? Form::stg : a7xx_address ? Form::stg_a_a7xx : Form::stg_a;
  } else if (has_form(d, Form::shfl, opc)) {
    if (!b53 || b52) no_match(d);
    form = Form::shfl;
  } else if (has_form(d, Form::atomic_local, opc)) {
    if (b53) no_match(d);
    form = b52 ? Form::atomic_global : Form::atomic_local;
  } else {
    const Form plain_forms[] = {Form::ld_local, Form::st_local, Form::ldlv, Form::stc, Form::stsc, Form::ray_intersection};
    const Form* found = std::find_if(std::begin(plain_forms), std::end(plain_forms),
                                     [&](Form f) { return has_form(d, f, opc); });
    if (found == std::end(plain_forms)) no_match(d);
    form = *found;
  }
  in.opcode = by_form(d, form, opc, 0);
  // Fixed bits of the global load/store bitsets (ir3-cat6.xml #instruction-cat6-ldg, ldg.k,
  // #instruction-cat6-stg): bits 30..31 are 0, loads set bit 0 and (but ldg.k) bit 23, stores
  // bit 23.
  const bool global_load = form == Form::ldg || form == Form::ldg_a || form == Form::ldg_a_a7xx || form == Form::ldg_k;
  const bool global_store = form == Form::stg || form == Form::stg_a || form == Form::stg_a_a7xx;
  if (global_load || global_store) {
    constexpr Field kBits30And31{30, 31};
    if (kBits30And31.get(word)) no_match(d);
    if (global_load && !c::kBit0.get(word)) no_match(d);
    if (form == Form::ldg_k ? c::kRegForm.get(word) != 0 : !c::kBit23.get(word)) no_match(d);
  }
  switch (form) {
    case Form::ldg:
      m.offset = sign_extend(c::kLdOffset.get(word), c::kLdOffset.width());
      [[fallthrough]];
    case Form::ldg_a:
      in.dst = gpr(c::kDst.get(word), type_half);
      in.src[0] = gpr(c::kLdSrc.get(word));
      m.size = static_cast<std::uint8_t>(c::kSize3.get(word));
      if (form == Form::ldg_a) {
        in.src[1] = gpr(c::kAddrSrc2.get(word));
        m.offset = static_cast<std::int32_t>(c::kAddrOffset.get(word));
        m.shift = static_cast<std::uint8_t>(c::kAddrShift.get(word));
      }
      break;
    case Form::ldg_k:
      m.offset = sign_extend(c::kLdOffset.get(word), c::kLdOffset.width());
      in.src[0] = gpr(c::kLdSrc.get(word));
      m.size = static_cast<std::uint8_t>(c::kSize4.get(word));
      in.dst.kind = OperandKind::constant;
      in.dst.value = static_cast<std::int32_t>(c::kConstDst.get(word));
      m.const_dst_a1 = c::kConstDstA1.get(word) != 0;
      break;
    case Form::stg:
    case Form::stg_a:
      in.src[0] = gpr(c::kStBase.get(word));
      m.size = static_cast<std::uint8_t>(c::kSize3.get(word));
      if (form == Form::stg) {
        m.offset = static_cast<std::int32_t>(
            static_cast<std::uint32_t>(sign_extend(c::kStOffsetHi.get(word), 5)) * 256u +
            static_cast<std::uint32_t>(c::kStOffsetLo.get(word)));
        in.src[1] = gpr(c::kStValue.get(word), type_half);
      } else {
        in.src[1] = gpr(c::kStAddrSrc2.get(word));
        m.offset = static_cast<std::int32_t>(c::kAddrOffset.get(word));
        m.shift = static_cast<std::uint8_t>(c::kAddrShift.get(word));
        in.src[2] = gpr(c::kStValue.get(word), type_half);
      }
      break;
    case Form::ldg_a_a7xx:
      in.dst = gpr(c::kDst.get(word), type_half);
      in.src[0] = const_or_gpr(c::kLdSrc.get(word), c::kSrc1Const.get(word) != 0);
      in.src[1] = gpr(c::kAddrSrc2.get(word));
      m.size = static_cast<std::uint8_t>(c::kSize3.get(word));
      m.offset = static_cast<std::int32_t>(c::kA7LdgOffset.get(word));
      break;
    case Form::stg_a_a7xx:
      if (c::kRegForm.get(word) || !c::kBit23.get(word)) no_match(d);
      in.src[0] = const_or_gpr(c::kStBase.get(word), c::kSrc1Const.get(word) != 0);
      in.src[1] = gpr(c::kStAddrSrc2.get(word));
      in.src[2] = gpr(c::kStValue.get(word), type_half);
      m.size = static_cast<std::uint8_t>(c::kSize3.get(word));
      m.offset = static_cast<std::int32_t>(c::kA7StgOffset.get(word));
      break;
    case Form::stsc:
      // Bit 40 is an isaspec <assert>: the encoder writes 0, the decoder does not look at it.
      if (!c::kRegForm.get(word) || !c::kBit23.get(word) || b52 || b53) no_match(d);
      in.dst.kind = OperandKind::constant;
      in.dst.value = static_cast<std::int32_t>(c::kStscDstHi.get(word) << 8 | c::kStscDstLo.get(word));
      in.src[0] = immediate(static_cast<std::int64_t>(c::kStscSrc.get(word)));
      m.size = static_cast<std::uint8_t>(c::kSize8.get(word));
      break;
    case Form::ray_intersection:
      if (!c::kBit0.get(word)) no_match(d);
      in.type = Type::f16;  // not part of the encoding (bits 49..53 are free)
      in.dst = gpr(c::kDst.get(word));
      in.src[0] = const_or_gpr(c::kLdSrc.get(word), c::kSrc1Const.get(word) != 0);
      in.src[1] = gpr(c::kRaySrc2.get(word));
      in.src[2] = gpr(c::kRaySrc3.get(word));
      in.src[3] = gpr(c::kRaySrc4.get(word));
      break;
    case Form::ld_local:
      m.offset = sign_extend(c::kLdOffset.get(word), c::kLdOffset.width());
      in.src[0] = gpr(c::kLdSrc.get(word));
      m.size = static_cast<std::uint8_t>(c::kSize8.get(word));
      in.dst = gpr(c::kDst.get(word), type_half);
      break;
    case Form::st_local:
      m.offset = static_cast<std::int32_t>(
          static_cast<std::uint32_t>(sign_extend(c::kStOffsetHi.get(word), 5)) * 256u +
          static_cast<std::uint32_t>(c::kStOffsetLo.get(word)));
      in.src[0] = gpr(c::kStBase.get(word));
      in.src[1] = gpr(c::kStValue.get(word), type_half);
      m.size = static_cast<std::uint8_t>(c::kSize8.get(word));
      break;
    case Form::ldlv:
      m.offset = static_cast<std::int32_t>(c::kLdOffset.get(word));
      m.size = static_cast<std::uint8_t>(c::kSize8.get(word));
      in.dst = gpr(c::kDst.get(word), type_half);
      break;
    case Form::stc:
      in.src[0] = gpr(c::kStValue.get(word), type_half);
      m.size = static_cast<std::uint8_t>(c::kSize3.get(word));
      in.dst.kind = OperandKind::constant;
      in.dst.value = static_cast<std::int32_t>(c::kConstDst.get(word));
      m.const_dst_a1 = c::kConstDstA1.get(word) != 0;
      break;
    case Form::atomic_local:
    case Form::atomic_global:
      m.dim = static_cast<std::uint8_t>(c::kDimMinus1.get(word) + 1);
      m.typed = c::kTyped.get(word) != 0;
      m.size = static_cast<std::uint8_t>(c::kTypeSizeMinus1.get(word) + 1);
      in.dst = gpr(c::kDst.get(word));
      in.src[0] = cat6_src(c::kAtomicSrc1.get(word), c::kAtomicSrc1Im.get(word) != 0);
      in.src[1] = cat6_src(c::kSrc2.get(word), c::kSrc2Im.get(word) != 0);
      break;
    case Form::shfl:
      in.dst = gpr(c::kDst.get(word), type_half);
      in.src[0] = gpr(c::kStValue.get(word), type_half);
      in.src[1] = cat6_src(c::kSrc2.get(word), c::kSrc2Im.get(word) != 0);
      m.shfl_mode = static_cast<std::uint8_t>(c::kShflMode.get(word));
      if (!valid_shuffle_mode(m.shfl_mode)) no_match(d);
      break;
    default: no_match(d);
  }
}

void decode_alias(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat7;
  Instruction::Alias& a = in.alias;
  a.scope = static_cast<std::uint8_t>(c::kAliasScopeHi.get(word) << 1 | c::kAliasScopeLo.get(word));
  a.table_size_minus_one = static_cast<std::uint8_t>(c::kAliasTableSize.get(word));
  a.integer = c::kAliasTypeInt.get(word) != 0;
  a.size32 = c::kAliasSize32.get(word) != 0;
  // The zero bits the ir3-cat7.xml overrides list for an rt destination and a register or const
  // source are not matched by isaspec's decoder (an override only re-reads fields), so they are
  // not looked at here either.
  const std::uint64_t dst = c::kAliasDst.get(word);
  in.dst = gpr(a.scope == 1 ? dst & 0x1f : dst, a.scope != 1 && !a.size32);
  const std::uint64_t src = c::kAliasSrc.get(word);
  switch (c::kAliasSrcKind.get(word)) {
    case 0: in.src[0] = gpr(src & 0xff, !a.size32); break;
    case 1:
      in.src[0].kind = OperandKind::constant;
      in.src[0].reg = static_cast<std::uint16_t>(src & 0x7ff);
      in.src[0].half = !a.size32;
      break;
    case 2:
      // A 16-bit immediate shows (and so keeps) only its low half.
      in.src[0] = immediate(static_cast<std::int64_t>(static_cast<std::uint32_t>(a.size32 ? src : src & 0xffff)));
      in.src[0].half = !a.size32;
      break;
    default: no_match(d);  // #alias-src-reg-type has no value 3
  }
}

void decode_cat7(const Decoding& d, Instruction& in) {
  const std::uint64_t word = d.word;
  namespace c = bits::cat7;
  const unsigned value = static_cast<unsigned>(c::kOpc.get(word));
  unsigned sub = 0;
  // ccinv shares dcinv's opcode, lock and unlock one another's (ir3-cat7.xml patterns).
  if (has_form(d, Form::cache_wide, value, info(Opcode::ccinv).sub) && c::kBarrierMarker.get(word) &&
      c::kCcinvFixed.get(word) == c::kCcinvPattern) {
    sub = info(Opcode::ccinv).sub;
  } else if (has_form(d, Form::lock, value)) {
    const unsigned control = static_cast<unsigned>(c::kControl.get(word));
    if (control != c::kLockPattern && control != c::kUnlockPattern) no_match(d);
    sub = control == c::kUnlockPattern ? info(Opcode::unlock).sub : info(Opcode::lock).sub;
  }
  in.opcode = by_category(d, 7, value, sub);
  in.ss = bits::kSs.get(word) != 0;
  switch (info(in.opcode).form) {
    case Form::barrier:
      if (!c::kBarrierMarker.get(word)) no_match(d);
      in.sync.g = c::kG.get(word) != 0;
      in.sync.l = c::kL.get(word) != 0;
      in.sync.r = c::kR.get(word) != 0;
      in.sync.w = c::kW.get(word) != 0;
      break;
    case Form::sleep: in.sync.flag = c::kW.get(word) != 0; break;
    case Form::cache:
      if (c::kR.get(word)) no_match(d);  // bit 52 is 0 in dccln/dcinv/dcflu
      in.sync.flag = c::kW.get(word) != 0;
      break;
    case Form::alias: decode_alias(d, in); break;
    default: break;
  }
}

// ---------------------------------------------------------------------------------------------
// Per-category encoders.

void encode_cat0(const Instruction& in, const OpcodeInfo& row, Word& w) {
  namespace c = bits::cat0;
  w.put(c::kOpc, row.value & 0xf, "opcode");
  w.put(c::kOpcHi, row.value >> 4, "opcode");
  if (row.value == info(Opcode::br).value) w.put(c::kBrType, row.sub, "branch type");
  w.flag(bits::kSs, in.ss);
  w.flag(c::kEq, in.eq);
  if (row.form != Form::flow_bare && row.form != Form::flow_kill) {
    w.put_signed(c::kImmed, in.flow.target, "branch target");
  }
  switch (row.form) {
    case Form::flow_bare:
      w.put(c::kRepeat, in.repeat, "repeat");
      w.flag(c::kEolm, in.flow.eolm);
      w.flag(c::kEogm, in.flow.eogm);
      w.flag(c::kEostsc, in.flow.eostsc);
      break;
    case Form::flow_branch2:
      w.flag(c::kInv2, in.flow.invert[1]);
      w.put(c::kComp2, in.flow.comp[1], "predicate component");
      [[fallthrough]];
    case Form::flow_branch:
    case Form::flow_kill:
      w.flag(c::kInv1, in.flow.invert[0]);
      w.put(c::kComp1, in.flow.comp[0], "predicate component");
      break;
    case Form::flow_brac: w.put(c::kIndex, in.flow.index, "brac index"); break;
    case Form::flow_getlast: w.put(c::kClusterW, in.flow.index, "cluster size"); break;
    default: break;
  }
}

void encode_cat1_src(const Instruction& in, Word& w) {
  namespace c = bits::cat1;
  const Operand& s = in.src[0];
  w.flag(c::kSrcR, s.repeat);
  switch (s.kind) {
    case OperandKind::gpr:
      w.put(c::kSrcReg, s.reg, "source register");
      w.flag(c::kSrcLast, s.last);
      break;
    case OperandKind::relative_gpr:
    case OperandKind::relative_const:
      w.put_signed(c::kSrcRelOffset, s.value, "relative offset");
      w.flag(c::kSrcRelConst, s.kind == OperandKind::relative_const);
      w.flag(c::kSrcRel, true);
      break;
    case OperandKind::constant:
      w.put(c::kSrcConst, s.reg, "source const");
      w.put(c::kSrcKind, 1, "source kind");
      break;
    case OperandKind::immediate:
      w.put(c::kSrc, static_cast<std::uint32_t>(s.value), "immediate");
      w.put(c::kSrcKind, 2, "source kind");
      break;
    case OperandKind::none: w.reject("source is missing");
  }
}

void encode_cat1(const Instruction& in, const OpcodeInfo& row, Word& w) {
  namespace c = bits::cat1;
  w.put(c::kOpc, row.value, "opcode");
  w.flag(bits::kSs, in.ss);
  w.flag(bits::kUl, in.ul);
  w.put(c::kDstType, static_cast<unsigned>(in.type), "dst type");
  w.put(c::kSrcType, static_cast<unsigned>(in.src_type), "src type");
  auto mov_fields = [&] {
    w.put(c::kRepeat, in.repeat, "repeat");
    w.flag(c::kSat, in.sat);
    w.put(c::kRound, in.round, "round");
    if (in.dst.kind == OperandKind::relative_gpr) {
      w.put(c::kDst, static_cast<std::uint32_t>(in.dst.value), "relative dst offset");
      w.flag(c::kDstRel, true);
    } else {
      put_gpr(w, c::kDst, in.dst, "dst");
    }
  };
  switch (row.form) {
    case Form::mov:
      mov_fields();
      encode_cat1_src(in, w);
      break;
    case Form::movs:
      mov_fields();
      put_gpr(w, c::kSrcReg, in.src[0], "source register");
      w.flag(c::kSrcLast, in.src[0].last);
      w.flag(c::kSrcR, in.src[0].repeat);
      w.flag(c::kMovsMarker, true);
      if (in.src[1].kind == OperandKind::immediate) {
        w.put(c::kMovsFiber, static_cast<std::uint32_t>(in.src[1].value), "fiber");
      } else if (in.src[1].kind == OperandKind::gpr && in.src[1].reg == regid(kAddressReg, 0)) {
        w.flag(c::kMovsFromA0, true);
      } else {
        w.reject("the fiber is an immediate or a0.x");
      }
      break;
    case Form::mov_multi: {
      w.put(c::kRepeat, row.sub, "sub-opcode");
      w.flag(c::kSat, in.sat);
      w.put(c::kRound, in.round, "round");
      put_gpr(w, c::kDst, in.dst, "dst");
      put_gpr(w, c::kSrcReg, in.src[0], "src0");
      const std::array<Field, 3> more{c::kMulti1, c::kMulti2, c::kMulti3};
      const std::size_t count = in.opcode == Opcode::swz ? 2 : 3;
      for (std::size_t i = 0; i < count; ++i) put_gpr(w, more[i], in.src[i + 1], "operand");
      break;
    }
    case Form::movmsk:
      w.put(c::kRepeat, in.repeat, "width");
      put_gpr(w, c::kDst, in.dst, "dst");
      break;
    default: break;
  }
}

void encode_cat2(const Instruction& in, const OpcodeInfo& row, Word& w) {
  namespace c = bits::cat2;
  w.put(c::kOpc, row.value, "opcode");
  if (row.form == Form::alu_input) w.put(c::kInputSub, row.sub, "opcode");
  w.flag(bits::kSs, in.ss);
  w.flag(bits::kUl, in.ul);
  w.flag(c::kSat, in.sat);
  w.flag(c::kEi, in.ei);
  w.put(c::kRepeat, in.repeat, "repeat");
  const std::size_t count = row.form == Form::alu_1src ? 1 : 2;
  const bool full = sources_full(in, count);
  w.flag(c::kFull, full);
  put_gpr(w, c::kDst, in.dst, "dst");
  w.flag(c::kDstConv, dest_conv(full, in.dst));
  if (row.form == Form::alu_cmp) {
    if (in.cond >= kConditionCount) w.reject("condition must be lt, le, gt, ge, eq or ne");
    w.put(c::kCond, in.cond, "condition");
  }
  w.put(c::kSrc1, encode_multisrc(w, in.src[0], "src1"), "src1");
  if (count == 2) w.put(c::kSrc2, encode_multisrc(w, in.src[1], "src2"), "src2");
  if (in.nop != 0) {
    if (in.repeat != 0) w.reject("(nopN) cannot be combined with (rptN)");
    w.flag(c::kSrc1R, (in.nop & 1) != 0);
    w.flag(c::kSrc2R, (in.nop & 2) != 0);
    if (in.nop > 3) w.reject("(nopN) takes N = 1..3");
  } else {
    w.flag(c::kSrc1R, in.src[0].repeat);
    w.flag(c::kSrc2R, in.src[1].repeat);
  }
}

void encode_cat3(const Instruction& in, const OpcodeInfo& row, Word& w) {
  namespace c = bits::cat3;
  w.put(c::kOpc, row.value, "opcode");
  w.flag(c::kAlt, row.form != Form::tri || row.sub == kTriWithAlBit);
  w.flag(bits::kSs, in.ss);
  w.flag(bits::kUl, in.ul);
  w.put(c::kRepeat, in.repeat, "repeat");
  const bool full = row.form == Form::tri_alt ? !in.src[1].half : full_precision(row);
  if (row.form == Form::tri_alt) {
    w.flag(c::kSatOrFull, full);
  } else {
    w.flag(c::kSatOrFull, in.sat);
  }
  put_gpr(w, c::kDst, in.dst, "dst");
  if (row.form == Form::tri_dot) {
    w.put(c::kDstConv, row.sub, "opcode");
    w.flag(c::kSrc1Neg, in.dot.mixed);
    w.flag(c::kSrc2Neg, in.dot.high);
  } else {
    w.flag(c::kDstConv, dest_conv(full, in.dst));
    w.flag(c::kSrc1Neg, in.src[0].neg);
    w.flag(c::kSrc2Neg, in.src[1].neg);
  }
  const bool immed_form = row.form == Form::tri_alt;
  w.put(c::kSrc1, encode_cat3_src(w, in.src[0], immed_form, "src1"), "src1");
  put_gpr(w, c::kSrc2, in.src[1], "src2");
  w.put(c::kSrc3, encode_cat3_src(w, in.src[2], immed_form, "src3"), "src3");
  w.flag(c::kSrc3Neg, in.src[2].neg);
  w.flag(c::kSrc3R, in.src[2].repeat);
  if (in.nop != 0) {
    if (in.repeat != 0) w.reject("(nopN) cannot be combined with (rptN)");
    if (in.nop > 3) w.reject("(nopN) takes N = 1..3");
    w.flag(c::kSrc1R, (in.nop & 1) != 0);
    w.flag(c::kSrc2R, (in.nop & 2) != 0);
  } else {
    w.flag(c::kSrc1R, in.src[0].repeat);
    w.flag(c::kSrc2R, in.src[1].repeat);
  }
}

void encode_cat4(const Instruction& in, const OpcodeInfo& row, Word& w) {
  namespace c = bits::cat2;
  w.put(c::kOpc, row.value, "opcode");
  w.flag(bits::kSs, in.ss);
  w.flag(bits::kUl, in.ul);
  w.flag(c::kSat, in.sat);
  w.put(c::kRepeat, in.repeat, "repeat");
  const bool full = sources_full(in, 1);
  w.flag(c::kFull, full);
  put_gpr(w, c::kDst, in.dst, "dst");
  w.flag(c::kDstConv, dest_conv(full, in.dst));
  w.put(c::kSrc1, encode_multisrc(w, in.src[0], "src"), "src");
  w.flag(c::kSrc1R, in.src[0].repeat);
}

void encode_cat5(const Instruction& in, const OpcodeInfo& row, Word& w) {
  namespace c = bits::cat5;
  w.put(c::kOpc, row.value, "opcode");
  if (row.form == Form::tex_tcinv) return;
  const Instruction::Tex& t = in.tex;
  w.flag(c::kFull, t.full);
  w.put(c::kWrmask, t.wrmask, "write mask");
  w.put(c::kType, static_cast<unsigned>(in.type), "type");
  put_gpr(w, c::kDst, in.dst, "dst");
  const unsigned num_src = texture_sources(row);
  if (num_src > 0) put_gpr(w, c::kSrc1, in.src[0], "src1");
  if (row.form == Form::tex_brcst || row.form == Form::tex_quad) {
    w.flag(c::kP, row.form == Form::tex_quad);
    w.put(c::kW, row.form == Form::tex_quad ? row.sub : t.cluster, "cluster");
    if (num_src > 1) put_gpr(w, c::kSrc2, in.src[1], "src2");
    return;
  }
  w.flag(c::k3d, t.is_3d);
  w.flag(c::kA, t.array);
  w.flag(c::kO, t.offset);
  w.flag(c::kSv, t.sv);
  if (row.form == Form::tex_isam) {
    w.flag(c::kNot1d, t.not_1d);
    if (in.src[1].kind == OperandKind::immediate) {
      w.flag(c::kP, true);
      w.put(c::kSrc2, static_cast<std::uint32_t>(in.src[1].value), "offset");
    } else if (t.offset) {
      put_gpr(w, c::kSrc2, in.src[1], "src2");
    }
  } else {
    w.flag(c::kP, t.proj);
    if (t.offset || num_src > 1) put_gpr(w, c::kSrc2, in.src[1], "src2");
  }
  w.flag(c::kS2enBindless, t.s2en_bindless);
  if (!t.s2en_bindless) {
    w.put(c::kSamp, t.samp, "sampler");
    w.put(c::kTex, t.tex, "texture");
    return;
  }
  w.put(c::kDescMode, t.desc_mode, "descriptor mode");
  w.flag(c::kBaseLo, (t.base & 1) != 0);
  w.put(c::kW, t.base >> 1, "base");
  if (desc_indirect(t.desc_mode)) {
    put_gpr(w, c::kSrc3, in.src[2], "src3");
  } else if (desc_uses_a1(t.desc_mode)) {  // a1.x holds the other index (see decode_cat5)
    if (w.gen() == Generation::a6xx) {
      w.put(c::kSrc3, t.samp, "sampler");
    } else {
      w.put(c::kSrc3, t.tex, "texture");
    }
  } else {
    if (t.samp > 15 || t.tex > 15) w.reject("sampler and texture take 0..15 in this mode");
    w.put(c::kSrc3, static_cast<unsigned>(t.tex << 4 | t.samp), "sampler/texture");
  }
}

void encode_cat6(const Instruction& in, const OpcodeInfo& row, Word& w) {
  namespace c = bits::cat6;
  const auto& m = in.mem;
  w.put(c::kType, static_cast<unsigned>(in.type), "type");
  auto put_st_offset = [&] {
    if (m.offset < -4096 || m.offset > 4095) {
      w.reject("offset " + std::to_string(m.offset) + " does not fit 13 signed bits");
    }
    const auto raw = static_cast<std::uint32_t>(m.offset);
    w.put(c::kStOffsetLo, raw & 0xff, "offset");
    w.put(c::kStOffsetHi, (raw >> 8) & 0x1f, "offset");
  };
  switch (row.form) {
    case Form::ldc:
    case Form::ldc_k:
    case Form::sysid:
    case Form::res_1src:
    case Form::ibo_ldst:
    case Form::ibo_atomic: {
      w.put(c::kA6Opc, row.value, "opcode");
      w.flag(c::kBit53, true);
      w.put(c::kBase, m.base, "base");
      w.put(c::kMode, m.mode, "mode");
      w.flag(c::kBindless, m.bindless);
      if (row.form != Form::ldc_k && row.form != Form::sysid) {
        if (m.size < 1) w.reject("component count must be at least 1");
        w.put(c::kTypeSizeMinus1, m.size - 1u, "component count");
      }
      if (m.dim < 1) w.reject("dimension must be 1d..4d");
      const bool ssbo_im = m.mode == 0;
      auto put_ssbo = [&](const Operand& op) {
        if ((op.kind == OperandKind::immediate) != ssbo_im) {
          w.reject("the descriptor operand is an immediate exactly in .imm mode");
        }
        put_cat6_src(w, c::kSsbo, op, "descriptor");
      };
      switch (row.form) {
        case Form::ldc:
        case Form::ldc_k:
          w.put(c::kA6Sub, c::kSubLdc, "sub-opcode");
          if (row.form == Form::ldc) {
            w.flag(c::kLdcU, m.uniform_u);
            w.put(c::kLdcOffset, static_cast<std::uint32_t>(m.offset), "offset");
            put_gpr(w, c::kDst, in.dst, "dst");
          } else {
            w.flag(c::kBit52, true);
            if (m.size < 1) w.reject("load size must be at least 1");
            w.put(c::kDst, m.size - 1u, "load size");
          }
          w.flag(c::kSrc2Im, in.src[0].kind == OperandKind::immediate);
          put_cat6_src(w, c::kSrc2, in.src[0], "offset");
          put_ssbo(in.src[1]);
          break;
        case Form::sysid:
          w.put(c::kA6Sub, row.value == c::kOpcFiberId ? c::kSubFiberId : c::kSubSysId,
                "sub-opcode");
          put_gpr(w, c::kDst, in.dst, "dst");
          break;
        case Form::res_1src:
          w.put(c::kA6Sub, c::kSubDescriptor, "sub-opcode");
          w.put(c::kDimMinus1, m.dim - 1u, "dimension");
          w.flag(c::kTyped, m.typed);
          put_gpr(w, c::kDst, in.dst, "dst");
          put_ssbo(in.src[0]);
          break;
        default:  // ibo_ldst, ibo_atomic
          w.put(c::kA6Sub, c::kSubDescriptor, "sub-opcode");
          w.put(c::kDimMinus1, m.dim - 1u, "dimension");
          w.flag(c::kTyped, m.typed);
          w.flag(c::kBit52, row.form == Form::ibo_atomic);
          put_gpr(w, c::kDst, in.src[0], "value");
          put_gpr(w, c::kSrc2, in.src[1], "coordinate");
          put_ssbo(in.src[2]);
          if (row.form == Form::ibo_ldst) {
            w.flag(c::kRck, m.rck);
            if (m.offset < 0) w.reject("offset must not be negative");
            const auto off = static_cast<std::uint32_t>(m.offset);
            w.flag(c::kBit23, off != 0);
            w.put(c::kOffsetLo, off & 0x1f, "offset");
            w.put(c::kOffsetHi, off >> 5, "offset");
          }
      }
      return;
    }
    default: break;
  }
  w.put(c::kOpc, row.value, "opcode");
  switch (row.form) {
    case Form::ldg:
    case Form::ldg_a:
    case Form::ldg_k:
      w.flag(c::kBit0, true);
      put_gpr(w, c::kLdSrc, in.src[0], "address");
      if (row.form == Form::ldg_k) {
        w.flag(c::kBit52, true);
        w.put_signed(c::kLdOffset, m.offset, "offset");
        w.put(c::kSize4, m.size, "size");
        w.put(c::kConstDst, static_cast<std::uint32_t>(in.dst.value), "const dst");
        w.flag(c::kConstDstA1, m.const_dst_a1);
        break;
      }
      w.flag(c::kBit23, true);
      w.put(c::kSize3, m.size, "size");
      put_gpr(w, c::kDst, in.dst, "dst");
      if (row.form == Form::ldg) {
        w.put_signed(c::kLdOffset, m.offset, "offset");
      } else {
        w.flag(c::kRegForm, true);
        put_gpr(w, c::kAddrSrc2, in.src[1], "index");
        w.put(c::kAddrOffset, static_cast<std::uint32_t>(m.offset), "offset");
        w.put(c::kAddrShift, m.shift, "shift");
      }
      break;
    case Form::ldg_a_a7xx:
      w.flag(c::kBit0, true);
      w.flag(c::kBit23, true);
      w.flag(c::kRegForm, true);
      put_const_or_gpr(w, c::kLdSrc, in.src[0], "address");
      put_gpr(w, c::kAddrSrc2, in.src[1], "index");
      w.put(c::kA7LdgOffset, static_cast<std::uint32_t>(m.offset), "offset");
      w.put(c::kSize3, m.size, "size");
      put_gpr(w, c::kDst, in.dst, "dst");
      break;
    case Form::stg_a_a7xx:
      w.flag(c::kBit23, true);
      w.flag(c::kDstOff, true);
      w.flag(c::kBit52, true);
      put_const_or_gpr(w, c::kStBase, in.src[0], "address");
      put_gpr(w, c::kStAddrSrc2, in.src[1], "index");
      w.put(c::kA7StgOffset, static_cast<std::uint32_t>(m.offset), "offset");
      put_gpr(w, c::kStValue, in.src[2], "value");
      w.put(c::kSize3, m.size, "size");
      break;
    case Form::stsc: {
      w.flag(c::kRegForm, true);
      w.flag(c::kBit23, true);
      if (in.src[0].kind != OperandKind::immediate) w.reject("the shared-const source is an immediate");
      w.put(c::kStscSrc, static_cast<std::uint32_t>(in.src[0].value), "source");
      const auto dst = static_cast<std::uint32_t>(in.dst.value);
      if (dst >> 13 != 0) w.reject("const dst = " + std::to_string(dst) + " does not fit 13 bits");
      w.put(c::kStscDstLo, dst & 0xff, "const dst");
      w.put(c::kStscDstHi, dst >> 8, "const dst");
      w.put(c::kSize8, m.size, "size");
      break;
    }
    case Form::ray_intersection:
      w.flag(c::kBit0, true);
      put_gpr(w, c::kDst, in.dst, "dst");
      put_const_or_gpr(w, c::kLdSrc, in.src[0], "acceleration structure");
      put_gpr(w, c::kRaySrc2, in.src[1], "src2");
      put_gpr(w, c::kRaySrc3, in.src[2], "src3");
      put_gpr(w, c::kRaySrc4, in.src[3], "src4");
      break;
    case Form::stg:
    case Form::stg_a:
      w.flag(c::kBit23, true);
      w.flag(c::kDstOff, true);
      put_gpr(w, c::kStBase, in.src[0], "address");
      w.put(c::kSize3, m.size, "size");
      if (row.form == Form::stg) {
        put_st_offset();
        put_gpr(w, c::kStValue, in.src[1], "value");
      } else {
        w.flag(c::kBit52, true);
        put_gpr(w, c::kStAddrSrc2, in.src[1], "index");
        w.put(c::kAddrOffset, static_cast<std::uint32_t>(m.offset), "offset");
        w.put(c::kAddrShift, m.shift, "shift");
        put_gpr(w, c::kStValue, in.src[2], "value");
      }
      break;
    case Form::ld_local:
      w.flag(c::kBit0, true);
      w.flag(c::kBit23, true);
      w.put_signed(c::kLdOffset, m.offset, "offset");
      put_gpr(w, c::kLdSrc, in.src[0], "address");
      w.put(c::kSize8, m.size, "size");
      put_gpr(w, c::kDst, in.dst, "dst");
      break;
    case Form::st_local:
      w.flag(c::kBit23, true);
      w.flag(c::kDstOff, true);
      put_st_offset();
      put_gpr(w, c::kStBase, in.src[0], "address");
      put_gpr(w, c::kStValue, in.src[1], "value");
      w.put(c::kSize8, m.size, "size");
      break;
    case Form::ldlv:
      w.flag(c::kRegForm, true);
      w.flag(c::kBit23, true);
      if (m.offset < 0) w.reject("offset must not be negative");
      w.put(c::kLdOffset, static_cast<std::uint32_t>(m.offset), "offset");
      w.put(c::kSize8, m.size, "size");
      put_gpr(w, c::kDst, in.dst, "dst");
      break;
    case Form::stc:
      w.flag(c::kBit23, true);
      put_gpr(w, c::kStValue, in.src[0], "value");
      w.put(c::kSize3, m.size, "size");
      w.put(c::kConstDst, static_cast<std::uint32_t>(in.dst.value), "const dst");
      w.flag(c::kConstDstA1, m.const_dst_a1);
      break;
    case Form::atomic_local:
    case Form::atomic_global:
      w.flag(c::kBit0, true);
      w.flag(c::kBit52, row.form == Form::atomic_global);
      if (m.dim < 1 || m.size < 1) w.reject("dimension and component count start at 1");
      w.put(c::kDimMinus1, m.dim - 1u, "dimension");
      w.flag(c::kTyped, m.typed);
      w.put(c::kTypeSizeMinus1, m.size - 1u, "component count");
      put_gpr(w, c::kDst, in.dst, "dst");
      w.flag(c::kAtomicSrc1Im, in.src[0].kind == OperandKind::immediate);
      put_cat6_src(w, c::kAtomicSrc1, in.src[0], "src1");
      w.flag(c::kSrc2Im, in.src[1].kind == OperandKind::immediate);
      put_cat6_src(w, c::kSrc2, in.src[1], "src2");
      break;
    case Form::shfl:
      w.flag(c::kBit53, true);
      put_gpr(w, c::kDst, in.dst, "dst");
      put_gpr(w, c::kStValue, in.src[0], "src1");
      w.flag(c::kSrc2Im, in.src[1].kind == OperandKind::immediate);
      put_cat6_src(w, c::kSrc2, in.src[1], "src2");
      w.put(c::kShflMode, m.shfl_mode, "mode");
      break;
    default: break;
  }
}

void encode_alias(const Instruction& in, Word& w) {
  namespace c = bits::cat7;
  const Instruction::Alias& a = in.alias;
  if (a.scope > 3) w.reject("alias scope must be 0..3");
  w.flag(c::kAliasScopeLo, (a.scope & 1) != 0);
  w.flag(c::kAliasScopeHi, (a.scope & 2) != 0);
  w.put(c::kAliasTableSize, a.table_size_minus_one, "table size");
  w.flag(c::kAliasTypeInt, a.integer);
  w.flag(c::kAliasSize32, a.size32);
  if (a.scope == 1) {
    need_gpr(w, in.dst, "render target");
    w.put(Field{32, 36}, in.dst.reg, "render target");
  } else {
    put_gpr(w, c::kAliasDst, in.dst, "dst");
  }
  const Operand& src = in.src[0];
  switch (src.kind) {
    case OperandKind::gpr: w.put(Field{0, 7}, src.reg, "source register"); break;
    case OperandKind::constant:
      w.put(Field{0, 10}, src.reg, "source const");
      w.put(c::kAliasSrcKind, 1, "source kind");
      break;
    case OperandKind::immediate: {
      const auto value = static_cast<std::uint32_t>(src.value);
      if (!a.size32 && value > 0xffff) w.reject("a 16-bit alias takes a 16-bit immediate");
      w.put(c::kAliasSrc, value, "immediate");
      w.put(c::kAliasSrcKind, 2, "source kind");
      break;
    }
    default: w.reject("the source is a register, a const or an immediate");
  }
}

void encode_cat7(const Instruction& in, const OpcodeInfo& row, Word& w) {
  namespace c = bits::cat7;
  w.put(c::kOpc, row.value, "opcode");
  w.flag(bits::kSs, in.ss);
  if (row.form == Form::cache_wide) {
    w.flag(c::kBarrierMarker, true);
    w.put(c::kCcinvFixed, c::kCcinvPattern, "ccinv");
  } else if (row.form == Form::lock) {
    w.put(c::kControl, in.opcode == Opcode::unlock ? c::kUnlockPattern : c::kLockPattern, "lock");
  } else if (row.form == Form::alias) {
    encode_alias(in, w);
  } else if (row.form == Form::barrier) {
    w.flag(c::kBarrierMarker, true);
    w.flag(c::kG, in.sync.g);
    w.flag(c::kL, in.sync.l);
    w.flag(c::kR, in.sync.r);
    w.flag(c::kW, in.sync.w);
  } else if (row.form == Form::sleep || row.form == Form::cache) {
    w.flag(c::kW, in.sync.flag);
  }
}



}  // namespace

Instruction decode(std::uint64_t word, Generation gen) {
  const Decoding d{word, gen, lookup(gen)};
  Instruction in;
  in.sy = bits::kSy.get(word) != 0;
  in.jp = bits::kJp.get(word) != 0;
  switch (bits::kCategory.get(word)) {
    case 0: decode_cat0(d, in); break;
    case 1: decode_cat1(d, in); break;
    case 2: decode_cat2(d, in); break;
    case 3: decode_cat3(d, in); break;
    case 4: decode_cat4(d, in); break;
    case 5: decode_cat5(d, in); break;
    case 6: decode_cat6(d, in); break;
    default: decode_cat7(d, in); break;
  }
  return in;
}

namespace {

// The leading flags each category's encoding has a bit (or field) for, beyond (sy) and (jp) which
// every category has (Mesa src/freedreno/isa/ir3-cat0.xml ... ir3-cat7.xml; cat5 and cat6 have no
// (ss) bit, as Mesa ir3.h supports_ss says). A flag outside its category's set is refused instead
// of dropped.
struct FlagBits {
  bool ss, eq, repeat, nop, sat, ul, ei;
};
constexpr std::array<FlagBits, 8> kFlagBits{{
    {true, true, true, false, false, false, false},    // cat0
    {true, false, true, false, true, true, false},     // cat1
    {true, false, true, true, true, true, true},       // cat2
    {true, false, true, true, true, true, false},      // cat3
    {true, false, true, false, true, true, false},     // cat4
    {false, false, false, false, false, false, false}, // cat5
    {false, false, false, false, false, false, false}, // cat6
    {true, false, false, false, false, false, false},  // cat7
}};

void check_flags(const Instruction& in, const OpcodeInfo& row, const Word& w) {
  const FlagBits& can = kFlagBits[row.category];
  auto refuse = [&](bool set, bool encodable, const char* flag) {
    if (set && !encodable) w.reject(std::string(flag) + " cannot be encoded on a cat" + std::to_string(row.category) + " instruction");
  };
  refuse(in.ss, can.ss, "(ss)");
  refuse(in.eq, can.eq, "(eq)");
  refuse(in.repeat != 0, can.repeat && row.form != Form::mov_multi, "(rpt)");
  refuse(in.nop != 0, can.nop, "(nop)");
  refuse(in.sat, can.sat, "(sat)");
  refuse(in.ul, can.ul, "(ul)");
  refuse(in.ei, can.ei, "(ei)");
  // (eolm)/(eogm)/(eostsc) are bits of the operand-less flow forms only (ir3-cat0.xml).
  if ((in.flow.eolm || in.flow.eogm || in.flow.eostsc) && row.form != Form::flow_bare) {
    w.reject(std::string("(eolm)/(eogm)/(eostsc) cannot be encoded on ") + row.name);
  }
  // cat1 reads and writes the register size its types say (ir3-cat1.xml HALF of src/dst type).
  if (row.form == Form::mov) {
    auto size = [&](const Operand& op, Type type, const char* role) {
      if (op.kind != OperandKind::gpr || op.reg >= regid(kAddressReg, 0) || op.half == is_cat1_half(type)) return;
      w.reject(std::string(role) + " " + (op.half ? "h" : "") + register_name(op.reg) + " is a " + (op.half ? "half" : "full") +
               " register, but its type " + type_name(type) + " is " + (is_cat1_half(type) ? "half" : "full"));
    };
    size(in.src[0], in.src_type, "source");
    size(in.dst, in.type, "destination");
  }
}

// What of `in` the word does not hold, found by reading it back (`back`, as the decoder, which
// follows Mesa's disassembler, sees it): the first flag or operand modifier that differs, named
// as it is written, or the instruction as it would read back.
std::string lost(const Instruction& in, const Instruction& back, Generation gen) {
  const OpcodeInfo& row = info(in.opcode);
  const std::string in_what = " in a cat" + std::to_string(row.category) + " " + row.name;
  const std::string reads_back = "; it would read back as `" + to_text(back, gen) + "`";
  auto flag = [&](bool a, bool b, const std::string& token) -> std::string {
    if (a == b) return {};
    return a ? token + " cannot be encoded" + in_what + reads_back : token + " would appear" + in_what + reads_back;
  };
  for (const std::string& why : {flag(in.sy, back.sy, "(sy)"), flag(in.ss, back.ss, "(ss)"), flag(in.jp, back.jp, "(jp)"),
                                 flag(in.ul, back.ul, "(ul)"), flag(in.sat, back.sat, "(sat)"), flag(in.eq, back.eq, "(eq)"),
                                 flag(in.ei, back.ei, "(ei)"), flag(in.flow.eolm, back.flow.eolm, "(eolm)"),
                                 flag(in.flow.eogm, back.flow.eogm, "(eogm)"),
                                 flag(in.repeat != back.repeat, false, "(rpt" + std::to_string(in.repeat) + ")"),
                                 flag(in.nop != back.nop && in.nop != 0, false, "(nop" + std::to_string(in.nop) + ")")}) {
    if (!why.empty()) return why;
  }
  auto operand = [&](const Operand& a, const Operand& b, std::size_t index) -> std::string {
    const std::string where = index == 0 ? "the destination" : "source " + std::to_string(index);
    auto cannot = [&](const char* token, const std::string& why = {}) {
      return std::string(token) + " on " + where + " cannot be encoded" + in_what + why + reads_back;
    };
    if (a.repeat != b.repeat && a.repeat && (row.category == 2 || row.category == 3) && in.repeat == 0) {
      // ir3-cat2.xml, ir3-cat3.xml #cat2-cat3-nop-encoding: without (rptN) the (r) bits of src1
      // and src2 are (nopN)'s, and Mesa shows no (r) on src3 of that form.
      return cannot("(r)", index <= 2 ? " without (rptN): its bit is a (nopN) bit there (Mesa ir3-cat2.xml/ir3-cat3.xml "
                                        "#cat2-cat3-nop-encoding); write (nopN) for delay slots"
                                      : " beside (nopN): Mesa's (nopN) form of cat3 shows no (r) on source 3");
    }
    if (a.repeat != b.repeat) return a.repeat ? cannot("(r)") : "(r) on " + where + " would appear" + in_what + reads_back;
    if (a.neg != b.neg) return cannot("(neg)");
    if (a.abs != b.abs) return cannot("(abs)");
    if (a.last != b.last) return cannot("(last)");
    if (a.half != b.half && a.kind == OperandKind::gpr) {
      return where + " " + (a.half ? "h" : "") + register_name(a.reg) + " is a " + (a.half ? "half" : "full") +
             " register, but " + row.name + " reads and writes " + (a.half ? "full" : "half") + " ones here" + reads_back;
    }
    return a == b ? std::string() : where + " cannot be encoded as written" + in_what + reads_back;
  };
  if (std::string why = operand(in.dst, back.dst, 0); !why.empty()) return why;
  for (std::size_t i = 0; i < in.src.size(); ++i) {
    if (std::string why = operand(in.src[i], back.src[i], i + 1); !why.empty()) return why;
  }
  if (in.nop != back.nop) return "the word would carry (nop" + std::to_string(back.nop) + ")" + in_what + reads_back;
  return "the encoding cannot hold `" + to_text(in, gen) + "`" + reads_back;
}

}  // namespace

std::uint64_t encode(const Instruction& in, Generation gen) {
  const OpcodeInfo& row = info(in.opcode);
  Word w(row.name, gen);
  if (!exists_on(row.gens, gen)) {
    w.reject(std::string(row.name) + " is an " + generations_text(row.gens) + " form, not " + generation_name(gen));
  }
  check_flags(in, row, w);
  w.put(bits::kCategory, row.category, "category");
  w.flag(bits::kSy, in.sy);
  w.flag(bits::kJp, in.jp);
  switch (row.category) {
    case 0: encode_cat0(in, row, w); break;
    case 1: encode_cat1(in, row, w); break;
    case 2: encode_cat2(in, row, w); break;
    case 3: encode_cat3(in, row, w); break;
    case 4: encode_cat4(in, row, w); break;
    case 5: encode_cat5(in, row, w); break;
    case 6: encode_cat6(in, row, w); break;
    default: encode_cat7(in, row, w); break;
  }
  // Nothing written may be lost or changed: what the word reads back as must be the instruction.
  Instruction back;
  try {
    back = decode(w.value(), gen);
  } catch (const Error&) {
    w.reject("the encoding of `" + to_text(in, gen) + "` does not decode");
  }
  // An immediate takes the precision of the instruction's sources (Mesa prints a half one
  // h(N)): `1` and `h(1)` in a half instruction are one word, nothing is lost between them.
  for (std::size_t i = 0; i < back.src.size(); ++i)
    if (back.src[i].kind == OperandKind::immediate && in.src[i].kind == OperandKind::immediate) back.src[i].half = in.src[i].half;
  if (!(back == in)) w.reject(lost(in, back, gen));
  return w.value();
}

}  // namespace adreno::ir3
