// Text -> Instruction: the inverse of print.cpp, accepting exactly the syntax Mesa prints.
#include <bit>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>
#include <vector>

#include "ir3/half_float.h"
#include "ir3/syntax.h"
#include "ir3/text.h"

namespace adreno::ir3 {
namespace {

struct Token {
  std::string_view text;
  std::size_t column;  // 1-based
};

[[noreturn]] void fail(const Token& token, const std::string& message) {
  throw SyntaxError(token.column, message + " '" + std::string(token.text) + "'");
}

bool consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

Token trim(Token t) {
  while (!t.text.empty() && std::isspace(static_cast<unsigned char>(t.text.front()))) {
    t.text.remove_prefix(1);
    ++t.column;
  }
  while (!t.text.empty() && std::isspace(static_cast<unsigned char>(t.text.back()))) {
    t.text.remove_suffix(1);
  }
  return t;
}

// Splits at commas outside (), [] and <>.
std::vector<Token> split_operands(Token all) {
  std::vector<Token> out;
  if (trim(all).text.empty()) return out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= all.text.size(); ++i) {
    const char c = i < all.text.size() ? all.text[i] : ',';
    // '<' opens only the relative form "r<a0.x ...>"; "<<" is a shift inside g[...].
    const bool opens_relative = c == '<' && i + 1 < all.text.size() && all.text[i + 1] == 'a';
    if (c == '(' || c == '[' || opens_relative) ++depth;
    if (c == ')' || c == ']' || (c == '>' && depth > 0)) --depth;
    if (c == ',' && depth == 0) {
      Token part = trim({all.text.substr(start, i - start), all.column + start});
      if (part.text.empty()) fail({all.text.substr(start), all.column + start}, "empty operand at");
      out.push_back(part);
      start = i + 1;
    }
  }
  return out;
}

std::optional<std::int64_t> to_integer(std::string_view s) {
  bool negative = false;
  if (consume(s, "-")) {
    negative = true;
  } else {
    consume(s, "+");
  }
  int base = 10;
  if (consume(s, "0x") || consume(s, "0X")) base = 16;
  if (s.empty()) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  const auto magnitude = static_cast<std::int64_t>(value);
  return negative ? -magnitude : magnitude;
}

std::int64_t integer(const Token& t) {
  auto value = to_integer(t.text);
  if (!value) fail(t, "expected an integer, got");
  return *value;
}

std::uint8_t small(const Token& t, std::int64_t low, std::int64_t high) {
  const std::int64_t value = integer(t);
  if (value < low || value > high) {
    fail(t, "value out of range " + std::to_string(low) + ".." + std::to_string(high) + ":");
  }
  return static_cast<std::uint8_t>(value);
}

std::optional<std::uint16_t> named_register(std::string_view s) {
  if (auto id = parse_register(s, 'r')) return id;
  if (s.size() == 4 && s.substr(0, 3) == "p0.") {
    if (auto id = parse_register("r0." + std::string(1, s[3]), 'r')) {
      return static_cast<std::uint16_t>(regid(kPredicateReg, 0) + *id);
    }
  }
  if (s.size() == 4 && s.substr(0, 3) == "a0.") {
    if (auto id = parse_register("r0." + std::string(1, s[3]), 'r')) {
      return static_cast<std::uint16_t>(regid(kAddressReg, 0) + *id);
    }
  }
  if (s == "a1.x") return regid(kAddressReg, 1);
  return std::nullopt;
}

std::uint16_t gpr_id(const Token& t) {
  auto id = named_register(t.text);
  if (!id) fail(t, "expected a register, got");
  return *id;
}

// A source or destination operand in the cat1-4 syntax, with its modifiers.
struct Source {
  Operand op;
  bool paren = false;          ///< "(...)" immediate (float or lookup-table name)
  std::string_view inner;      ///< text inside the parentheses
  bool explicit_half = false;  ///< an 'h' prefix was written
  bool ei = false;
};

Source parse_source(const Token& t) {
  Source out;
  std::string_view s = t.text;
  for (bool more = true; more;) {
    more = false;
    if (consume(s, "(last)")) out.op.last = more = true;
    if (consume(s, "(absneg)")) out.op.abs = out.op.neg = more = true;
    if (consume(s, "(neg)")) out.op.neg = more = true;
    if (consume(s, "(abs)")) out.op.abs = more = true;
    if (consume(s, "(r)")) out.op.repeat = more = true;
    if (consume(s, "(ei)")) out.ei = more = true;
  }
  if (s.size() > 1 && s[0] == 'h' &&
      std::string_view("rcpau(").find(s[1]) != std::string_view::npos) {
    out.explicit_half = out.op.half = true;
    s.remove_prefix(1);
  }
  if (consume(s, "r<a0.x") || consume(s, "c<a0.x")) {
    out.op.kind = t.text[t.text.size() - s.size() - 6] == 'c' ? OperandKind::relative_const
                                                              : OperandKind::relative_gpr;
    if (!consume(s, ">")) {
      if (!consume(s, " + ") || s.empty() || s.back() != '>') fail(t, "malformed relative operand");
      auto offset = to_integer(s.substr(0, s.size() - 1));
      if (!offset) fail(t, "malformed relative offset in");
      out.op.value = static_cast<std::int32_t>(*offset);
    }
    return out;
  }
  if (!s.empty() && s.front() == '(') {
    if (s.back() != ')') fail(t, "unbalanced parenthesis in");
    out.op.kind = OperandKind::immediate;
    out.paren = true;
    out.inner = s.substr(1, s.size() - 2);
    return out;
  }
  if (auto id = parse_register(s, 'c')) {
    out.op.kind = OperandKind::constant;
    out.op.reg = *id;
    return out;
  }
  if (consume(s, "up0.")) {  // cat2 scalar-ALU predicate destination, encoded as a0.c
    const std::size_t comp = std::string_view(syntax::kSwizzle).find(s);
    if (s.size() != 1 || comp == std::string_view::npos) fail(t, "bad predicate component in");
    out.op.kind = OperandKind::gpr;
    out.op.reg = regid(kAddressReg, static_cast<unsigned>(comp));
    return out;
  }
  if (auto id = named_register(s)) {
    out.op.kind = OperandKind::gpr;
    out.op.reg = *id;
    return out;
  }
  if (auto value = to_integer(s)) {
    out.op.kind = OperandKind::immediate;
    out.op.value = static_cast<std::int32_t>(*value);
    return out;
  }
  fail(t, "unrecognised operand");
}

// Immediates of cat2/cat4: a plain integer, h(integer), or a lookup-table constant.
Operand alu_source(const Token& t) {
  Source s = parse_source(t);
  if (s.paren) {
    for (std::size_t i = 0; i < syntax::kFloatTable.size(); ++i) {
      if (s.inner == syntax::kFloatTable[i]) {
        s.op.flut = true;
        s.op.value = static_cast<std::int32_t>(i);
        return s.op;
      }
    }
    auto value = to_integer(s.inner);
    if (!value || !s.explicit_half) fail(t, "expected h(integer) or a float-table constant, got");
    s.op.value = static_cast<std::int32_t>(*value);
  }
  return s.op;
}

// Operand list of fixed length.
void expect_count(const std::vector<Token>& ops, std::size_t count, const Token& mnemonic) {
  if (ops.size() != count) {
    fail(mnemonic, "expected " + std::to_string(count) + " operands (got " +
                       std::to_string(ops.size()) + ") for");
  }
}

std::optional<Type> type_from(std::string_view s) {
  for (std::size_t i = 0; i < syntax::kTypes.size(); ++i) {
    if (s == syntax::kTypes[i]) return static_cast<Type>(i);
  }
  if (s == syntax::kAtomicType6) return Type::u8;
  return std::nullopt;
}

Type type_of(const Token& t) {
  auto type = type_from(t.text);
  if (!type) fail(t, "unknown type");
  return *type;
}

// "u32u32" -> (u32, u32)
std::pair<Type, Type> type_pair(const Token& t) {
  for (const char* first : syntax::kTypes) {  // "u8" and "u8_32" both tried: the rest decides
    std::string_view s = t.text;
    if (!consume(s, first)) continue;
    if (auto second = type_from(s)) return {*type_from(first), *second};
  }
  fail(t, "expected two types such as u32u32, got");
}

// Suffixes after the opcode name, split at dots, with their columns.
std::vector<Token> suffixes(const Token& mnemonic, std::size_t name_length) {
  std::vector<Token> out;
  std::size_t pos = name_length;
  while (pos < mnemonic.text.size()) {
    const std::size_t start = pos + 1;  // skip '.'
    std::size_t end = mnemonic.text.find('.', start);
    if (end == std::string_view::npos) end = mnemonic.text.size();
    out.push_back({mnemonic.text.substr(start, end - start), mnemonic.column + start});
    pos = end;
  }
  return out;
}

std::int32_t branch_target(const Token& t, const LabelResolver& labels) {
  std::string_view s = t.text;
  if (!consume(s, "#")) fail(t, "expected a #target, got");
  if (auto value = to_integer(s)) return static_cast<std::int32_t>(*value);
  if (labels) {
    if (auto offset = labels(s)) return *offset;
  }
  fail(t, "unknown label");
}

void predicate(const Token& t, Instruction& in, std::size_t i) {
  std::string_view s = t.text;
  in.flow.invert[i] = consume(s, "!");
  if (!consume(s, "p0.") || s.size() != 1 ||
      std::string_view(syntax::kSwizzle).find(s[0]) == std::string_view::npos) {
    fail(t, "expected a predicate p0.c, got");
  }
  in.flow.comp[i] = static_cast<std::uint8_t>(std::string_view(syntax::kSwizzle).find(s[0]));
}

unsigned suffix_number(const Token& t, std::string_view prefix) {
  std::string_view s = t.text;
  if (!consume(s, prefix)) fail(t, "expected " + std::string(prefix) + "N, got");
  auto value = to_integer(s);
  if (!value || *value < 0) fail(t, "expected " + std::string(prefix) + "N, got");
  return static_cast<unsigned>(*value);
}

void no_suffix(const std::vector<Token>& parts) {
  if (!parts.empty()) fail(parts.front(), "unexpected suffix");
}

void parse_cat0(Instruction& in, const OpcodeInfo& row, const std::vector<Token>& parts,
                const std::vector<Token>& ops, const Token& mnemonic, const LabelResolver& labels) {
  switch (row.form) {
    case Form::flow_bare:
      no_suffix(parts);
      expect_count(ops, 0, mnemonic);
      return;
    case Form::flow_immed:
      no_suffix(parts);
      expect_count(ops, 1, mnemonic);
      in.flow.target = branch_target(ops[0], labels);
      return;
    case Form::flow_branch:
    case Form::flow_kill:
      no_suffix(parts);
      expect_count(ops, row.form == Form::flow_kill ? 1 : 2, mnemonic);
      predicate(ops[0], in, 0);
      if (row.form == Form::flow_branch) in.flow.target = branch_target(ops[1], labels);
      return;
    case Form::flow_branch2:
      no_suffix(parts);
      expect_count(ops, 3, mnemonic);
      predicate(ops[0], in, 0);
      predicate(ops[1], in, 1);
      in.flow.target = branch_target(ops[2], labels);
      return;
    case Form::flow_brac:
    case Form::flow_getlast: {
      if (parts.size() != 1) fail(mnemonic, "expected one suffix on");
      expect_count(ops, 1, mnemonic);
      if (row.form == Form::flow_brac) {
        in.flow.index = static_cast<std::uint8_t>(integer(parts[0]));
      } else {
        const unsigned width = suffix_number(parts[0], "w");
        if (width < 2 || !std::has_single_bit(width))
          fail(parts[0], "cluster size must be a power of two");
        in.flow.index = static_cast<std::uint8_t>(std::countr_zero(width) - 1);
      }
      in.flow.target = branch_target(ops[0], labels);
      return;
    }
    default: return;
  }
}

std::uint32_t cat1_immediate(const Source& s, Type type, const Token& t) {
  if (s.paren) {
    char* end = nullptr;
    const std::string inner(s.inner);
    const float value = std::strtof(inner.c_str(), &end);
    if (end == inner.c_str() || *end != '\0') fail(t, "expected a float immediate, got");
    if (s.explicit_half) return float_to_half(value);
    return std::bit_cast<std::uint32_t>(value);
  }
  const auto raw = static_cast<std::uint32_t>(s.op.value);
  return type == Type::s16 ? (raw & 0xffff) : raw;
}

void parse_cat1(Instruction& in, const OpcodeInfo& row, std::string_view written_name,
                const std::vector<Token>& parts, std::vector<Token> ops, const Token& mnemonic) {
  auto leading_modifiers = [&](Token& t) {
    std::string_view s = t.text;
    for (std::size_t round = 1; round < syntax::kRounding.size(); ++round) {
      if (consume(s, syntax::kRounding[round])) in.round = static_cast<std::uint8_t>(round);
    }
    if (consume(s, "(sat)")) in.sat = true;
    t.column += t.text.size() - s.size();
    t.text = s;
  };
  if (row.form == Form::movmsk) {
    if (parts.size() != 1) fail(mnemonic, "expected movmsk.wN, got");
    const unsigned width = suffix_number(parts[0], "w");
    if (width == 0 || width % 32 != 0 || width > 128)
      fail(parts[0], "width must be 32, 64, 96 or 128");
    in.repeat = static_cast<std::uint8_t>(width / 32 - 1);
    in.src_type = in.type = Type::u32;
    expect_count(ops, 1, mnemonic);
    in.dst.kind = OperandKind::gpr;
    in.dst.reg = gpr_id(ops[0]);
    return;
  }
  const bool mova = written_name == "mova" || written_name == "mova1";
  if (mova) {
    no_suffix(parts);
    in.src_type = in.type = written_name == "mova" ? Type::s16 : Type::u16;
  } else {
    if (parts.size() != 1) fail(mnemonic, "expected <name>.<srctype><dsttype>, got");
    std::tie(in.src_type, in.type) = type_pair(parts[0]);
    if (written_name == "cov" && in.src_type == in.type)
      fail(mnemonic, "cov needs two different types:");
  }
  if (ops.empty()) fail(mnemonic, "missing operands for");
  leading_modifiers(ops[0]);
  auto reg_operand = [&](const Token& t) {
    Source s = parse_source(t);
    if (s.op.kind != OperandKind::gpr) fail(t, "expected a register, got");
    return s.op;
  };
  if (row.form == Form::mov_multi) {
    const std::size_t count = in.opcode == Opcode::swz ? 4 : 5;
    expect_count(ops, count, mnemonic);
    std::vector<Operand> regs;
    for (const Token& t : ops) regs.push_back(reg_operand(t));
    in.dst = regs[0];
    if (in.opcode == Opcode::swz) {
      in.src = {regs[2], regs[3], regs[1], Operand{}};
    } else if (in.opcode == Opcode::gat) {
      in.src = {regs[1], regs[2], regs[3], regs[4]};
    } else {
      in.src = {regs[4], regs[1], regs[2], regs[3]};
    }
    return;
  }
  expect_count(ops, row.form == Form::movs ? 3 : 2, mnemonic);
  Source dst = parse_source(ops[0]);
  if (dst.op.kind != OperandKind::gpr && dst.op.kind != OperandKind::relative_gpr) {
    fail(ops[0], "expected a destination register, got");
  }
  // The register size must be the one the type says (ir3-cat1.xml: HALF follows the type); a
  // mismatch would silently assemble another instruction.
  auto same_size = [](const Operand& op, Type type, const Token& token) {
    if (op.kind == OperandKind::gpr && op.reg < regid(kAddressReg, 0) && op.half != is_cat1_half(type)) {
      fail(token, std::string("a ") + type_name(type) + " operand is a " + (is_cat1_half(type) ? "half (hrN.c)" : "full (rN.c)") +
                      " register, not");
    }
  };
  same_size(dst.op, in.type, ops[0]);
  in.dst = dst.op;
  in.dst.half = is_cat1_half(in.type);
  if (in.dst.kind == OperandKind::relative_gpr && (in.dst.value < 0 || in.dst.value > 255)) {
    fail(ops[0], "relative destination offset must be 0..255 in");
  }
  Source src = parse_source(ops[1]);
  same_size(src.op, in.src_type, ops[1]);
  in.src[0] = src.op;
  in.src[0].half = is_cat1_half(in.src_type);
  if (row.form == Form::movs) {  // movs.TT dst, register, fiber (an immediate or a0.x)
    if (src.op.kind != OperandKind::gpr) fail(ops[1], "movs broadcasts a register, not");
    if (ops[2].text == "a0.x") {
      in.src[1].kind = OperandKind::gpr;
      in.src[1].reg = regid(kAddressReg, 0);
    } else {
      in.src[1].kind = OperandKind::immediate;
      in.src[1].value = small(ops[2], 0, 127);
    }
    return;
  }
  if (src.op.kind == OperandKind::immediate) {
    in.src[0].value = static_cast<std::int32_t>(cat1_immediate(src, in.src_type, ops[1]));
  }
}

void parse_cat2(Instruction& in, const OpcodeInfo& row, const std::vector<Token>& parts,
                const std::vector<Token>& ops, const Token& mnemonic) {
  if (row.form == Form::alu_cmp) {
    if (parts.size() != 1) fail(mnemonic, "expected a condition (lt le gt ge eq ne) on");
    bool found = false;
    for (std::size_t i = 0; i < syntax::kConditions.size(); ++i) {
      if (parts[0].text == syntax::kConditions[i]) {
        in.cond = static_cast<std::uint8_t>(i);
        found = true;
      }
    }
    if (!found) fail(parts[0], "unknown condition");
  } else {
    no_suffix(parts);
  }
  expect_count(ops, row.form == Form::alu_1src ? 2 : 3, mnemonic);
  Source dst = parse_source(ops[0]);
  if (dst.op.kind != OperandKind::gpr) fail(ops[0], "expected a destination register, got");
  in.ei = dst.ei;
  in.dst = dst.op;
  for (std::size_t i = 1; i < ops.size(); ++i) in.src[i - 1] = alu_source(ops[i]);
}

Operand cat3_operand(const Token& t, bool allow_immediate) {
  Source s = parse_source(t);
  if (s.paren || (s.op.kind == OperandKind::immediate && !allow_immediate)) {
    fail(t, "this source cannot be an immediate:");
  }
  return s.op;
}

void parse_cat3(Instruction& in, const OpcodeInfo& row, const std::vector<Token>& parts,
                const std::vector<Token>& ops, const Token& mnemonic) {
  if (row.form == Form::tri_dot) {
    if (parts.size() != 2) fail(mnemonic, "expected .unsigned/.mixed and .low/.high on");
    if (parts[0].text != "unsigned" && parts[0].text != "mixed")
      fail(parts[0], "expected unsigned or mixed, got");
    if (parts[1].text != "low" && parts[1].text != "high")
      fail(parts[1], "expected low or high, got");
    in.dot.mixed = parts[0].text == "mixed";
    in.dot.high = parts[1].text == "high";
  } else {
    no_suffix(parts);
  }
  expect_count(ops, 4, mnemonic);
  Source dst = parse_source(ops[0]);
  if (dst.op.kind != OperandKind::gpr) fail(ops[0], "expected a destination register, got");
  in.dst = dst.op;
  const bool immediates = row.form == Form::tri_alt;
  in.src[0] = cat3_operand(ops[1], immediates);
  in.src[1] = cat3_operand(ops[2], false);
  if (in.src[1].kind != OperandKind::gpr) fail(ops[2], "the second source must be a register:");
  in.src[2] = cat3_operand(ops[3], immediates);
  // In the alternative form an immediate carries no precision; the register sources decide.
  for (Operand& op : in.src) {
    if (op.kind == OperandKind::immediate) op.half = false;
  }
}

void parse_cat4(Instruction& in, const std::vector<Token>& parts, const std::vector<Token>& ops,
                const Token& mnemonic) {
  no_suffix(parts);
  expect_count(ops, 2, mnemonic);
  Source dst = parse_source(ops[0]);
  if (dst.op.kind != OperandKind::gpr) fail(ops[0], "expected a destination register, got");
  in.dst = dst.op;
  in.src[0] = alu_source(ops[1]);
}

void parse_cat5(Instruction& in, const OpcodeInfo& row, const std::vector<Token>& parts,
                std::vector<Token> ops, const Token& mnemonic, Generation gen) {
  Instruction::Tex& t = in.tex;
  if (row.form == Form::tex_tcinv) {
    no_suffix(parts);
    expect_count(ops, 0, mnemonic);
    return;
  }
  bool s2en = false, uniform = false, nonuniform = false, bindless = false, written_1d = false;
  // No (type) written: the rck type where a type is shown, else the f32 Mesa encodes.
  const bool has_type = shows_type(row);
  in.type = has_type ? Type::u8_32 : Type::f32;
  for (const Token& p : parts) {
    const std::string_view s = p.text;
    if (row.form == Form::tex_brcst) {
      const unsigned width = suffix_number(p, "w");
      if (width < 2 || !std::has_single_bit(width)) fail(p, "cluster size must be a power of two");
      t.cluster = static_cast<std::uint8_t>(std::countr_zero(width) - 1);
    } else if (s == "3d") {
      t.is_3d = true;
    } else if (s == "a") {
      t.array = true;
    } else if (s == "o") {
      t.offset = true;
    } else if (s == "p" && row.form == Form::tex) {
      t.proj = true;
    } else if ((s == "s" && row.form == Form::tex) || (s == "v" && row.form == Form::tex_isam)) {
      t.sv = true;
    } else if (s == "s2en") {
      s2en = true;
    } else if (s == "uniform") {
      uniform = true;
    } else if (s == "nonuniform") {
      nonuniform = true;
    } else if (s.substr(0, 4) == "base") {
      bindless = true;
      t.base = static_cast<std::uint8_t>(suffix_number(p, "base"));
    } else if (s == "1d" && row.form == Form::tex_isam) {
      written_1d = true;
    } else if (s != "rck") {  // .rck is implied by the missing (type)
      fail(p, "unknown suffix");
    }
  }
  t.not_1d = row.form == Form::tex_isam && !written_1d;
  if (ops.empty()) fail(mnemonic, "missing operands for");
  // (type)(mask)dst
  std::string_view d = ops[0].text;
  if (d.substr(0, 1) != "(") fail(ops[0], "expected (type)(mask)dst, got");
  std::size_t close = d.find(')');
  std::string_view first = d.substr(1, close - 1);
  d.remove_prefix(close + 1);
  if (auto type = type_from(first)) {
    in.type = *type;
    if (d.substr(0, 1) != "(") fail(ops[0], "expected (mask) after the type in");
    close = d.find(')');
    first = d.substr(1, close - 1);
    d.remove_prefix(close + 1);
  }
  for (char c : first) {
    const std::size_t comp = std::string_view(syntax::kSwizzle).find(c);
    if (comp == std::string_view::npos) fail(ops[0], "bad write mask in");
    t.wrmask = static_cast<std::uint8_t>(t.wrmask | (1u << comp));
  }
  Source dst = parse_source({d, ops[0].column + (ops[0].text.size() - d.size())});
  if (dst.op.kind != OperandKind::gpr) fail(ops[0], "expected a destination register in");
  in.dst = dst.op;
  in.dst.half = is_half(in.type);
  // Remaining operands: registers, then s#/t#, then a1.x.
  std::vector<Operand> regs;
  bool uses_a1 = false;
  const Token* samp_written = nullptr;
  const Token* tex_written = nullptr;
  for (std::size_t i = 1; i < ops.size(); ++i) {
    std::string_view s = ops[i].text;
    if (consume(s, "s#")) {
      t.samp = static_cast<std::uint8_t>(integer({s, ops[i].column + 2}));
      samp_written = &ops[i];
    } else if (consume(s, "t#")) {
      t.tex = static_cast<std::uint8_t>(integer({s, ops[i].column + 2}));
      tex_written = &ops[i];
    } else if (s == "a1.x") {
      uses_a1 = true;
    } else if (row.form == Form::tex_isam && s.find('+') != std::string_view::npos) {
      const std::size_t plus = s.find('+');
      regs.push_back(parse_source({s.substr(0, plus), ops[i].column}).op);
      Operand offset;
      offset.kind = OperandKind::immediate;
      offset.value =
          static_cast<std::int32_t>(integer({s.substr(plus + 1), ops[i].column + plus + 1}));
      regs.push_back(offset);
    } else {
      Source src = parse_source(ops[i]);
      if (src.op.kind != OperandKind::gpr) fail(ops[i], "expected a register, got");
      regs.push_back(src.op);
    }
  }
  const unsigned num_src = texture_sources(row);
  const bool has_src2 =
      row.form == Form::tex_quad ? num_src > 1
      : row.form == Form::tex_brcst
          ? false
          : (t.offset || num_src > 1 ||
             (regs.size() > num_src && regs[num_src].kind == OperandKind::immediate));
  const std::size_t expected_regs = std::min<std::size_t>(num_src, 1) + (has_src2 ? 1 : 0);
  const bool indirect = s2en;
  if (regs.size() != expected_regs + (indirect ? 1 : 0)) {
    fail(mnemonic, "wrong number of register operands for");
  }
  std::size_t next = 0;
  if (num_src > 0) in.src[0] = regs[next++];
  if (has_src2) in.src[1] = regs[next++];
  const Operand& first_src = in.src[0].kind == OperandKind::gpr ? in.src[0] : in.src[1];
  t.full = first_src.kind == OperandKind::gpr && !first_src.half;
  if (indirect) in.src[2] = regs[next++];
  t.s2en_bindless = s2en || bindless;
  if (!t.s2en_bindless) return;
  if (s2en && uniform == nonuniform) {
    fail(mnemonic, "s2en needs exactly one of .uniform/.nonuniform:");
  }
  // With a1.x the instruction holds one index and a1.x the other: the sampler on a6xx, the
  // texture on a7xx (ir3-cat5.xml #cat5-s2enb-uses_a1-gen6 / -gen7).
  if (uses_a1 && !s2en) {
    const Token* other = gen == Generation::a6xx ? tex_written : samp_written;
    if (other != nullptr) {
      fail(*other, std::string("with a1.x the ") + (gen == Generation::a6xx ? "texture" : "sampler") +
                       " index comes from a1.x on " + generation_name(gen) + ", not");
    }
  }
  // The descriptor mode is the one whose properties the suffixes and a1.x spell out.
  for (unsigned mode = 0; mode < kDescriptorModeCount; ++mode) {
    if (desc_indirect(mode) == s2en && desc_bindless(mode) == bindless &&
        desc_uses_a1(mode) == uses_a1 && (!s2en || desc_uniform(mode) == uniform)) {
      t.desc_mode = static_cast<std::uint8_t>(mode);
      return;
    }
  }
  fail(mnemonic, "no descriptor mode matches the suffixes and a1.x of");
}

// g[...] / l[...] / p[...] / c[...]: the inside of the brackets.
Token bracketed(const Token& t, std::string_view open) {
  std::string_view s = t.text;
  if (!consume(s, open) || s.empty() || s.back() != ']') {
    fail(t, "expected " + std::string(open) + "...], got");
  }
  return {s.substr(0, s.size() - 1), t.column + open.size()};
}

// "rN.c" with an optional signed "+N"/"-N" offset; spaces around the sign are allowed, as Mesa's
// lexer skips them (computerator's pvtmem.asm writes "p[r0.x + 0]").
std::pair<std::uint16_t, std::int32_t> register_offset(const Token& t) {
  const std::size_t sign = t.text.find_first_of("+-");
  std::string_view reg_text = t.text.substr(0, sign);
  while (!reg_text.empty() && reg_text.back() == ' ') reg_text.remove_suffix(1);
  const std::uint16_t reg = gpr_id({reg_text, t.column});
  if (sign == std::string_view::npos) return {reg, 0};
  std::size_t digits = sign + 1;
  while (digits < t.text.size() && t.text[digits] == ' ') ++digits;
  const std::string offset = std::string(1, t.text[sign]) + std::string(t.text.substr(digits));
  return {reg, static_cast<std::int32_t>(integer({offset, t.column + sign}))};
}

// The ldg.a/stg.a address forms printed by scaled_address().
void scaled_address(const Token& t, Instruction& in, Operand& base, Operand& index) {
  std::string_view s = t.text;
  const std::size_t plus = s.find('+');
  if (plus == std::string_view::npos) fail(t, "expected base+index in");
  base.kind = index.kind = OperandKind::gpr;
  base.reg = gpr_id({s.substr(0, plus), t.column});
  s.remove_prefix(plus + 1);
  const bool parenthesized = s.find('(') != std::string_view::npos;
  std::string flat;
  for (char c : s) {
    if (c != '(' && c != ')') flat += c;
  }
  // flat: "rX.c" followed by a sequence of "+N" / "<<N".
  std::size_t pos = flat.find_first_of("+<");
  index.reg = gpr_id({std::string_view(flat).substr(0, pos), t.column + plus + 1});
  std::vector<std::pair<char, std::int64_t>> steps;
  while (pos < flat.size()) {
    const char op = flat[pos];
    if (op == '<' && flat.compare(pos, 2, "<<") != 0) fail(t, "malformed address");
    pos += op == '<' ? 2 : 1;
    const std::size_t end = flat.find_first_of("+<", pos);
    auto value = to_integer(std::string_view(flat).substr(pos, end - pos));
    if (!value) fail(t, "malformed address");
    steps.emplace_back(op, *value);
    pos = end;
  }
  const unsigned shift = type_shift(in.type);
  auto& m = in.mem;
  if (steps.empty()) return;
  if (steps.size() == 1 && steps[0].first == '+') {
    m.offset = static_cast<std::int32_t>(steps[0].second);
  } else if (steps.size() == 1) {
    if (steps[0].second < shift) fail(t, "shift smaller than the type size in");
    m.shift = static_cast<std::uint8_t>(steps[0].second - shift);
  } else if (steps.size() == 2 && steps[0].first == '+') {
    m.offset = static_cast<std::int32_t>(steps[0].second);
  } else if (steps.size() == 3 && steps[0].first == '<' && parenthesized) {
    // "((index<<S)+OFF)<<2", as the disassembler prints it: S is the field.
    m.shift = static_cast<std::uint8_t>(steps[0].second);
    m.offset = static_cast<std::int32_t>(steps[1].second);
  } else if (!parenthesized && steps.size() >= 2 && steps.size() <= 3 && steps[0].first == '<' && steps.back().first == '<' &&
             steps.back().second == 2 && (steps.size() == 2 || steps[1].first == '+')) {
    // "index<<N+OFF<<2" without parentheses, the older syntax computerator's stg_ldg_offset.asm
    // is written in: Mesa's parser (ir3_parser.y cat6_a6xx_global_address_pt3) takes the field
    // as N - 2 and requires the final shift to be 2.
    if (steps[0].second < 2) fail(t, "shift smaller than 2 in");
    m.shift = static_cast<std::uint8_t>(steps[0].second - 2);
    if (steps.size() == 3) m.offset = static_cast<std::int32_t>(steps[1].second);
  } else {
    fail(t, "malformed address");
  }
}

// #cat6-src-const-or-gpr: rN.c or cN.c.
Operand const_or_register(const Token& t) {
  Operand op;
  if (auto id = parse_register(t.text, 'c')) {
    op.kind = OperandKind::constant;
    op.reg = *id;
    return op;
  }
  op.kind = OperandKind::gpr;
  op.reg = gpr_id(t);
  return op;
}

// The a7xx ldg.a/stg.a address: base (rN.c or cN.c) + index register [+ offset].
void summed_address(const Token& t, Instruction& in) {
  std::string_view s = t.text;
  const std::size_t plus = s.find('+');
  if (plus == std::string_view::npos) fail(t, "expected base+index+offset in");
  in.src[0] = const_or_register({s.substr(0, plus), t.column});
  const std::size_t second = s.find('+', plus + 1);
  const std::string_view index = s.substr(plus + 1, second == std::string_view::npos ? std::string_view::npos : second - plus - 1);
  if (index.find_first_of("<(") != std::string_view::npos) {
    fail(t, "an a7xx ldg.a/stg.a address is base+index+offset, without a shift:");
  }
  in.src[1].kind = OperandKind::gpr;
  in.src[1].reg = gpr_id({index, t.column + plus + 1});
  if (second != std::string_view::npos) in.mem.offset = small({s.substr(second + 1), t.column + second + 1}, 0, 255);
}

Operand cat6_operand(const Token& t) {
  Operand op;
  if (auto value = to_integer(t.text)) {
    op.kind = OperandKind::immediate;
    op.value = static_cast<std::int32_t>(*value);
    return op;
  }
  std::string_view s = t.text;
  const bool half = consume(s, "h");
  op.kind = OperandKind::gpr;
  op.reg = gpr_id({s, t.column + (half ? 1 : 0)});
  op.half = half;
  return op;
}

void const_destination(const Token& t, Instruction& in) {
  Token inside = bracketed(t, "c[");
  in.dst.kind = OperandKind::constant;
  std::string_view s = inside.text;
  if (consume(s, "a1.x")) {
    in.mem.const_dst_a1 = true;
    in.dst.value = s.empty() ? 0 : static_cast<std::int32_t>(integer({s, inside.column + 4}));
  } else {
    in.dst.value = static_cast<std::int32_t>(integer(inside));
  }
}

unsigned dimension(const Token& t) {
  if (t.text.size() != 2 || t.text[1] != 'd' || t.text[0] < '1' || t.text[0] > '4') {
    fail(t, "expected 1d..4d, got");
  }
  return static_cast<unsigned>(t.text[0] - '0');
}

std::uint8_t cat6_mode(const Token& t) {
  for (std::size_t i = 0; i < syntax::kDescriptorModes.size(); ++i) {
    if (t.text == syntax::kDescriptorModes[i]) return static_cast<std::uint8_t>(i);
  }
  fail(t, "expected imm, uniform or nonuniform, got");
}

void parse_cat6(Instruction& in, const OpcodeInfo& row, std::vector<Token> parts,
                const std::vector<Token>& ops, const Token& mnemonic) {
  auto& m = in.mem;
  auto need_parts = [&](std::size_t count) {
    if (parts.size() != count) fail(mnemonic, "wrong number of suffixes on");
  };
  auto dst_reg = [&](const Token& t) {
    Operand op = cat6_operand(t);
    if (op.kind != OperandKind::gpr) fail(t, "expected a register, got");
    return op;
  };
  switch (row.form) {
    case Form::ldg:
    case Form::ldg_a:
    case Form::ld_local:
    case Form::ldlv: {
      need_parts(1);
      in.type = type_of(parts[0]);
      expect_count(ops, 3, mnemonic);
      in.dst = dst_reg(ops[0]);
      in.dst.half = is_half(in.type);
      const char* open = row.form == Form::ldg || row.form == Form::ldg_a ? "g["
                         : in.opcode == Opcode::ldp                       ? "p["
                                                                          : "l[";
      Token inside = bracketed(ops[1], open);
      if (row.form == Form::ldg_a) {
        scaled_address(inside, in, in.src[0], in.src[1]);
      } else if (row.form == Form::ldlv) {
        m.offset = static_cast<std::int32_t>(integer(inside));
      } else {
        auto [reg, offset] = register_offset(inside);
        in.src[0].kind = OperandKind::gpr;
        in.src[0].reg = reg;
        m.offset = offset;
      }
      m.size = small(ops[2], 0, 255);
      return;
    }
    case Form::ldg_k: {
      need_parts(1);
      in.type = type_of(parts[0]);
      expect_count(ops, 3, mnemonic);
      const_destination(ops[0], in);
      auto [reg, offset] = register_offset(bracketed(ops[1], "g["));
      in.src[0].kind = OperandKind::gpr;
      in.src[0].reg = reg;
      m.offset = offset;
      m.size = small(ops[2], 0, 15);
      return;
    }
    case Form::stg:
    case Form::stg_a:
    case Form::st_local: {
      need_parts(1);
      in.type = type_of(parts[0]);
      expect_count(ops, 3, mnemonic);
      const char* open = row.form != Form::st_local ? "g[" : in.opcode == Opcode::stp ? "p[" : "l[";
      Token inside = bracketed(ops[0], open);
      Operand value = dst_reg(ops[1]);
      value.half = is_half(in.type);
      if (row.form == Form::stg_a) {
        scaled_address(inside, in, in.src[0], in.src[1]);
        in.src[2] = value;
      } else {
        auto [reg, offset] = register_offset(inside);
        in.src[0].kind = OperandKind::gpr;
        in.src[0].reg = reg;
        m.offset = offset;
        in.src[1] = value;
      }
      m.size = small(ops[2], 0, 255);
      return;
    }
    case Form::ldg_a_a7xx:
    case Form::stg_a_a7xx: {
      need_parts(1);
      in.type = type_of(parts[0]);
      expect_count(ops, 3, mnemonic);
      const bool load = row.form == Form::ldg_a_a7xx;
      summed_address(bracketed(ops[load ? 1 : 0], "g["), in);
      Operand reg = dst_reg(ops[load ? 0 : 1]);
      reg.half = is_half(in.type);
      (load ? in.dst : in.src[2]) = reg;
      m.size = small(ops[2], 0, 7);
      return;
    }
    case Form::stsc:
      need_parts(1);
      in.type = type_of(parts[0]);
      expect_count(ops, 3, mnemonic);
      const_destination(ops[0], in);
      if (in.mem.const_dst_a1) fail(ops[0], "stsc writes a fixed c[N], not");
      in.src[0].kind = OperandKind::immediate;
      in.src[0].value = small(ops[1], 0, 255);
      m.size = small(ops[2], 0, 255);
      return;
    case Form::ray_intersection: {
      no_suffix(parts);
      expect_count(ops, 5, mnemonic);
      in.dst = dst_reg(ops[0]);
      Token inside = bracketed(ops[1], "[");
      in.src[0] = const_or_register(inside);
      for (std::size_t i = 2; i < 5; ++i) in.src[i - 1] = dst_reg(ops[i]);
      return;
    }
    case Form::stc:
      need_parts(1);
      in.type = type_of(parts[0]);
      expect_count(ops, 3, mnemonic);
      const_destination(ops[0], in);
      in.src[0] = dst_reg(ops[1]);
      in.src[0].half = is_half(in.type);
      m.size = small(ops[2], 0, 7);
      return;
    case Form::atomic_local:
    case Form::atomic_global: {
      need_parts(5);
      if (parts[0].text != "typed" && parts[0].text != "untyped")
        fail(parts[0], "expected typed or untyped, got");
      m.typed = parts[0].text == "typed";
      m.dim = static_cast<std::uint8_t>(dimension(parts[1]));
      in.type = type_of(parts[2]);
      m.size = small(parts[3], 1, 4);
      const char* scope = row.form == Form::atomic_local ? "l" : "g";
      if (parts[4].text != scope) fail(parts[4], std::string("expected .") + scope + ", got");
      expect_count(ops, 3, mnemonic);
      in.dst = dst_reg(ops[0]);
      in.src[0] = cat6_operand(row.form == Form::atomic_local ? bracketed(ops[1], "l[") : ops[1]);
      in.src[1] = cat6_operand(ops[2]);
      return;
    }
    case Form::shfl: {
      need_parts(2);
      bool found = false;
      for (std::size_t i = 0; i < syntax::kShuffleModes.size(); ++i) {
        if (syntax::kShuffleModes[i][0] != '\0' && parts[0].text == syntax::kShuffleModes[i]) {
          m.shfl_mode = static_cast<std::uint8_t>(i);
          found = true;
        }
      }
      if (!found) fail(parts[0], "unknown shuffle mode");
      in.type = type_of(parts[1]);
      expect_count(ops, 3, mnemonic);
      in.dst = dst_reg(ops[0]);
      in.dst.half = is_half(in.type);
      in.src[0] = dst_reg(ops[1]);
      in.src[0].half = is_half(in.type);
      in.src[1] = cat6_operand(ops[2]);
      return;
    }
    case Form::sysid:
      need_parts(1);
      in.type = type_of(parts[0]);
      expect_count(ops, 1, mnemonic);
      in.dst = dst_reg(ops[0]);
      return;
    default: break;
  }
  // The a6xx descriptor-based forms end in .<mode>[.baseN].
  if (!parts.empty() && parts.back().text.substr(0, 4) == "base") {
    m.bindless = true;
    m.base = static_cast<std::uint8_t>(suffix_number(parts.back(), "base"));
    parts.pop_back();
  }
  if (parts.empty()) fail(mnemonic, "missing .imm/.uniform/.nonuniform on");
  m.mode = cat6_mode(parts.back());
  parts.pop_back();
  auto descriptor = [&](const Token& t) {
    Operand op = cat6_operand(t);
    if ((op.kind == OperandKind::immediate) != (m.mode == 0)) {
      fail(t, "the descriptor is an immediate exactly in .imm mode:");
    }
    return op;
  };
  switch (row.form) {
    case Form::ldc:
    case Form::ldc_k: {
      in.type = Type::u32;
      expect_count(ops, 3, mnemonic);
      bool is_k = false;
      for (const Token& p : parts) is_k = is_k || p.text == "k";
      if (is_k) {
        in.opcode = Opcode::ldc_k;
        need_parts(2);
        if (parts[1].text != "k") fail(parts[1], "expected k, got");
        m.size = small(parts[0], 1, 255);
        if (ops[0].text != "c[a1.x]") fail(ops[0], "ldc.k writes c[a1.x], not");
      } else {
        std::size_t next = 0;
        if (!parts.empty() && parts[0].text == "u") {
          m.uniform_u = true;
          ++next;
        }
        if (parts.size() != next + 2) fail(mnemonic, "expected ldc[.u].offsetN.N.<mode> in");
        m.offset = static_cast<std::int32_t>(suffix_number(parts[next], "offset"));
        m.size = small(parts[next + 1], 1, 4);
        in.dst = dst_reg(ops[0]);
      }
      in.src[0] = cat6_operand(ops[1]);
      in.src[1] = descriptor(ops[2]);
      return;
    }
    default: break;
  }
  // res_1src, ibo_ldst, ibo_atomic: .typed.Nd.type[.rck].size
  const bool rck = parts.size() == 5 && parts[3].text == "rck" && row.form == Form::ibo_ldst;
  if (parts.size() != (rck ? 5u : 4u))
    fail(mnemonic, "expected .typed|untyped.Nd.type.size.<mode> on");
  if (parts[0].text != "typed" && parts[0].text != "untyped")
    fail(parts[0], "expected typed or untyped, got");
  m.typed = parts[0].text == "typed";
  m.dim = static_cast<std::uint8_t>(dimension(parts[1]));
  in.type = type_of(parts[2]);
  m.rck = rck;
  m.size = small(parts.back(), 1, 4);
  if (row.form == Form::res_1src) {
    expect_count(ops, 2, mnemonic);
    in.dst = dst_reg(ops[0]);
    in.src[0] = descriptor(ops[1]);
    return;
  }
  expect_count(ops, 3, mnemonic);
  in.src[0] = dst_reg(ops[0]);
  if (row.form == Form::ibo_ldst) in.src[0].half = is_half(in.type);
  auto [coordinate, offset] = register_offset(ops[1]);
  in.src[1].kind = OperandKind::gpr;
  in.src[1].reg = coordinate;
  if (offset != 0 && row.form != Form::ibo_ldst) fail(ops[1], "only ldib.b/stib.b take an offset:");
  m.offset = offset;
  in.src[2] = descriptor(ops[2]);
}

// alias.<scope>.<f|b><16|32>.<table size - 1> dst, src (ir3-cat7.xml alias).
void parse_alias(Instruction& in, const std::vector<Token>& parts, const std::vector<Token>& ops, const Token& mnemonic) {
  Instruction::Alias& a = in.alias;
  if (parts.size() != 3) fail(mnemonic, "expected alias.<tex|rt|mem>.<type><size>.<N> in");
  if (parts[0].text == "tex") {
    a.scope = 0;
  } else if (parts[0].text == "rt") {
    a.scope = 1;
  } else if (parts[0].text == "mem") {
    a.scope = 2;
  } else {
    fail(parts[0], "expected tex, rt or mem, got");
  }
  const std::string_view type = parts[1].text;
  if (type != "f16" && type != "f32" && type != "b16" && type != "b32") fail(parts[1], "expected f16, f32, b16 or b32, got");
  a.integer = type[0] == 'b';
  a.size32 = type.substr(1) == "32";
  a.table_size_minus_one = small(parts[2], 0, 15);
  expect_count(ops, 2, mnemonic);
  std::string_view d = ops[0].text;
  in.dst.kind = OperandKind::gpr;
  if (a.scope == 1) {
    if (!consume(d, "rt") || d.size() != 3 || d[0] < '0' || d[0] > '7' || d[1] != '.' ||
        std::string_view(syntax::kSwizzle).find(d[2]) == std::string_view::npos) {
      fail(ops[0], "expected a render target rtN.c, got");
    }
    in.dst.reg = regid(static_cast<unsigned>(d[0] - '0'), static_cast<unsigned>(std::string_view(syntax::kSwizzle).find(d[2])));
  } else {
    Source dst = parse_source(ops[0]);
    if (dst.op.kind != OperandKind::gpr || dst.op.half == a.size32) {
      fail(ops[0], std::string("expected a ") + (a.size32 ? "full" : "half") + " destination register, got");
    }
    in.dst = dst.op;
  }
  Source src = parse_source(ops[1]);
  in.src[0] = src.op;
  if (src.op.kind == OperandKind::gpr || src.op.kind == OperandKind::constant) {
    if (src.op.half == a.size32) fail(ops[1], std::string("expected a ") + (a.size32 ? "32" : "16") + "-bit source, got");
    return;
  }
  // Immediates: h(...) for 16 bits, (...) for 32; hexadecimal with type b, floating point with f.
  if (!src.paren || src.explicit_half == a.size32) fail(ops[1], "expected an immediate in the alias type's syntax, got");
  in.src[0].half = !a.size32;
  if (a.integer) {
    auto value = to_integer(src.inner);
    if (!value || !src.inner.starts_with("0x")) fail(ops[1], "expected a hexadecimal immediate, got");
    in.src[0].value = static_cast<std::int32_t>(*value);
    return;
  }
  const std::string inner(src.inner);
  char* end = nullptr;
  const float value = std::strtof(inner.c_str(), &end);
  if (end == inner.c_str() || *end != '\0') fail(ops[1], "expected a float immediate, got");
  in.src[0].value = static_cast<std::int32_t>(a.size32 ? std::bit_cast<std::uint32_t>(value) : float_to_half(value));
}

void parse_cat7(Instruction& in, const OpcodeInfo& row, const std::vector<Token>& parts,
                const std::vector<Token>& ops, const Token& mnemonic) {
  if (row.form == Form::alias) return parse_alias(in, parts, ops, mnemonic);
  expect_count(ops, 0, mnemonic);
  for (const Token& p : parts) {
    const std::string_view s = p.text;
    if (row.form == Form::barrier && s == "g") {
      in.sync.g = true;
    } else if (row.form == Form::barrier && s == "l") {
      in.sync.l = true;
    } else if (row.form == Form::barrier && s == "r") {
      in.sync.r = true;
    } else if (row.form == Form::barrier && s == "w") {
      in.sync.w = true;
    } else if (row.form == Form::sleep && (s == "s" || s == "l")) {
      in.sync.flag = s == "l";
    } else if (row.form == Form::cache && (s == "shr" || s == "all")) {
      in.sync.flag = s == "all";
    } else {
      fail(p, "unknown suffix");
    }
  }
}

// Longest table name (of any generation) that is a dot-separated prefix of the mnemonic, as the
// row of that name on `gen`. A name that exists only on the other generation is refused here,
// rather than read as a shorter name with suffixes ("add.f.mul2" is not "add.f" + ".mul2").
const OpcodeInfo* find_name(const Token& mnemonic, std::size_t& name_length, std::string_view& written,
                            Generation gen) {
  std::size_t end = mnemonic.text.size();
  while (true) {
    const std::string_view candidate = mnemonic.text.substr(0, end);
    std::string_view lookup_name = candidate;
    if (candidate == "cov" || candidate == "mova" || candidate == "mova1") lookup_name = "mov";
    if (const OpcodeInfo* any = find_opcode_any_generation(lookup_name.data(), lookup_name.size())) {
      const OpcodeInfo* row = find_opcode(lookup_name.data(), lookup_name.size(), gen);
      if (row == nullptr) {
        fail({candidate, mnemonic.column}, std::string("an ") + generations_text(any->gens) + " instruction, not " +
                                               generation_name(gen) + ":");
      }
      name_length = end;
      written = candidate;
      return row;
    }
    const std::size_t dot = candidate.rfind('.');
    if (dot == std::string_view::npos) return nullptr;
    end = dot;
  }
}

}  // namespace

std::optional<std::uint16_t> parse_register(std::string_view s, char file) {
  if (s.size() < 4 || s[0] != file) return std::nullopt;
  const std::size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot + 2 != s.size()) return std::nullopt;
  auto number = to_integer(s.substr(1, dot - 1));
  const char* comps = syntax::kSwizzle;
  const char* comp = std::char_traits<char>::find(comps, 4, s[dot + 1]);
  if (!number || *number < 0 || *number > 511 || comp == nullptr ||
      !std::isdigit(static_cast<unsigned char>(s[1]))) {
    return std::nullopt;
  }
  return regid(static_cast<unsigned>(*number), static_cast<unsigned>(comp - comps));
}

Instruction parse_instruction(std::string_view text, const LabelResolver& labels, Generation gen) {
  Instruction in;
  Token rest = trim({text, 1});
  // Leading flags: (sy)(ss)(jp)(ul)(sat)(eq)(eolm)(eogm)(rptN)(nopN), spaces allowed between.
  while (!rest.text.empty() && rest.text.front() == '(') {
    const std::size_t close = rest.text.find(')');
    if (close == std::string_view::npos) fail(rest, "unbalanced parenthesis in");
    const Token flag{rest.text.substr(1, close - 1), rest.column + 1};
    const std::string_view f = flag.text;
    if (f == "sy") {
      in.sy = true;
    } else if (f == "ss") {
      in.ss = true;
    } else if (f == "jp") {
      in.jp = true;
    } else if (f == "ul") {
      in.ul = true;
    } else if (f == "sat") {
      in.sat = true;
    } else if (f == "eq") {
      in.eq = true;
    } else if (f == "eolm") {
      in.flow.eolm = true;
    } else if (f == "eogm") {
      in.flow.eogm = true;
    } else if (f == "eostsc") {
      in.flow.eostsc = true;
    } else if (f.substr(0, 3) == "rpt") {
      in.repeat = small({f.substr(3), flag.column + 3}, 0, 7);
    } else if (f.substr(0, 3) == "nop") {
      in.nop = small({f.substr(3), flag.column + 3}, 1, 3);
    } else {
      break;  // not a flag: an operand-less instruction cannot start with '(' anyway
    }
    rest = trim({rest.text.substr(close + 1), rest.column + close + 1});
  }
  std::size_t space = 0;
  while (space < rest.text.size() && !std::isspace(static_cast<unsigned char>(rest.text[space])))
    ++space;
  const Token mnemonic{rest.text.substr(0, space), rest.column};
  if (mnemonic.text.empty()) fail(rest, "expected an instruction, got");
  std::size_t name_length = 0;
  std::string_view written;
  const OpcodeInfo* row = find_name(mnemonic, name_length, written, gen);
  if (row == nullptr) fail(mnemonic, "unknown instruction");
  in.opcode = row->opcode;
  const std::vector<Token> parts = suffixes(mnemonic, name_length);
  const std::vector<Token> ops = split_operands({rest.text.substr(space), rest.column + space});
  switch (row->category) {
    case 0: parse_cat0(in, *row, parts, ops, mnemonic, labels); break;
    case 1: parse_cat1(in, *row, written, parts, ops, mnemonic); break;
    case 2: parse_cat2(in, *row, parts, ops, mnemonic); break;
    case 3: parse_cat3(in, *row, parts, ops, mnemonic); break;
    case 4: parse_cat4(in, parts, ops, mnemonic); break;
    case 5: parse_cat5(in, *row, parts, ops, mnemonic, gen); break;
    case 6: parse_cat6(in, *row, parts, ops, mnemonic); break;
    default: parse_cat7(in, *row, parts, ops, mnemonic); break;
  }
  return in;
}

}  // namespace adreno::ir3
