// [pure] The ISA table, for a6xx and a7xx, against Mesa's own disassembler vectors (see
// mesa_vectors.h).
#include "ir3/codec.h"

#include <adreno/error.hpp>
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

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

TEST_CASE("no flag or operand modifier is lost: every combination reads back as written or is refused naming it", "[pure][ir3]") {
  // One instruction of each shape, every leading flag (and pairs of them), every source modifier
  // on each source: assembled, the word must disassemble to the instruction parsed and its text
  // must assemble to the same word again; otherwise assembly fails naming a token of the text.
  const std::vector<std::string> shapes = {
      "nop", "end", "br p0.x, #3", "jump #2", "getone #2", "kill p0.x",
      "mov.u32u32 r0.x, r0.y", "mov.f32f32 r0.x, c1.x", "cov.u32f32 r0.x, r0.y", "mov.u32u32 r0.x, r<a0.x + 4>",
      "add.f r0.x, r0.y, r0.z", "add.u r0.x, r0.y, 1", "absneg.f r0.x, r0.y", "cmps.u.lt p0.x, r0.x, r0.y",
      "add.f hr0.x, hr0.y, hr0.z", "add.u hr0.x, hr0.y, 1", "mad.f32 r0.x, r0.y, r0.z, r0.w", "mad.f16 hr0.x, hr0.y, hr0.z, hr0.w",
      "sel.b32 r0.x, r0.y, r0.z, r0.w",
      "shrm r0.x, r0.y, r0.z, r0.w", "rcp r0.x, r0.y", "sin hr0.x, hr0.y",
      "ldg.u32 r0.x, g[r1.x], 1", "stg.u32 g[r1.x], r0.x, 1", "ldl.u32 r0.x, l[r1.x], 1", "stl.u32 l[r1.x], r0.x, 1",
      "ldg.a.u32 r2.x, g[r1.z+(r0.y<<2)], 1", "bar", "fence.r.w",
      "isam (f32)(x)r0.x, r0.y, s#0, t#0"};
  const std::vector<std::string> single = {"(sy)", "(ss)", "(jp)", "(ul)", "(sat)", "(eq)", "(eolm)", "(eogm)",
                                           "(rpt1)", "(rpt3)", "(nop1)", "(nop2)", "(nop3)"};
  std::vector<std::string> flags = {""};
  for (std::size_t i = 0; i < single.size(); ++i) {
    flags.push_back(single[i]);
    for (std::size_t j = i + 1; j < single.size(); ++j) flags.push_back(single[i] + single[j]);
  }
  const std::vector<std::string> modifiers = {"(r)", "(neg)", "(abs)", "(neg)(r)", "(abs)(r)", "(last)"};
  const std::vector<std::string> tokens = {"(sy)", "(ss)", "(jp)", "(ul)", "(sat)", "(eq)", "(eolm)", "(eogm)", "(rpt",
                                           "(nop", "(r)", "(neg)", "(abs)", "(last)"};
  std::size_t kept = 0, refused = 0;
  for (const std::string& shape : shapes) {
    // The shape as is, and with each modifier on each source (the operands after the first comma).
    std::vector<std::string> variants = {shape};
    std::size_t at = shape.find(", ");
    while (at != std::string::npos) {
      for (const std::string& m : modifiers) variants.push_back(std::string(shape).insert(at + 2, m));
      at = shape.find(", ", at + 2);
    }
    for (const std::string& variant : variants) {
      for (const std::string& flag : flags) {
        const std::string text = flag + variant;
        INFO(text);
        try {
          const Instruction parsed = parse_instruction(text);
          const std::uint64_t word = encode(parsed);
          Instruction back = decode(word);
          // A plain immediate in a half instruction reads back as h(N), the same word.
          for (std::size_t i = 0; i < back.src.size(); ++i)
            if (back.src[i].kind == OperandKind::immediate) back.src[i].half = parsed.src[i].half;
          CHECK(back == parsed);
          CHECK(encode(parse_instruction(to_text(back))) == word);
          ++kept;
        } catch (const adreno::Error& e) {
          INFO(e.what());
          const bool names_one = std::any_of(tokens.begin(), tokens.end(), [&](const std::string& token) {
            return text.find(token) != std::string::npos && std::string(e.what()).find(token) != std::string::npos;
          });
          const bool says_where = std::string(e.what()).find('\'') != std::string::npos;  // a quoted token
          CHECK((names_one || says_where));
          ++refused;
        }
      }
    }
  }
  CHECK(kept > 1000);
  CHECK(refused > 1000);
}

TEST_CASE("(r) without (rptN) on a cat2/cat3 source is refused: its bit is a (nopN) bit", "[pure][ir3]") {
  // Mesa's encoder (isa/encode.c extract_SRC1_R) writes the (r) bit, which reads back as (nop1);
  // with (nopN) it drops the (r). Here both are refused, saying why.
  for (const char* text : {"add.f r0.x, (r)r0.y, r0.z", "(nop1)add.f r0.x, (r)r0.y, r0.z", "add.f r0.x, r0.y, (r)r0.z",
                           "mad.f32 r0.x, (r)r0.y, r0.z, r0.w", "(nop2)mad.f32 r0.x, r0.y, r0.z, (r)r0.w"}) {
    INFO(text);
    try {
      encode(parse_instruction(text));
      FAIL("encoded");
    } catch (const adreno::Error& e) {
      CHECK(e.code() == adreno::Errc::invalid_argument);
      CHECK_THAT(e.what(), Catch::Contains("(r) on source"));
      CHECK_THAT(e.what(), Catch::Contains("(nopN)"));
    }
  }
  // With (rptN) it is what it says; on src3 without (nopN) the bit is its own.
  for (const char* text : {"(rpt2)add.f r0.x, (r)r0.y, r0.z", "mad.f32 r0.x, r0.y, r0.z, (r)r0.w", "(nop3) add.f r0.x, r0.y, r0.z"}) {
    INFO(text);
    CHECK(to_text(decode(encode(parse_instruction(text)))) == text);
  }
}
