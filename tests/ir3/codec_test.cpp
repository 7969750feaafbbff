// [pure] The ISA table, for a6xx and a7xx, against Mesa's own disassembler vectors (see
// mesa_vectors.h).
#include "ir3/codec.h"

#include <adreno/error.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <string>

#include "ir3/disassembler.h"
#include "ir3/text.h"
#include "mesa_vectors.h"

using namespace adreno::ir3;
using adreno::ir3::test::kMesaA6xxVectors;
using adreno::ir3::test::kMesaA7xxVectors;

namespace {
std::string hex(std::uint64_t word) {
  char text[24];
  std::snprintf(text, sizeof text, "%08x_%08x", static_cast<unsigned>(word >> 32),
                static_cast<unsigned>(word));
  return text;
}
}  // namespace

TEST_CASE("every Mesa a6xx vector disassembles to Mesa's text", "[pure][ir3]") {
  for (const auto& v : kMesaA6xxVectors) {
    INFO(hex(v.word) << "  expected: " << v.text);
    CHECK(to_text(decode(v.word)) == v.text);
  }
}

TEST_CASE("every Mesa a6xx vector's text assembles to Mesa's word", "[pure][ir3]") {
  for (const auto& v : kMesaA6xxVectors) {
    INFO(v.text << "  expected: " << hex(v.word));
    std::uint64_t word = 0;
    REQUIRE_NOTHROW(word = encode(parse_instruction(v.text)));
    CHECK(hex(word) == hex(v.word));
  }
}

TEST_CASE("encode(decode(w)) reproduces every Mesa a6xx vector", "[pure][ir3]") {
  for (const auto& v : kMesaA6xxVectors) {
    INFO(v.text);
    CHECK(hex(encode(decode(v.word))) == hex(v.word));
  }
}

TEST_CASE("decoding is a function of the canonical encoding", "[pure][ir3]") {
  for (const auto& v : kMesaA6xxVectors) {
    INFO(v.text);
    const Instruction once = decode(v.word);
    CHECK(decode(encode(once)) == once);
    CHECK(parse_instruction(v.text) == once);
  }
}

TEST_CASE("every Mesa a7xx vector disassembles to Mesa's text on a7xx", "[pure][ir3]") {
  for (const auto& v : kMesaA7xxVectors) {
    INFO(hex(v.word) << "  expected: " << v.text);
    CHECK(disassemble_word(v.word, Generation::a7xx) == v.text);
  }
}

TEST_CASE("every Mesa a7xx vector's text assembles to Mesa's word on a7xx", "[pure][ir3]") {
  for (const auto& v : kMesaA7xxVectors) {
    INFO(v.text << "  expected: " << hex(v.word));
    std::uint64_t word = 0;
    REQUIRE_NOTHROW(word = encode(parse_instruction(v.text, {}, Generation::a7xx), Generation::a7xx));
    CHECK(hex(word) == hex(v.word));
  }
}

TEST_CASE("encode(decode(w)) reproduces every Mesa a7xx vector, and decoding is canonical", "[pure][ir3]") {
  for (const auto& v : kMesaA7xxVectors) {
    INFO(v.text);
    const Instruction once = decode(v.word, Generation::a7xx);
    CHECK(hex(encode(once, Generation::a7xx)) == hex(v.word));
    CHECK(decode(encode(once, Generation::a7xx), Generation::a7xx) == once);
    CHECK(parse_instruction(v.text, {}, Generation::a7xx) == once);
  }
}

// The instructions both generations share have one encoding: every a6xx vector whose form exists
// on a7xx reads the same there. Two kinds differ by generation (each checked against its own
// vectors above): the a6xx ldg.a/stg.a bitsets (ir3-cat6.xml gen 600..699), and the cat5
// descriptor modes that take an index from a1.x (src3 names the sampler on a6xx, the texture on
// a7xx: #cat5-s2enb-uses_a1-gen6/-gen7). Mesa's ir3-disasm -g FD740 agrees vector by vector.
TEST_CASE("a6xx vectors of the shared forms read the same on a7xx", "[pure][ir3]") {
  int shared = 0;
  for (const auto& v : kMesaA6xxVectors) {
    const Instruction a6 = decode(v.word, Generation::a6xx);
    const OpcodeInfo& row = info(a6.opcode);
    const bool a1_mode = row.category == 5 && a6.tex.s2en_bindless && !desc_indirect(a6.tex.desc_mode) &&
                         desc_uses_a1(a6.tex.desc_mode);
    if (!exists_on(row.gens, Generation::a7xx) || a1_mode) {
      CHECK(disassemble_word(v.word, Generation::a7xx) != v.text);
      continue;
    }
    INFO(v.text);
    CHECK(disassemble_word(v.word, Generation::a7xx) == v.text);
    CHECK(hex(encode(parse_instruction(v.text, {}, Generation::a7xx), Generation::a7xx)) == hex(v.word));
    ++shared;
  }
  CHECK(shared > 180);
}

TEST_CASE("ldib.b/stib.b offsets in the opcode bits round-trip (Mesa generated vectors)",
          "[pure][ir3]") {
  for (unsigned offset = 1; offset < 0x1f; ++offset) {
    const std::uint64_t stib =
        test::kStibOffsetBase + (std::uint64_t{offset} << test::kOffsetShift);
    const std::uint64_t ldib =
        test::kLdibOffsetBase + (std::uint64_t{offset} << test::kOffsetShift);
    const std::string stib_text =
        "stib.b.untyped.1d.u32.4.imm.base0 r2.y, r5.z+" + std::to_string(offset) + ", 4";
    const std::string ldib_text =
        "ldib.b.untyped.1d.u32.4.imm.base0 r0.z, r0.y+" + std::to_string(offset) + ", 0";
    CHECK(to_text(decode(stib)) == stib_text);
    CHECK(to_text(decode(ldib)) == ldib_text);
    CHECK(hex(encode(parse_instruction(stib_text))) == hex(stib));
    CHECK(hex(encode(parse_instruction(ldib_text))) == hex(ldib));
    for (const Generation gen : {Generation::a6xx, Generation::a7xx}) {  // the same form on a7xx
      CHECK(disassemble_word(stib, gen) == stib_text);
      CHECK(disassemble_word(ldib, gen) == ldib_text);
    }
  }
}

TEST_CASE("a word that matches no instruction prints as raw and is rejected by decode",
          "[pure][ir3]") {
  // disasm.c's last vector: all ones matches nothing; Mesa's test prints it as "raw 0x...".
  CHECK(disassemble_word(0xffffffffffffffffull) == "raw 0xFFFFFFFFFFFFFFFF");
  try {
    decode(0xffffffffffffffffull);
    FAIL("decode accepted an undefined word");
  } catch (const adreno::Error& e) {
    CHECK(e.code() == adreno::Errc::malformed);
  }
}

// Seeded random words: every word that decodes is brought to its canonical encoding (bits the
// syntax cannot show are dropped), and that encoding must survive text and back unchanged.
TEST_CASE("seeded random valid words survive disassemble then assemble", "[pure][ir3]") {
  const Generation gen = GENERATE(Generation::a6xx, Generation::a7xx);
  INFO(generation_name(gen));
  std::mt19937_64 random(gen == Generation::a6xx ? 0x1a630u : 0x1a740u);
  int checked = 0;
  for (int i = 0; i < 200000 && checked < 20000; ++i) {
    std::uint64_t word = random();
    Instruction in;
    try {
      in = decode(word, gen);
    } catch (const adreno::Error&) {
      continue;
    }
    std::uint64_t canonical = 0;
    try {
      canonical = encode(in, gen);
    } catch (const adreno::Error&) {
      continue;  // decoded fields outside what the encoder accepts (e.g. an undefined mode)
    }
    const std::string text = to_text(decode(canonical, gen), gen);
    // What Mesa's syntax cannot carry back, so neither can ours: float immediates are printed
    // with %f, ldg.a/stg.a with a byte type do not print SRC2_SHIFT, and alias scopes 2 and 3
    // both print as mem.
    const bool lossy_float = (info(in.opcode).category == 1 && in.src[0].kind == OperandKind::immediate &&
                              (in.src_type == Type::f32 || in.src_type == Type::f16)) ||
                             (in.opcode == Opcode::alias && in.src[0].kind == OperandKind::immediate && !in.alias.integer);
    const bool hidden_shift = (in.opcode == Opcode::ldg_a || in.opcode == Opcode::stg_a) &&
                              in.mem.shift != 0 && static_cast<unsigned>(in.type) >= 6;
    const bool hidden_scope = in.opcode == Opcode::alias && in.alias.scope == 3;
    if (lossy_float || hidden_shift || hidden_scope) continue;
    INFO(hex(word) << " -> " << hex(canonical) << "  " << text);
    Instruction parsed;
    REQUIRE_NOTHROW(parsed = parse_instruction(text, {}, gen));
    CHECK(hex(encode(parsed, gen)) == hex(canonical));
    CHECK(parsed == decode(canonical, gen));
    ++checked;
  }
  CHECK(checked == 20000);
}

TEST_CASE("a malformed instruction is an adreno::Error naming the column and token",
          "[pure][ir3]") {
  try {
    parse_instruction("add.f r0.x, r1.x, q7");
    FAIL("parsed a malformed instruction");
  } catch (const SyntaxError& e) {
    CHECK(e.code() == adreno::Errc::malformed);
    CHECK(e.column() == 19);
    CHECK(e.detail() == "column 19: unrecognised operand 'q7'");
  }
}

TEST_CASE("encoding a value outside its field is an invalid_argument naming the field",
          "[pure][ir3]") {
  Instruction in = parse_instruction("add.u r0.x, r1.x, r2.x");
  in.nop = 4;  // (nopN) has two bits, SRC1_R and SRC2_R (ir3-common.xml #cat2-cat3-nop-value)
  try {
    encode(in);
    FAIL("encoded (nop4)");
  } catch (const adreno::Error& e) {
    CHECK(e.code() == adreno::Errc::invalid_argument);
    CHECK(e.operation() == "ir3 encode add.u");
    CHECK(e.detail() == "(nopN) takes N = 1..3");
  }
}

// The structured form the interpreter reads: the fixture's loads and stores (Mesa 25.2.0 output,
// shared/fixtures/ir3-a630/scalar.disasm.txt) put their operands where instruction.h says.
TEST_CASE("decode places cat6 global memory operands in the documented slots", "[pure][ir3]") {
  const Instruction load = decode(0xc006000201800001ull);  // ldg.u32 r0.z, g[r0.x], 1
  CHECK(load.opcode == Opcode::ldg);
  CHECK(load.type == Type::u32);
  CHECK(load.dst.reg == regid(0, 2));
  CHECK(load.src[0].reg == regid(0, 0));
  CHECK(load.mem.size == 1);
  CHECK(load.mem.offset == 0);
  const Instruction store = decode(0xc0c60b0001800004ull);  // stg.u32 g[r1.y], r0.z, 1
  CHECK(store.opcode == Opcode::stg);
  CHECK(store.src[0].reg == regid(1, 1));
  CHECK(store.src[1].reg == regid(0, 2));
  const Instruction add = decode(0x52180b180014000full);  // (sy)(rpt3)add.u r6.x, (r)r3.w, (r)r5.x
  CHECK(add.opcode == Opcode::add_u);
  CHECK(add.sy);
  CHECK(add.repeat == 3);
  CHECK(add.src[0].repeat);
  CHECK(add.src[1].repeat);
  CHECK(add.src[1].reg == regid(5, 0));
}
