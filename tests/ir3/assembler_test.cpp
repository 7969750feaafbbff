// [pure] Program-level assembly: labels, directives, metadata and error reporting.
#include "ir3/assembler.h"

#include <adreno/error.hpp>
#include <catch2/catch.hpp>
#include <string>

#include "ir3/codec.h"
#include "ir3/disassembler.h"
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
