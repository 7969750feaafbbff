// Instruction -> text, following the isaspec display templates of Mesa's ir3-cat*.xml.
#include <bit>
#include <cstdio>
#include <string>

#include "ir3/half_float.h"
#include "ir3/syntax.h"
#include "ir3/text.h"

namespace adreno::ir3 {
namespace {

using syntax::kSwizzle;

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string offset_text(std::int32_t offset) {  // isaspec "offset" / "uoffset"
  if (offset == 0) return {};
  return (offset > 0 ? "+" : "") + std::to_string(offset);
}

std::string plain_gpr(std::uint16_t regid) {  // #cat6-src: no special register names
  return "r" + std::to_string(regid >> 2) + "." + kSwizzle[regid & 3];
}

std::string const_name(std::uint16_t regid) {
  return "c" + std::to_string(regid >> 2) + "." + kSwizzle[regid & 3];
}

std::string relative_text(const Operand& op, char file, bool print_zero) {
  std::string text = std::string(1, file) + "<a0.x";
  if (op.value != 0 || print_zero) text += " + " + std::to_string(op.value);
  return text + ">";
}

std::string abs_neg(const Operand& op) {
  if (op.abs && op.neg) return "(absneg)";
  if (op.abs) return "(abs)";
  return op.neg ? "(neg)" : "";
}

const char* flag(bool on, const char* text) { return on ? text : ""; }

std::string rpt(unsigned repeat) { return repeat ? "(rpt" + std::to_string(repeat) + ")" : ""; }

// Sources of cat2/cat4 (#multisrc-*).
std::string multisrc(const Operand& op) {
  const std::string r = op.repeat ? "(r)" : "";
  const std::string h = op.half ? "h" : "";
  switch (op.kind) {
    case OperandKind::gpr:
      return flag(op.last, "(last)") + abs_neg(op) + r + h + register_name(op.reg);
    case OperandKind::constant: return abs_neg(op) + r + h + const_name(op.reg);
    case OperandKind::immediate: {
      const bool known =
          op.value >= 0 && static_cast<std::size_t>(op.value) < syntax::kFloatTable.size();
      std::string value = !op.flut ? std::to_string(op.value)
                          : known  ? std::string("(") + syntax::kFloatTable[op.value] + ")"
                                   : "(?)";
      if (op.half && !op.flut) value = "(" + value + ")";
      return abs_neg(op) + r + h + value;
    }
    case OperandKind::relative_gpr: return abs_neg(op) + r + h + relative_text(op, 'r', false);
    case OperandKind::relative_const: return abs_neg(op) + r + h + relative_text(op, 'c', false);
    case OperandKind::none: break;
  }
  return {};
}

// src1/src3 of cat3 (#cat3-src-*): the (neg)/(r) prefixes are added by the caller.
std::string cat3_src(const Operand& op) {
  const std::string h = op.half ? "h" : "";
  switch (op.kind) {
    case OperandKind::gpr: return flag(op.last, "(last)") + h + register_name(op.reg);
    case OperandKind::constant: return h + const_name(op.reg);
    case OperandKind::immediate: return std::to_string(op.value);
    case OperandKind::relative_gpr: return h + relative_text(op, 'r', true);
    case OperandKind::relative_const: return h + relative_text(op, 'c', true);
    case OperandKind::none: break;
  }
  return {};
}

std::string cat1_immediate(std::uint32_t value, Type type) {
  switch (type) {
    case Type::f16:
      return "h(" + format("%f", half_to_float(static_cast<std::uint16_t>(value))) + ")";
    case Type::f32: return "(" + format("%f", std::bit_cast<float>(value)) + ")";
    case Type::s16: return std::to_string(static_cast<std::int16_t>(value & 0xffff));
    case Type::s32: return std::to_string(static_cast<std::int32_t>(value));
    case Type::u32:
      if (value > 0x1000) {
        char text[16];
        std::snprintf(text, sizeof text, "0x%x", value);
        return text;
      }
      return std::to_string(value);
    default: return std::to_string(value);
  }
}

std::string cat1_src(const Instruction& in) {
  const Operand& op = in.src[0];
  const std::string r = op.repeat ? "(r)" : "";
  const std::string h = op.half ? "h" : "";
  switch (op.kind) {
    case OperandKind::gpr: return flag(op.last, "(last)") + r + h + register_name(op.reg);
    case OperandKind::constant: return r + h + const_name(op.reg);
    case OperandKind::relative_gpr: return r + h + relative_text(op, 'r', false);
    case OperandKind::relative_const: return r + h + relative_text(op, 'c', false);
    case OperandKind::immediate:
      return r + cat1_immediate(static_cast<std::uint32_t>(op.value), in.src_type);
    case OperandKind::none: break;
  }
  return {};
}

std::string half_reg(const Operand& op) { return (op.half ? "h" : "") + register_name(op.reg); }

std::string print_cat0(const Instruction& in, const OpcodeInfo& row) {
  const std::string sy_ss = std::string(flag(in.sy, "(sy)")) + flag(in.ss, "(ss)");
  const std::string eq = flag(in.eq, "(eq)");
  const std::string jp = flag(in.jp, "(jp)");
  const std::string target = "#" + std::to_string(in.flow.target);
  auto predicate = [&](std::size_t i) {
    return std::string(flag(in.flow.invert[i], "!")) + "p0." + kSwizzle[in.flow.comp[i]];
  };
  switch (row.form) {
    case Form::flow_bare:
      return sy_ss + eq + jp + flag(in.flow.eolm, "(eolm)") + flag(in.flow.eogm, "(eogm)") +
             flag(in.flow.eostsc, "(eostsc)") + rpt(in.repeat) + row.name;
    case Form::flow_immed: return sy_ss + jp + row.name + " " + target;
    case Form::flow_branch: return sy_ss + eq + jp + row.name + " " + predicate(0) + ", " + target;
    case Form::flow_branch2:
      return sy_ss + eq + jp + row.name + " " + predicate(0) + ", " + predicate(1) + ", " + target;
    case Form::flow_brac:
      return sy_ss + eq + jp + row.name + "." + std::to_string(in.flow.index) + " " + target;
    case Form::flow_kill: return sy_ss + eq + jp + row.name + " " + predicate(0);
    default:  // getlast
      return sy_ss + jp + row.name + ".w" + std::to_string(2u << in.flow.index) + " " + target;
  }
}

std::string print_cat1(const Instruction& in, const OpcodeInfo& row) {
  std::string text = std::string(flag(in.sy, "(sy)")) + flag(in.ss, "(ss)") + flag(in.jp, "(jp)");
  const std::string types = std::string(type_name(in.src_type)) + type_name(in.type);
  const std::string modifiers = std::string(syntax::kRounding[in.round]) + flag(in.sat, "(sat)");
  if (row.form == Form::movmsk) {
    return text + flag(in.ul, "(ul)") + "movmsk.w" + std::to_string((in.repeat + 1) * 32) + " " +
           register_name(in.dst.reg);
  }
  if (row.form == Form::mov_multi) {
    text += std::string(flag(in.ul, "(ul)")) + row.name + "." + types + " " + modifiers;
    text += half_reg(in.dst);
    const std::size_t count = in.opcode == Opcode::swz ? 3 : 4;
    // swz prints dst0, dst1, src0, src1; gat dst, src0..3; sct dst0..3, src0.
    if (in.opcode == Opcode::swz) {
      return text + ", " + half_reg(in.src[2]) + ", " + half_reg(in.src[0]) + ", " +
             half_reg(in.src[1]);
    }
    if (in.opcode == Opcode::sct) {
      for (std::size_t i = 1; i < count; ++i) text += ", " + half_reg(in.src[i]);
      return text + ", " + half_reg(in.src[0]);
    }
    for (std::size_t i = 0; i < count; ++i) text += ", " + half_reg(in.src[i]);
    return text;
  }
  text += rpt(in.repeat) + flag(in.ul, "(ul)");
  const bool gpr_dst = in.dst.kind == OperandKind::gpr;
  auto destination = [&] {
    return gpr_dst ? half_reg(in.dst) : std::string(in.dst.half ? "h" : "") + relative_text(in.dst, 'r', false);
  };
  if (row.form == Form::movs) {
    const Operand& fiber = in.src[1];
    return text + "movs." + types + " " + modifiers + destination() + ", " + cat1_src(in) + ", " +
           (fiber.kind == OperandKind::immediate ? std::to_string(fiber.value) : register_name(fiber.reg));
  }
  if (gpr_dst && in.dst.reg == regid(kAddressReg, 0) && in.src_type == Type::s16 &&
      in.type == Type::s16) {
    return text + "mova " + modifiers + "a0.x, " + cat1_src(in);
  }
  if (gpr_dst && in.dst.reg == regid(kAddressReg, 1) && in.src_type == Type::u16 &&
      in.type == Type::u16) {
    return text + "mova1 " + modifiers + "a1.x, " + cat1_src(in);
  }
  text += (in.src_type != in.type ? "cov." : "mov.") + types + " " + modifiers;
  return text + destination() + ", " + cat1_src(in);
}

std::string prefix_alu(const Instruction& in) {
  std::string text = std::string(flag(in.sy, "(sy)")) + flag(in.ss, "(ss)") + flag(in.jp, "(jp)") +
                     flag(in.sat, "(sat)");
  text += in.nop ? "(nop" + std::to_string(in.nop) + ") " : rpt(in.repeat);
  return text + flag(in.ul, "(ul)");
}

std::string alu_dst(const Instruction& in, bool cat2) {
  const unsigned reg = in.dst.reg >> 2;
  if (cat2 && reg == kAddressReg) {
    return std::string(in.dst.half ? "h" : "") + "up0." + kSwizzle[in.dst.reg & 3];
  }
  return half_reg(in.dst);
}

std::string print_cat2(const Instruction& in, const OpcodeInfo& row) {
  std::string text = prefix_alu(in) + row.name;
  if (row.form == Form::alu_cmp) {
    const bool known = in.cond < syntax::kConditions.size();
    text += std::string(".") + (known ? syntax::kConditions[in.cond] : "?");
  }
  text += std::string(" ") + flag(in.ei, "(ei)") + alu_dst(in, true) + ", " + multisrc(in.src[0]);
  if (row.form != Form::alu_1src) text += ", " + multisrc(in.src[1]);
  return text;
}

std::string print_cat3(const Instruction& in, const OpcodeInfo& row) {
  std::string text = prefix_alu(in) + row.name;
  auto r = [](const Operand& op) { return op.repeat ? "(r)" : ""; };
  auto neg = [](const Operand& op) { return op.neg ? "(neg)" : ""; };
  if (row.form == Form::tri_dot) {
    text += std::string(in.dot.mixed ? ".mixed" : ".unsigned") + (in.dot.high ? ".high" : ".low");
    return text + " " + register_name(in.dst.reg) + ", " + r(in.src[0]) + cat3_src(in.src[0]) +
           ", " + r(in.src[1]) + register_name(in.src[1].reg) + ", " + neg(in.src[2]) +
           r(in.src[2]) + cat3_src(in.src[2]);
  }
  return text + " " + alu_dst(in, false) + ", " + neg(in.src[0]) + r(in.src[0]) +
         cat3_src(in.src[0]) + ", " + neg(in.src[1]) + r(in.src[1]) + half_reg(in.src[1]) + ", " +
         neg(in.src[2]) + r(in.src[2]) + cat3_src(in.src[2]);
}

std::string print_cat4(const Instruction& in, const OpcodeInfo& row) {
  return prefix_alu(in) + row.name + " " + half_reg(in.dst) + ", " + multisrc(in.src[0]);
}

std::string wrmask_text(unsigned mask) {
  std::string text;
  for (unsigned i = 0; i < 4; ++i) {
    if (mask & (1u << i)) text += kSwizzle[i];
  }
  return text;
}

std::string print_cat5(const Instruction& in, const OpcodeInfo& row, Generation gen) {
  std::string text = std::string(flag(in.sy, "(sy)")) + flag(in.jp, "(jp)") + row.name;
  if (row.form == Form::tex_tcinv) return text;
  const Instruction::Tex& t = in.tex;
  const unsigned num_src = texture_sources(row);
  const bool has_samp = has_sampler(row), has_tex = has_texture(row), has_type = shows_type(row);
  const bool rck = in.type == Type::u8_32;
  auto src = [](const Operand& op) { return ", " + half_reg(op); };
  std::string operands = " ";
  if (has_type && !rck) operands += std::string("(") + type_name(in.type) + ")";
  operands += "(" + wrmask_text(t.wrmask) + ")" + half_reg(in.dst);
  if (num_src > 0) operands += src(in.src[0]);
  if (row.form == Form::tex_brcst) {
    return text + ".w" + std::to_string(2u << t.cluster) + operands;
  }
  if (row.form == Form::tex_quad) {
    return text + operands + (num_src > 1 ? src(in.src[1]) : "");
  }
  const bool isam = row.form == Form::tex_isam;
  text += std::string(flag(t.is_3d, ".3d")) + flag(t.array, ".a") + flag(t.offset, ".o") +
          flag(!isam && t.proj, ".p") + flag(t.sv, isam ? ".v" : ".s");
  if (in.src[1].kind == OperandKind::gpr) {
    operands += src(in.src[1]);
  } else if (in.src[1].kind == OperandKind::immediate) {
    operands += offset_text(in.src[1].value);
  }
  const std::string one_d = flag(isam && !t.not_1d, ".1d");
  const std::string rck_text = flag(rck, ".rck");
  const std::string samp = has_samp ? ", s#" + std::to_string(t.samp) : "";
  const std::string tex = has_tex ? ", t#" + std::to_string(t.tex) : "";
  if (!t.s2en_bindless) return text + one_d + rck_text + operands + samp + tex;
  const unsigned mode = t.desc_mode;
  const bool indirect = desc_indirect(mode);
  text += std::string(flag(indirect, ".s2en")) + flag(indirect && desc_uniform(mode), ".uniform") +
          flag(indirect && !desc_uniform(mode), ".nonuniform");
  if (desc_bindless(mode)) text += ".base" + std::to_string(t.base);
  text += one_d + rck_text;
  if (indirect) {
    operands += src(in.src[2]);
  } else if (desc_uses_a1(mode)) {  // src3 holds the sampler on a6xx, the texture on a7xx
    operands += gen == Generation::a6xx ? samp : tex;
  } else {
    operands += samp + tex;
  }
  return text + operands + (desc_uses_a1(mode) ? ", a1.x" : "");
}

// ldg.a / stg.a address (ir3-cat6.xml, a6xx variant): the display picks the shortest form.
std::string scaled_address(const Instruction& in) {
  const auto& m = in.mem;
  const unsigned shift = type_shift(in.type);
  const std::string base = register_name(in.src[0].reg), index = register_name(in.src[1].reg);
  const std::string off = offset_text(m.offset);
  if (shift == 0) return base + "+" + index + off;
  if (m.offset == 0) return base + "+(" + index + "<<" + std::to_string(m.shift + shift) + ")";
  if (m.shift == 0) return base + "+((" + index + off + ")<<" + std::to_string(shift) + ")";
  return base + "+(((" + index + "<<" + std::to_string(m.shift) + ")" + off + ")<<" +
         std::to_string(shift) + ")";
}

std::string cat6_operand(const Operand& op) {
  return op.kind == OperandKind::immediate ? std::to_string(op.value) : plain_gpr(op.reg);
}

// #cat6-src-const-or-gpr: cN.c or rN.c, no special register names.
std::string const_or_gpr(const Operand& op) {
  return op.kind == OperandKind::constant ? const_name(op.reg) : plain_gpr(op.reg);
}

// a7xx ldg.a / stg.a address: base + index + offset, the offset shown even when 0.
std::string summed_address(const Instruction& in) {
  return const_or_gpr(in.src[0]) + "+" + register_name(in.src[1].reg) + "+" + std::to_string(in.mem.offset);
}

std::string const_dst(const Instruction& in) {
  if (in.mem.const_dst_a1) return "a1.x" + offset_text(in.dst.value);
  return std::to_string(in.dst.value);
}

std::string print_cat6(const Instruction& in, const OpcodeInfo& row) {
  const auto& m = in.mem;
  const std::string pre = std::string(flag(in.sy, "(sy)")) + flag(in.jp, "(jp)");
  const std::string name = row.name;
  const std::string type = type_name(in.type);
  const std::string size = std::to_string(m.size);
  const std::string h = is_half(in.type) ? "h" : "";
  const std::string common_a6 =
      std::string(m.typed ? ".typed" : ".untyped") + "." + std::to_string(m.dim) + "d";
  const std::string mode_base = std::string(".") + syntax::kDescriptorModes[m.mode] +
                                (m.bindless ? ".base" + std::to_string(m.base) : "");
  switch (row.form) {
    case Form::ldg:
      return pre + name + "." + type + " " + h + register_name(in.dst.reg) + ", g[" +
             register_name(in.src[0].reg) + offset_text(m.offset) + "], " + size;
    case Form::ldg_a:
      return pre + name + "." + type + " " + h + register_name(in.dst.reg) + ", g[" +
             scaled_address(in) + "], " + size;
    case Form::ldg_k:
      return pre + name + "." + type + " c[" + const_dst(in) + "], g[" +
             register_name(in.src[0].reg) + offset_text(m.offset) + "], " + size;
    case Form::stg:
      return pre + name + "." + type + " g[" + register_name(in.src[0].reg) +
             offset_text(m.offset) + "], " + h + register_name(in.src[1].reg) + ", " + size;
    case Form::stg_a:
      return pre + name + "." + type + " g[" + scaled_address(in) + "], " + h +
             register_name(in.src[2].reg) + ", " + size;
    case Form::ldg_a_a7xx:
      return pre + name + "." + type + " " + h + register_name(in.dst.reg) + ", g[" + summed_address(in) + "], " + size;
    case Form::stg_a_a7xx:
      return pre + name + "." + type + " g[" + summed_address(in) + "], " + h + register_name(in.src[2].reg) + ", " + size;
    case Form::stsc:
      return pre + name + "." + type + " c[" + std::to_string(in.dst.value) + "], " + std::to_string(in.src[0].value) +
             ", " + size;
    case Form::ray_intersection:
      return pre + name + " " + register_name(in.dst.reg) + ", [" + const_or_gpr(in.src[0]) + "], " +
             register_name(in.src[1].reg) + ", " + register_name(in.src[2].reg) + ", " + register_name(in.src[3].reg);
    case Form::ld_local: {
      const bool priv = in.opcode == Opcode::ldp;
      return pre + name + "." + type + " " + (priv ? h : "") + register_name(in.dst.reg) + ", " +
             (priv ? "p[" : "l[") + register_name(in.src[0].reg) + offset_text(m.offset) + "], " +
             size;
    }
    case Form::st_local:
      return pre + name + "." + type + " " + (in.opcode == Opcode::stp ? "p[" : "l[") +
             register_name(in.src[0].reg) + offset_text(m.offset) + "], " +
             register_name(in.src[1].reg) + ", " + size;
    case Form::ldlv:
      return pre + name + "." + type + " " + register_name(in.dst.reg) + ", l[" +
             std::to_string(m.offset) + "], " + size;
    case Form::stc:
      return pre + name + "." + type + " c[" + const_dst(in) + "], " +
             register_name(in.src[0].reg) + ", " + size;
    case Form::atomic_local:
      return pre + name + common_a6 + "." + type + "." + size + ".l " + register_name(in.dst.reg) +
             ", l[" + cat6_operand(in.src[0]) + "], " + cat6_operand(in.src[1]);
    case Form::atomic_global:
      return pre + name + common_a6 + "." + type_name(in.type, true) + "." + size + ".g " +
             register_name(in.dst.reg) + ", " + cat6_operand(in.src[0]) + ", " +
             cat6_operand(in.src[1]);
    case Form::shfl:
      return pre + name + "." + syntax::kShuffleModes[m.shfl_mode] + "." + type + " " + h +
             register_name(in.dst.reg) + ", " + h + register_name(in.src[0].reg) + ", " +
             cat6_operand(in.src[1]);
    case Form::ldc:
      return pre + name + flag(m.uniform_u, ".u") + ".offset" + std::to_string(m.offset) + "." +
             size + mode_base + " " + register_name(in.dst.reg) + ", " + cat6_operand(in.src[0]) +
             ", " + cat6_operand(in.src[1]);
    case Form::ldc_k:
      return pre + "ldc." + size + ".k" + mode_base + " c[a1.x], " + cat6_operand(in.src[0]) +
             ", " + cat6_operand(in.src[1]);
    case Form::sysid: return pre + name + "." + type + " " + register_name(in.dst.reg);
    case Form::res_1src:
      return pre + name + common_a6 + "." + type + "." + size + mode_base + " " +
             register_name(in.dst.reg) + ", " + cat6_operand(in.src[0]);
    case Form::ibo_ldst:
      return pre + name + common_a6 + "." + type + flag(m.rck, ".rck") + "." + size + mode_base +
             " " + h + register_name(in.src[0].reg) + ", " + register_name(in.src[1].reg) +
             offset_text(m.offset) + ", " + cat6_operand(in.src[2]);
    default:  // ibo_atomic
      return pre + name + common_a6 + "." + type_name(in.type, true) + "." + size + mode_base +
             " " + register_name(in.src[0].reg) + ", " + register_name(in.src[1].reg) + ", " +
             cat6_operand(in.src[2]);
  }
}

// alias sources (ir3-cat7.xml #alias-gpr-src, #alias-const-src, #alias-immed-src).
std::string alias_source(const Instruction& in) {
  const Operand& src = in.src[0];
  const bool size32 = in.alias.size32;
  const std::string h = size32 ? "" : "h";
  if (src.kind == OperandKind::gpr) return h + register_name(src.reg);
  if (src.kind == OperandKind::constant) return h + const_name(src.reg);
  const auto value = static_cast<std::uint32_t>(src.value);
  if (!in.alias.integer) {
    return size32 ? "(" + format("%f", std::bit_cast<float>(value)) + ")"
                  : "h(" + format("%f", half_to_float(static_cast<std::uint16_t>(value))) + ")";
  }
  char text[24];
  std::snprintf(text, sizeof text, "%s(0x%x)", h.c_str(), value);
  return text;
}

std::string print_alias(const Instruction& in, const std::string& prefix) {
  static constexpr const char* kScopes[] = {"tex", "rt", "mem", "mem"};
  const Instruction::Alias& a = in.alias;
  const std::string dst = a.scope == 1 ? "rt" + std::to_string(in.dst.reg >> 2) + "." + kSwizzle[in.dst.reg & 3]
                                       : half_reg(in.dst);
  return prefix + "." + kScopes[a.scope & 3] + "." + (a.integer ? "b" : "f") + (a.size32 ? "32" : "16") + "." +
         std::to_string(a.table_size_minus_one) + " " + dst + ", " + alias_source(in);
}

std::string print_cat7(const Instruction& in, const OpcodeInfo& row) {
  std::string text =
      std::string(flag(in.sy, "(sy)")) + flag(in.ss, "(ss)") + flag(in.jp, "(jp)") + row.name;
  switch (row.form) {
    case Form::alias: return print_alias(in, text);
    case Form::barrier:
      return text + flag(in.sync.g, ".g") + flag(in.sync.l, ".l") + flag(in.sync.r, ".r") +
             flag(in.sync.w, ".w");
    case Form::sleep: return text + (in.sync.flag ? ".l" : ".s");
    case Form::cache: return text + (in.sync.flag ? ".all" : ".shr");
    default: return text;
  }
}

}  // namespace

const char* type_name(Type type, bool atomic) {
  if (atomic && type == Type::u8) return syntax::kAtomicType6;
  return syntax::kTypes[static_cast<unsigned>(type)];
}

std::string register_name(std::uint16_t regid) {
  const unsigned reg = regid >> 2;
  const char comp = kSwizzle[regid & 3];
  if (reg == kAddressReg) return std::string("a0.") + comp;
  if (reg == kPredicateReg) return std::string("p0.") + comp;
  return "r" + std::to_string(reg) + "." + comp;
}

std::string to_text(const Instruction& in, Generation gen) {
  const OpcodeInfo& row = info(in.opcode);
  switch (row.category) {
    case 0: return print_cat0(in, row);
    case 1: return print_cat1(in, row);
    case 2: return print_cat2(in, row);
    case 3: return print_cat3(in, row);
    case 4: return print_cat4(in, row);
    case 5: return print_cat5(in, row, gen);
    case 6: return print_cat6(in, row);
    default: return print_cat7(in, row);
  }
}

}  // namespace adreno::ir3
