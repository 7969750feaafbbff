// [pure] Program-level assembly: labels, directives, metadata and error reporting.
#include "ir3/assembler.h"

#include <adreno/error.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ir3/codec.h"
#include "ir3/disassembler.h"
#include "ir3/generation.h"
#include "ir3/text.h"

using namespace adreno::ir3;

namespace {
// The line:column prefix and text of an assembler error for `source`.
std::string error_of(const std::string& source) {
  try {
    assemble(source);
  } catch (const adreno::Error& e) {
    CHECK(e.code() == adreno::Errc::malformed);
    return e.detail();
  }
  FAIL("assembled without an error: " << source);
  return {};
}
}  // namespace

TEST_CASE("branch labels resolve to offsets relative to the branch", "[pure][ir3]") {
  const Program program = assemble(R"(
    top:
      nop
      br p0.x, #done     ; forward: 3 instructions ahead
      jump #top          // backward: 2 instructions behind
      nop
    done: end
  )");
  REQUIRE(program.words.size() == 5);
  // Mesa's vectors: `br p0.x, #3` and the same encoding shape with -2 as jump's target.
  CHECK(program.words[1] == encode(parse_instruction("br p0.x, #3")));
  CHECK(decode(program.words[2]).flow.target == -2);
  CHECK(decode(program.words[4]).opcode == Opcode::end);
}

TEST_CASE("computerator directives declare the launch facts", "[pure][ir3]") {
  // Syntax of Mesa's computerator headers (src/freedreno/ir3/ir3_parser.y: @localsize,
  // @buf SIZE (cN.c), @const(cN.c) a, b, c, d, @invocationid(rN.c), @wgid(rN.c), @numwg(cN.c)).
  const Program program = assemble(R"(
    @localsize 32, 2, 1
    @buf 128 (c2.x)
    @buf 8 1, 2, 3
    @const(c1.x) 1.0, 0x10, -1, 7
    @invocationid(r0.x)
    @wgid(r48.x)
    @numwg(c3.x)
    end
  )");
  const LaunchInfo& launch = program.launch;
  CHECK(launch.local_size == std::array<std::uint32_t, 3>{32, 2, 1});
  REQUIRE(launch.buffers.size() == 2);
  CHECK(launch.buffers[0].size_dwords == 128);
  CHECK(launch.buffers[0].address_const == regid(2, 0));
  CHECK(launch.buffers[1].initial == std::vector<std::uint32_t>{1, 2, 3});
  CHECK_FALSE(launch.buffers[1].address_const.has_value());
  REQUIRE(launch.constants.size() == 1);
  CHECK(launch.constants[0].regid == regid(1, 0));
  CHECK(launch.constants[0].values ==
        std::array<std::uint32_t, 4>{0x3f800000u, 0x10, 0xffffffffu, 7});
  CHECK(launch.local_id_regid == regid(0, 0));
  CHECK(launch.work_group_id_regid == regid(48, 0));
  CHECK(launch.num_work_groups_const == regid(3, 0));
}

TEST_CASE("directives left out mean the system values are not read", "[pure][ir3]") {
  const Program program = assemble("end\n");
  CHECK(program.launch.local_id_regid == adreno::kUnusedRegid);
  CHECK(program.launch.work_group_id_regid == adreno::kUnusedRegid);
  CHECK(program.launch.local_size == std::array<std::uint32_t, 3>{1, 1, 1});
}

TEST_CASE("metadata reports barriers, local memory and instruction groups", "[pure][ir3]") {
  std::string source = "(sy)bar.g\nstl.u32 l[r0.z], r1.x, 1\n";
  for (int i = 0; i < 15; ++i) source += "nop\n";
  source += "end\nnop\nnop\n";  // padding after end does not count
  const Program program = assemble(source);
  CHECK(program.info.has_barrier);
  CHECK(program.info.uses_local_memory);
  CHECK(program.info.instruction_count == 18);
  CHECK(program.info.instrlen == 2);  // 18 instructions need two 16-instruction groups
  CHECK(program.words.size() == 20);
}

TEST_CASE("half and full registers have separate footprints", "[pure][ir3]") {
  const Program program =
      assemble("add.f hr3.z, hr1.x, hr2.y\n(rpt3)add.u r5.x, (r)r1.x, r0.x\nend\n");
  CHECK(program.info.half_footprint_vec4() == 4);  // hr3.z
  CHECK(program.info.full_footprint_vec4() == 6);  // r5.x..r5.w
}

TEST_CASE("a merged register file counts two half registers per full register", "[pure][ir3]") {
  // ir3.c collect_reg_info(): with mergedregs a half regid counts as max_reg = regid >> 3.
  const Program program = assemble("add.f hr5.z, hr1.x, hr2.y\nend\n", RegisterFile::merged);
  CHECK(program.info.half_footprint_vec4() == 0);
  CHECK(program.info.full_footprint_vec4() == 3);  // hr5.z = regid 22, 22 >> 3 = 2
}

TEST_CASE("raw words pass through the assembler", "[pure][ir3]") {
  const Program program = assemble("raw 0xFFFFFFFFFFFFFFFF\nend\n");
  REQUIRE(program.words.size() == 2);
  CHECK(program.words[0] == 0xffffffffffffffffull);
  CHECK(program.info.instruction_count == 2);  // the raw word still occupies a slot
  CHECK(disassemble(program.words, ListingStyle::plain) == "raw 0xFFFFFFFFFFFFFFFF\nend\n");
}

TEST_CASE("assembly errors name the line, the column and the token", "[pure][ir3]") {
  CHECK(error_of("nop\n  frobnicate r0.x\n") == "2:3: unknown instruction 'frobnicate'");
  CHECK(error_of("add.f r0.x, r1.x, q7\n") == "1:19: unrecognised operand 'q7'");
  CHECK(error_of("cmps.f.zz p0.x, r0.x, r1.x\n") == "1:8: unknown condition 'zz'");
  CHECK(error_of("br p0.x, #nowhere\n") == "1:10: unknown label '#nowhere'");
  CHECK(error_of("mov.u32u32 r0.x\n") == "1:1: expected 2 operands (got 1) for 'mov.u32u32'");
  CHECK(error_of("@localsize 1, 2\n") == "1:16: expected ',' at ''");
  CHECK(error_of("@frob 3\n") == "1:1: unknown directive '@frob'");
  CHECK(error_of("x: nop\nx: end\n") == "2:1: label 'x' defined twice");
}

// Found by fuzz/ir3_assembler: a lone '<' in an ldg.a/stg.a index stepped past the end of the
// operand, and std::string_view::substr threw std::out_of_range instead of an assembly error.
TEST_CASE("a scaled address with a lone '<' is a malformed address, not an escaped exception", "[pure][ir3]") {
  CHECK(error_of("ldg.a.u32 r2.y, g[r2.z+(r0.y<)], 1\n") == "1:19: malformed address 'r2.z+(r0.y<)'");
  CHECK(error_of("ldg.a.u32 r2.y, g[r2.z+(r0.y<2)], 1\n") == "1:19: malformed address 'r2.z+(r0.y<2)'");
}

TEST_CASE("values that do not fit their field are rejected with the field named", "[pure][ir3]") {
  // ldg's immediate offset is 13 bits signed (ir3-cat6.xml, ldg OFF bits 1..13).
  CHECK(error_of("ldg.u32 r0.x, g[r0.y+5000], 1\n") ==
        "1:1: offset = 5000 does not fit bits 1..13 in 'ldg.u32 r0.x, g[r0.y+5000], 1'");
}

TEST_CASE("flags and operands the encoding cannot hold are refused, naming the token", "[pure][ir3]") {
  // The issue's two examples: cat6 has no (ss) bit, and a u8_32 source is a half register.
  CHECK(error_of("(ss)stl.u32 l[r0.x], r1.x, 1\n") ==
        "1:1: (ss) cannot be encoded on a cat6 instruction in '(ss)stl.u32 l[r0.x], r1.x, 1'");
  CHECK(error_of("mov.u8_32u32 r0.x, r0.y\n") == "1:20: a u8_32 operand is a half (hrN.c) register, not 'r0.y'");
  CHECK(error_of("mov.u32u16 r0.x, r0.y\n") == "1:12: a u16 operand is a half (hrN.c) register, not 'r0.x'");
  CHECK(error_of("mov.u16u32 r0.x, r0.y\n") == "1:18: a u16 operand is a half (hrN.c) register, not 'r0.y'");
  // Each flag only where its category has a bit for it (Mesa ir3-cat*.xml).
  CHECK(error_of("(ss)isam (f32)(x)r0.x, r0.x, s#0, t#0\n").starts_with("1:1: (ss) cannot be encoded on a cat5 instruction"));
  CHECK(error_of("(nop2)mov.u32u32 r0.x, r0.y\n").starts_with("1:1: (nop) cannot be encoded on a cat1 instruction"));
  CHECK(error_of("(rpt1)stg.u32 g[r0.x], r1.x, 1\n").starts_with("1:1: (rpt) cannot be encoded on a cat6 instruction"));
  CHECK_NOTHROW(assemble("(sat)rcp r0.x, r0.y\n"));
  CHECK_NOTHROW(assemble("(nop3)add.f r0.x, r0.y, r0.z\n"));
  CHECK_NOTHROW(assemble("(ss)(rpt5)nop\n"));
  CHECK_NOTHROW(assemble("(ss)bar\n"));
  CHECK_NOTHROW(assemble("mov.u8_32u32 r0.x, hr0.y\n"));
}

namespace {
// The assembler error for `source` assembled as `gen`.
std::string error_on(Generation gen, const std::string& source) {
  try {
    assemble(source, RegisterFile::split, Scheduling::as_written, gen);
  } catch (const adreno::Error& e) {
    CHECK(e.code() == adreno::Errc::malformed);
    return e.detail();
  }
  FAIL("assembled without an error on " << generation_name(gen) << ": " << source);
  return {};
}
}  // namespace

TEST_CASE("an instruction of the other generation only is refused, naming it", "[pure][ir3]") {
  // a7xx-only (Mesa ir3-cat*.xml <gen min="700"/>): refused on a6xx, accepted on a7xx.
  const std::vector<std::pair<std::string, std::string>> a7xx_only = {
      {"ccinv\n", "1:1: an a7xx instruction, not a6xx: 'ccinv'"},
      {"(sy)(ss)(jp)lock\n", "1:13: an a7xx instruction, not a6xx: 'lock'"},
      {"unlock\n", "1:1: an a7xx instruction, not a6xx: 'unlock'"},
      {"stsc.f32 c[0], 16, 8\n", "1:1: an a7xx instruction, not a6xx: 'stsc'"},
      {"add.f.mul2.lt r3.x, (neg)r1.w, c20.w\n", "1:1: an a7xx instruction, not a6xx: 'add.f.mul2'"},
      {"(nop3) mad.f32.mul2 r3.z, (neg)r0.z, r3.y, (last)r3.z\n", "1:8: an a7xx instruction, not a6xx: 'mad.f32.mul2'"},
      {"alias.tex.b32.1 r40.x, (0x6)\n", "1:1: an a7xx instruction, not a6xx: 'alias'"},
      {"ray_intersection r7.z, [r3.w], r15.x, r1.w, r18.z\n", "1:1: an a7xx instruction, not a6xx: 'ray_intersection'"},
  };
  for (const auto& [source, message] : a7xx_only) {
    INFO(source);
    CHECK(error_on(Generation::a6xx, source) == message);
    CHECK_NOTHROW(assemble(source, RegisterFile::split, Scheduling::as_written, Generation::a7xx));
  }
}

// Kills: "index<<N+OFF<<2" without parentheses took N as the field, so computerator's
// stg_ldg_offset.asm ("g[r1.x+r0.y<<4+2<<2]") was refused as a shift of 4 not fitting 2 bits.
TEST_CASE("an a6xx scaled address in Mesa's older unparenthesized syntax assembles to Mesa's word", "[pure][ir3]") {
  // Mesa's disasm test vectors (src/freedreno/ir3/tests/disasm.c, "Customely crafted"), written
  // in the syntax ir3_parser.y's cat6_a6xx_global_address_pt3 reads as field N - 2.
  CHECK(assemble("stg.a.u32 g[r2.x+r1.x<<4+3<<2], r5.x, 1\n").words[0] == 0xc0d61104'01802628ull);
  CHECK(assemble("ldg.a.f32 r1.w, g[r1.y+r1.w<<5+2<<2], 3\n").words[0] == 0xc0020007'03c1740full);
  // The disassembler's parenthesized form of the same words.
  CHECK(assemble("stg.a.u32 g[r2.x+(((r1.x<<2)+3)<<2)], r5.x, 1\n").words[0] == 0xc0d61104'01802628ull);
  CHECK(error_of("stg.a.u32 g[r2.x+r1.x<<4+3<<3], r5.x, 1\n").find("malformed address") != std::string::npos);
}

// Kills: "nop(sy)" was an unknown instruction; Mesa's lexer skips line ends, so flags after an
// instruction are the next one's (computerator's stg_ldg_offset.asm writes "nop(sy)").
TEST_CASE("flags written after an instruction go on the next one, as Mesa's parser reads them", "[pure][ir3]") {
  CHECK(assemble("nop(sy)\nadd.u r1.x, r1.x, 1\nend\n").words == assemble("nop\n(sy)add.u r1.x, r1.x, 1\nend\n").words);
  CHECK(assemble("nop (ss)(sy)\n(sy)\nlabel:\nadd.u r1.x, r1.x, 1\nend\n").words ==
        assemble("nop\nlabel:\n(ss)(sy)(sy)add.u r1.x, r1.x, 1\nend\n").words);
  CHECK(error_of("end\nnop(sy)\n").find("flags '(sy)' at the end, with no instruction after them") != std::string::npos);
  CHECK(error_of("nop(sy)\n(sy)frob r0.x\n").find("2:5:") == 0);  // columns stay the line's own
}

TEST_CASE("a form whose encoding differs by generation is refused in the other generation's syntax", "[pure][ir3]") {
  // ldg.a/stg.a: a6xx scales a shifted index (ir3-cat6.xml gen 600..699), a7xx adds base, index and
  // an 8-bit offset (gen 700-); Mesa's a7xx parser refuses the shift syntax too ("unexpected '<'").
  CHECK(error_on(Generation::a7xx, "ldg.a.u32 r1.z, g[r1.z+(r2.w<<2)], 1\n") ==
        "1:19: an a7xx ldg.a/stg.a address is base+index+offset, without a shift: 'r1.z+(r2.w<<2)'");
  CHECK(error_on(Generation::a7xx, "stg.a.u32 g[r1.x+r0.y<<4+2<<2], r2.x, 1\n") ==
        "1:13: an a7xx ldg.a/stg.a address is base+index+offset, without a shift: 'r1.x+r0.y<<4+2<<2'");
  // An a6xx base is a register (c0.z is not one); the a6xx text base+index+N is the a6xx form,
  // whose offset is in units of the type, another word than the a7xx one.
  CHECK(error_on(Generation::a6xx, "stg.a.f32 g[c0.z+r1.w+4], r0.w, 4\n") == "1:13: expected a register, got 'c0.z'");
  const Program a6 = assemble("ldg.a.f32 r4.y, g[r0.z+r4.y+2], 4\n");
  CHECK(a6.words[0] != 0xc0020411'04c08023ull);
  CHECK(disassemble_word(a6.words[0]) == "ldg.a.f32 r4.y, g[r0.z+((r4.y+2)<<2)], 4");
  // cat5 with a1.x: the instruction names the sampler on a6xx and the texture on a7xx.
  CHECK(error_on(Generation::a6xx, "isam.base0 (f32)(xyzw)r0.z, r0.x, t#16, a1.x\n") ==
        "1:35: with a1.x the texture index comes from a1.x on a6xx, not 't#16'");
  CHECK(error_on(Generation::a7xx, "isaml.base3 (s32)(x)r1.w, r0.w, r1.y, s#0, a1.x\n") ==
        "1:39: with a1.x the sampler index comes from a1.x on a7xx, not 's#0'");
  // The same words, each in its own generation's syntax, are Mesa's vectors (disasm.c).
  CHECK(assemble("ldg.a.u32 r1.z, g[r1.z+(r2.w<<2)], 1\n").words[0] == 0xc0060006'01c18017ull);
  CHECK(assemble("ldg.a.f32 r4.y, g[r0.z+r4.y+2], 4\n", RegisterFile::split, Scheduling::as_written, Generation::a7xx)
            .words[0] == 0xc0020411'04c08023ull);
}

TEST_CASE("a word is read as the generation it is given, and an a7xx-only word is raw on a6xx", "[pure][ir3]") {
  CHECK(disassemble_word(0xe2d20000'00000000ull, Generation::a7xx) == "ccinv");
  CHECK(disassemble_word(0xe2d20000'00000000ull, Generation::a6xx) == "raw 0xE2D2000000000000");
  try {
    decode(0xe3c20000'00000000ull, Generation::a6xx);
    FAIL("decoded lock on a6xx");
  } catch (const adreno::Error& e) {
    CHECK(e.detail() == "word 0xe3c2000000000000 matches no a6xx instruction");
  }
  // The ldg.a word of each generation means something else on the other (ir3-disasm -g agrees).
  CHECK(disassemble_word(0xc0020411'04c08023ull, Generation::a6xx) == "ldg.a.f32 r4.y, g[r0.z+(r4.y<<2)], 4");
  CHECK(disassemble_word(0xc0020011'04c08023ull, Generation::a7xx) == "ldg.a.f32 r4.y, g[r0.z+r4.y+0], 4");
}

TEST_CASE("encoding a form on the wrong generation names the form", "[pure][ir3]") {
  const Instruction ldg_a = parse_instruction("ldg.a.u32 r1.z, g[r1.z+(r2.w<<2)], 1");
  try {
    encode(ldg_a, Generation::a7xx);
    FAIL("encoded an a6xx ldg.a for a7xx");
  } catch (const adreno::Error& e) {
    CHECK(e.code() == adreno::Errc::invalid_argument);
    CHECK(e.detail() == "ldg.a is an a6xx form, not a7xx");
  }
}

TEST_CASE("generations are named as the tools and Mesa name them", "[pure][ir3]") {
  CHECK(parse_generation("a6xx") == Generation::a6xx);
  CHECK(parse_generation("a7xx") == Generation::a7xx);
  CHECK(parse_generation("a630") == Generation::a6xx);
  CHECK(parse_generation("FD740") == Generation::a7xx);
  CHECK(parse_generation("750") == Generation::a7xx);
  CHECK_FALSE(parse_generation("a840").has_value());
  CHECK_FALSE(parse_generation("a7").has_value());
  CHECK(generation_of_gpu_id(730) == Generation::a7xx);
  CHECK_FALSE(generation_of_gpu_id(540).has_value());
  try {
    generation_named("a5xx", "--gen");
    FAIL("accepted a5xx");
  } catch (const adreno::Error& e) {
    CHECK(e.code() == adreno::Errc::invalid_argument);
    CHECK(std::string(e.what()).find("'a5xx' is not a6xx, a7xx") != std::string::npos);
  }
}
