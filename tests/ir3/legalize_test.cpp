// [pure] The legalizer and the static checker against Mesa's own schedules: the a630 fixtures
// (Mesa 25.2.0 ir3 output) are hazard-free and come back word for word with the pass on; with
// every wait stripped the checker finds hazards, and the legalizer puts back Mesa's schedule word
// for word; branch targets follow inserted nops, slots only a loop's entry needs go before its
// label, every wait it places is needed, and legal code stays as it is. The rules one at a time:
// the barrier's (ss)(sy), a shared-register load's (ss) and (sy), relative writes, swz/sct/gat.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ir3/assembler.h"
#include "ir3/codec.h"
#include "ir3/legalize.h"
#include "ir3/text.h"
#include "mutants.h"

using namespace adreno::ir3;

namespace {

const std::string kFixtureDir = ADRENO_IR3_FIXTURES_DIR;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The listing's instruction texts ("  12[hi_lo] text"), one per line, as assembler source.
std::string listing_source(const std::string& name) {
  std::string source;
  static const std::regex line(R"(^\s*\d+\[[0-9a-f_]+\]\s(.*)$)");
  std::istringstream in(read_text(kFixtureDir + name + ".disasm.txt"));
  for (std::string text; std::getline(in, text);) {
    std::smatch m;
    if (std::regex_match(text, m, line)) source += m[1].str() + "\n";
  }
  return source;
}

// The source with every (sy), (ss), (nopN) and nop line removed.
std::string without_waits(const std::string& source) {
  std::string out;
  std::istringstream in(source);
  static const std::regex flags(R"(\((sy|ss|nop\d)\)\s*)");
  static const std::regex nop_line(R"(^\s*(\([a-z0-9]+\))*nop\s*(;.*)?$)");
  for (std::string text; std::getline(in, text);) {
    if (std::regex_match(text, nop_line)) continue;
    out += std::regex_replace(text, flags, "") + "\n";
  }
  return out;
}

std::vector<Instruction> decoded(const std::vector<std::uint64_t>& words) {
  std::vector<Instruction> code;
  for (std::uint64_t w : words) code.push_back(decode(w));
  return code;
}

std::vector<Hazard> hazards(const std::string& source, RegisterFile file = RegisterFile::split) {
  return check(decoded(assemble(source, file).words), file);
}

std::string example(const std::string& name) {
  return read_text(std::string(ADRENO_SOURCE_DIR) + "/examples/kernels/" + name + ".s");
}

RegisterFile file_of(const std::string& name) {
  std::ifstream in(kFixtureDir + name + ".json");
  return nlohmann::json::parse(in)["registers"]["mergedregs"].get<bool>() ? RegisterFile::merged : RegisterFile::split;
}

}  // namespace

TEST_CASE("the Mesa fixtures are hazard-free and reassemble to the same words with the legalizer on", "[pure][ir3][hazards]") {
  for (const char* name : {"vector32", "vector128", "scalar", "multigroup"}) {
    INFO(name);
    const std::string source = listing_source(name);
    const RegisterFile file = file_of(name);
    const Program as_written = assemble(source, file);
    CHECK(check(decoded(as_written.words), file).empty());
    const Program legalized = assemble(source, file, Scheduling::legalize);
    CHECK(legalized.words == as_written.words);
    CHECK(legalize_source(source, file) == source);
  }
}

TEST_CASE("stripped of every wait, the fixtures have hazards and the legalizer puts back Mesa's schedule word for word", "[pure][ir3][hazards]") {
  for (const char* name : {"vector32", "vector128", "scalar", "multigroup"}) {
    INFO(name);
    const RegisterFile file = file_of(name);
    const Program mesa = assemble(listing_source(name), file);
    const std::string bare = without_waits(listing_source(name));
    CHECK_FALSE(check(decoded(assemble(bare, file).words), file).empty());
    const Program legalized = assemble(bare, file, Scheduling::legalize);
    CHECK(check(decoded(legalized.words), file).empty());
    // Mesa's numbers through the last `end`: cycles spent waiting and sync flags.
    CHECK(legalized.info.nop_count <= mesa.info.nop_count);
    CHECK(legalized.info.ss_count + legalized.info.sy_count <= mesa.info.ss_count + mesa.info.sy_count);
    // Each wait where Mesa's ir3_legalize.c put it: the listing through its `end`.
    std::vector<std::uint64_t> through_end = mesa.words;
    through_end.resize(ir3_mutants::decode_through_end(mesa.words).size());
    CHECK(legalized.words == through_end);
    // The legalized source says the same thing as the legalized words.
    CHECK(assemble(legalize_source(bare, file), file).words == legalized.words);
  }
}

TEST_CASE("nops the legalizer inserts move every branch target with the instruction it precedes", "[pure][ir3][hazards]") {
  const std::string loop = R"(
    mov.u32u32 r1.x, 0
    mov.u32u32 r1.y, 1
  top:
    add.u r1.y, r1.y, r1.y
    add.u r1.x, r1.x, 1
    cmps.u.lt p0.x, r1.x, 10
    br p0.x, #top
    jump #out
    mov.u32u32 r1.y, 0
  out:
    stg.u32 g[r2.x], r1.y, 1
    end
  )";
  const Program bare = assemble(loop);
  CHECK(check(decoded(bare.words)).size() >= 3);
  const Program legalized = assemble(loop, RegisterFile::split, Scheduling::legalize);
  const std::vector<Instruction> code = decoded(legalized.words);
  CHECK(check(code).empty());
  // Follow the branches: `br` lands on the loop's first add (or the nop placed before it), the
  // jump on the store (or its nops), never on the skipped mov.
  std::size_t branches = 0;
  for (std::size_t pc = 0; pc < code.size(); ++pc) {
    if (code[pc].opcode != Opcode::br && code[pc].opcode != Opcode::jump) continue;
    ++branches;
    std::size_t target = pc + static_cast<std::size_t>(code[pc].flow.target);
    while (code[target].opcode == Opcode::nop) ++target;
    if (code[pc].opcode == Opcode::br) {
      CHECK(code[target].opcode == Opcode::add_u);
      CHECK(code[target].dst.reg == regid(1, 1));
    } else {
      CHECK(code[target].opcode == Opcode::stg);
    }
  }
  CHECK(branches == 2);
}

TEST_CASE("the checker finds a hazard that only the loop's back edge reaches", "[pure][ir3][hazards]") {
  const std::string loop = R"(
    mov.u32u32 r1.x, 0
    mov.u32u32 r1.y, 0
    mov.u32u32 r2.x, 0
    (rpt2)nop
  top:
    add.u r1.y, r1.y, r1.x
    (nop3) add.u r2.x, r2.x, 1
    (nop3) cmps.u.lt p0.x, r2.x, 4
    (rpt1)nop
    add.u r1.x, r1.x, 1
    br p0.x, #top
    end
  )";
  const std::vector<Hazard> hazards = check(decoded(assemble(loop).words));
  REQUIRE(hazards.size() == 1);
  CHECK(hazards[0].pc == 4);           // add.u r1.y, r1.y, r1.x at the loop's head
  CHECK(hazards[0].producer_pc == 8);  // add.u r1.x at the loop's end: br is no delay slot
  CHECK(hazards[0].regid == regid(1, 0));
  CHECK(hazards[0].missing_slots == 3);
}

TEST_CASE("after every cat7 instruction the next one waits (ss)(sy), which a nop between them may carry", "[pure][ir3][hazards]") {
  // Mesa ir3_legalize.c sync_update: is_barrier (every cat7 but alias) sets force_ss/force_sy.
  for (const char* barrier : {"bar", "fence.g.l.r.w", "sleep.l", "icinv", "dccln.all", "dcinv.all", "dcflu.all"}) {
    INFO(barrier);
    const std::string before = std::string("stl.u32 l[r0.x], r1.x, 1\n") + barrier + "\n";
    const std::string after = "ldl.u32 r2.x, l[r0.x], 1\n(ss)nop\n(sy)stg.u32 g[r4.x], r2.x, 1\nend\n";
    const std::vector<Hazard> missing = hazards(before + after);
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].kind == Hazard::Kind::barrier);
    CHECK(missing[0].pc == 2);
    CHECK(missing[0].producer_pc == 1);
    CHECK(missing[0].fix == Wait::ss_sy);
    CHECK(hazards(before + "(ss)(sy)nop\n" + after).empty());
    CHECK(hazards(before + "(ss)nop\n(sy)" + after).empty());
    CHECK(hazards(before + "(ss)(sy)(rpt2)nop\nnop\n" + after).empty());
    // A nop without the waits is no substitute; a wait on it counts.
    REQUIRE(hazards(before + "nop\n" + after).size() == 1);
    CHECK(hazards(before + "nop\n" + after)[0].pc == 3);
    REQUIRE(hazards(before + "(ss)nop\n" + after).size() == 1);
    CHECK(hazards(before + "(ss)nop\n" + after)[0].fix == Wait::sy);
    // What the legalizer makes of it is what Mesa's legalize_block does: (ss) on a nop before a
    // cat6 instruction (no (ss) bit), (sy) on the instruction itself.
    CHECK(assemble(before + after, RegisterFile::split, Scheduling::legalize).words ==
          assemble(before + "(ss)nop\n(sy)" + after).words);
    // Any instruction after it, a branch or an ALU one alike; on one path or another.
    CHECK(hazards(std::string(barrier) + "\nadd.u r1.x, r1.x, 1\nend\n").size() == 1);
    CHECK(hazards(std::string(barrier) + "\n(ss)(sy)add.u r1.x, r1.x, 1\nend\n").empty());
    CHECK(hazards(std::string("top:\n") + barrier + "\njump #top\nend\n").size() == 1);
    const std::string join = std::string("(rpt5)nop\nbr p0.x, #skip\n") + barrier + "\nskip:\n(jp)add.u r1.x, r1.x, 1\nend\n";
    REQUIRE(hazards(join).size() == 1);
    CHECK(hazards(join)[0].pc == 3);
  }
  // Two in a row: the second waits for the first.
  CHECK(hazards("bar\nbar\n(ss)(sy)nop\nend\n").size() == 1);
  CHECK(hazards("bar\n(ss)(sy)nop\nbar\n(ss)(sy)end\n").empty());
}

TEST_CASE("a load into a shared register needs (ss) as well as (sy), and its sources stay in use until (ss)", "[pure][ir3][hazards]") {
  // Mesa ir3_legalize.c sync_update: a shared destination goes to needs_ss, a load to needs_sy;
  // ir3.h is_ss_producer makes its sources write-after-read hazards until (ss).
  const std::string load = "ldc.offset0.1.imm r48.y, r0.x, 0\n";
  const std::vector<Hazard> sy_only = hazards(load + "(sy)add.u r1.x, r48.y, 1\nend\n");
  REQUIRE(sy_only.size() == 1);
  CHECK(sy_only[0].kind == Hazard::Kind::not_ready);
  CHECK(sy_only[0].regid == regid(48, 1));
  CHECK(sy_only[0].fix == Wait::ss);
  CHECK(hazards(load + "add.u r1.x, r48.y, 1\nend\n")[0].fix == Wait::ss_sy);
  CHECK(hazards(load + "(ss)(sy)add.u r1.x, r48.y, 1\nend\n").empty());
  CHECK(hazards(load + "(ss)(sy)mov.u32u32 r48.y, 1\nend\n").empty());
  REQUIRE(hazards(load + "(sy)mov.u32u32 r48.y, 1\nend\n").size() == 1);
  CHECK(hazards(load + "(sy)mov.u32u32 r48.y, 1\nend\n")[0].kind == Hazard::Kind::overwrite_pending);
  // Its offset register: (sy) releases the source of a load into r1.y, only (ss) that of one into r48.y.
  CHECK(hazards("ldc.offset0.1.imm r1.y, r0.x, 0\n(sy)mov.u32u32 r0.x, 1\nend\n").empty());
  const std::vector<Hazard> source = hazards(load + "(sy)mov.u32u32 r0.x, 1\nend\n");
  REQUIRE(source.size() == 1);
  CHECK(source[0].kind == Hazard::Kind::overwrite_in_flight);
  CHECK(source[0].in_flight == InFlightRead::until_ss);
  CHECK(hazards(load + "(ss)(sy)mov.u32u32 r0.x, 1\nend\n").empty());
  // A local load into a shared register needs (ss), as before; an SFU result too.
  CHECK(hazards("ldl.u32 r48.x, l[r0.x], 1\n(ss)add.u r1.x, r48.x, 1\nend\n").empty());
}

TEST_CASE("the checker takes a relative operand for any register, written in its last cycle, and calls what follows possible hazards", "[pure][ir3][hazards]") {
  // Mesa ir3_legalize.c delay_update: a relative destination writes its whole array in the last
  // cycle of a (rptN); the checker knows no array and takes every register of the size.
  const std::string address = "mova a0.x, 2\n(rpt5)nop\n";
  const std::vector<Hazard> next = hazards(address + "mov.u32u32 r<a0.x + 4>, r1.x\nadd.u r9.y, r20.z, 1\n(rpt5)nop\nend\n");
  REQUIRE(next.size() == 1);
  CHECK(next[0].possible);
  CHECK_FALSE(next[0].relative);
  CHECK(next[0].regid == regid(20, 2));
  CHECK(next[0].missing_slots == 3);
  CHECK(hazards(address + "mov.u32u32 r<a0.x + 4>, r1.x\n(rpt2)nop\nadd.u r9.y, r20.z, 1\nend\n").empty());
  // (rpt2): every register counts as written two cycles later than the first sub-write.
  const std::string repeated = address + "(rpt2)mov.u32u32 r<a0.x + 4>, (r)r1.x\n";
  REQUIRE(hazards(repeated + "add.u r9.y, r20.z, 1\nend\n").size() == 1);
  CHECK(hazards(repeated + "add.u r9.y, r20.z, 1\nend\n")[0].missing_slots == 3);
  CHECK(hazards(repeated + "(rpt2)nop\nadd.u r9.y, r20.z, 1\nend\n").empty());
  // A direct (rpt2) write of r1.x first: its first register is ready two cycles sooner.
  CHECK(hazards("(rpt2)mov.u32u32 r1.x, (r)r5.x\nnop\nadd.u r9.y, r1.x, 1\nend\n").empty());
  // Over a load still in flight: a possible overwrite; once waited for, none.
  const std::vector<Hazard> pending = hazards("ldg.u32 r7.x, g[r2.x], 1\n" + address + "mov.u32u32 r<a0.x + 4>, r1.x\nend\n");
  // r7.x the load may still land in; r2.xy, its address, it may still be reading.
  REQUIRE(pending.size() == 3);
  for (const Hazard& h : pending) CHECK((h.possible && h.relative));
  CHECK(pending[0].kind == Hazard::Kind::overwrite_in_flight);
  CHECK(pending[0].regid == regid(2, 0));
  CHECK(pending[1].regid == regid(2, 1));
  CHECK(pending[2].kind == Hazard::Kind::overwrite_pending);
  CHECK(pending[2].regid == regid(7, 0));
  CHECK(hazards("ldg.u32 r7.x, g[r2.x], 1\n" + address + "(sy)mov.u32u32 r<a0.x + 4>, r1.x\nend\n").empty());
  // A relative read of a register an ALU wrote just before: possible too.
  const std::vector<Hazard> read = hazards(address + "mov.u32u32 r30.x, 1\nmov.u32u32 r1.x, r<a0.x + 4>\nend\n");
  REQUIRE(read.size() == 1);
  CHECK(read[0].possible);
  CHECK(read[0].relative);
  CHECK(read[0].regid == regid(30, 0));
  // The legalizer makes each of these safe whatever a0.x holds.
  for (const std::string& source : {address + "mov.u32u32 r<a0.x + 4>, r1.x\nadd.u r9.y, r20.z, 1\n(rpt5)nop\nend\n",
                                    "ldg.u32 r7.x, g[r2.x], 1\n" + address + "mov.u32u32 r<a0.x + 4>, r1.x\nend\n"}) {
    CHECK(check(decoded(assemble(source, RegisterFile::split, Scheduling::legalize).words)).empty());
  }
}

TEST_CASE("swz and sct write their later destinations a cycle apart and gat writes four registers", "[pure][ir3][hazards]") {
  // Mesa ir3_legalize.c delay_update: sct/swz destination n is written in cycle n; ir3_delay.c
  // ir3_src_read_delay: gat/swz read source n in cycle n.
  const std::vector<Hazard> swz = hazards("swz.u32u32 r1.x, r2.x, r3.x, r4.x\nadd.u r5.x, r2.x, 1\nadd.u r5.y, r1.x, 1\n(rpt5)nop\nend\n");
  REQUIRE(swz.size() == 2);
  CHECK(swz[0].regid == regid(2, 0));
  CHECK(swz[0].missing_slots == 4);  // r2.x is written a cycle after r1.x
  CHECK(swz[1].regid == regid(1, 0));
  CHECK(swz[1].missing_slots == 2);
  // Its second destination is a write: overwriting a pending load result.
  const std::vector<Hazard> over = hazards("ldg.u32 r2.x, g[r8.x], 1\nswz.u32u32 r1.x, r2.x, r3.x, r4.x\nend\n");
  REQUIRE(over.size() == 1);
  CHECK(over[0].kind == Hazard::Kind::overwrite_pending);
  // sct's fourth destination arrives three cycles after its first.
  const std::vector<Hazard> sct = hazards("sct.u32u32 r1.x, r2.x, r3.x, r4.x, r5.x\n(rpt2)nop\nadd.u r6.x, r4.x, r1.x\n(rpt5)nop\nend\n");
  REQUIRE(sct.size() == 1);
  CHECK(sct[0].regid == regid(4, 0));
  CHECK(sct[0].missing_slots == 3);
  // sct reads a vector source: four registers.
  CHECK(hazards("mov.u32u32 r5.w, 1\nsct.u32u32 r1.x, r2.x, r3.x, r4.x, r5.x\nend\n").size() == 1);
  // gat writes r6.x..r6.w; it reads source n in cycle n.
  const std::vector<Hazard> gat = hazards("gat.u32u32 r6.x, r3.x, r3.y, r3.z, r3.w\nadd.u r5.z, r6.w, 1\n(rpt5)nop\nend\n");
  REQUIRE(gat.size() == 1);
  CHECK(gat[0].regid == regid(6, 3));
  CHECK(hazards("mov.u32u32 r3.w, 1\nnop\ngat.u32u32 r6.x, r3.x, r3.y, r3.z, r3.w\n(rpt5)nop\nend\n").empty());
  CHECK(hazards("mov.u32u32 r3.x, 1\nnop\ngat.u32u32 r6.x, r3.x, r3.y, r3.z, r3.w\n(rpt5)nop\nend\n").size() == 1);
}

TEST_CASE("slots only a loop's entry needs go before its label, so the stripped ALU loop comes back as scheduled by hand", "[pure][ir3][hazards]") {
  // bench/shader_processor.cpp's loop, scheduled by hand: the (rpt2)nop is on the way in only.
  const std::string scheduled = R"(
    mov.u32u32 r1.x, 0
    cov.u32f32 r1.y, r0.x
    (rpt2)nop
  loop:
    mad.f32 r1.y, r1.y, r1.y, r1.y
    (nop3) add.u r1.x, r1.x, 1
    (nop3) cmps.u.lt p0.x, r1.x, 128
    (rpt2)nop
    br p0.x, #loop
    end
  )";
  const Program legalized = assemble(without_waits(scheduled), RegisterFile::split, Scheduling::legalize);
  CHECK(legalized.words == assemble(scheduled).words);
  CHECK(legalize_source(without_waits(scheduled)) == scheduled + "\n");  // without_waits ends the last line
  // Where the back edge needs slots too, those stay inside; only the rest go before the label:
  // in here, the back edge needs 2 slots (one counted instruction after the r2.x write), the
  // entry 3 (the r2.x write right before the loop).
  const std::string both = R"(
    mov.u32u32 r1.x, 0
    mov.u32u32 r2.x, 1
    nop
  top:
    (rpt1)nop
    (nop3) add.u r1.x, r1.x, r2.x
    cmps.u.lt p0.x, r1.x, 100
    (rpt5)nop
    add.u r2.x, r2.x, 1
    add.u r3.x, r3.x, 1
    br p0.x, #top
    end
  )";
  const std::string bare = R"(
    mov.u32u32 r1.x, 0
    mov.u32u32 r2.x, 1
  top:
    add.u r1.x, r1.x, r2.x
    cmps.u.lt p0.x, r1.x, 100
    (rpt5)nop
    add.u r2.x, r2.x, 1
    add.u r3.x, r3.x, 1
    br p0.x, #top
    end
  )";
  CHECK(check(decoded(assemble(both).words)).empty());
  CHECK(assemble(bare, RegisterFile::split, Scheduling::legalize).words == assemble(both).words);
  CHECK(legalize_source(bare) == both);
}

TEST_CASE("the mutants shrink each (rptN)nop and (nopN) to every smaller count and delete each nop", "[pure][ir3][hazards]") {
  // The issue's own example, (rpt2)nop -> nop, is among them, not only (rpt2)nop -> (rpt1)nop.
  const Program program = assemble("mov.u32u32 r0.x, 1\n(rpt2)nop\n(nop3) add.u r0.y, r0.x, 1\nend\n", RegisterFile::split);
  std::vector<unsigned> repeats, nops;
  unsigned deleted = 0;
  for (const ir3_mutants::Mutant& mutant : ir3_mutants::mutants_of(program.words)) {
    INFO(mutant.what);
    const std::vector<Instruction> code = ir3_mutants::decode_through_end(mutant.words);
    if (code.size() == 3) {  // the nop deleted: the add moved up, unchanged
      CHECK(code[1].opcode == Opcode::add_u);
      CHECK(code[1].nop == 3);
      ++deleted;
    } else if (code[1].repeat != 2) {
      CHECK(code[2].nop == 3);
      repeats.push_back(code[1].repeat);
    } else {
      nops.push_back(code[2].nop);
    }
  }
  CHECK(deleted == 1);
  CHECK(repeats == std::vector<unsigned>{0, 1});
  CHECK(nops == std::vector<unsigned>{0, 1, 2});
}

TEST_CASE("every wait the legalizer places is needed, removing any one of them leaves a hazard", "[pure][ir3][hazards]") {
  std::vector<std::pair<std::string, RegisterFile>> sources;
  for (const char* name : {"vector32", "vector128", "scalar", "multigroup"})
    sources.emplace_back(without_waits(listing_source(name)), file_of(name));
  for (const char* name : {"vector_add", "mul_add", "reverse"}) sources.emplace_back(without_waits(example(name)), RegisterFile::split);
  sources.emplace_back("@const(c2.x) 8, 32, 2, 0\n" + example("sgemm"), RegisterFile::split);
  for (const auto& [source, file] : sources) {
    INFO(source);
    const Program legalized = assemble(source, file, Scheduling::legalize);
    REQUIRE(check(decoded(legalized.words), file).empty());
    const std::vector<ir3_mutants::Mutant> mutants = ir3_mutants::mutants_of(legalized.words);
    CHECK_FALSE(mutants.empty());
    for (const ir3_mutants::Mutant& mutant : mutants) {
      INFO(mutant.what);
      CHECK_FALSE(check(ir3_mutants::decode_through_end(mutant.words), file).empty());
    }
  }
}

TEST_CASE("a legal program comes back from the legalizer unchanged, and so does a legalized one", "[pure][ir3][hazards]") {
  std::vector<std::pair<std::string, RegisterFile>> legal;
  for (const char* name : {"vector32", "vector128", "scalar", "multigroup"}) legal.emplace_back(listing_source(name), file_of(name));
  for (const char* name : {"vector_add", "mul_add", "reverse"}) legal.emplace_back(example(name), RegisterFile::split);
  for (const char* name : {"vector32", "multigroup"}) {
    const Program once = assemble(without_waits(listing_source(name)), file_of(name), Scheduling::legalize);
    std::string text;
    for (const Instruction& in : decoded(once.words)) text += to_text(in) + "\n";
    legal.emplace_back(text, file_of(name));
  }
  legal.emplace_back(legalize_source("@const(c2.x) 8, 32, 2, 0\n" + example("sgemm")), RegisterFile::split);
  for (const auto& [source, file] : legal) {
    INFO(source);
    const Program as_written = assemble(source, file);
    REQUIRE(check(decoded(as_written.words), file).empty());
    CHECK(assemble(source, file, Scheduling::legalize).words == as_written.words);
  }
}

TEST_CASE("the a6xx delay numbers are Mesa's, reader by reader", "[pure][ir3][hazards]") {
  // Hand-worked from ir3_compiler.c (alu_to_alu 3, non_alu 6, cat3_src2_read 2), ir3_delay.c
  // and ir3_legalize.c delay_update: the slots each reader lacks right after the writer.
  auto missing = [](const std::string& source, RegisterFile file = RegisterFile::split) {
    const std::vector<Hazard> found = hazards(source + "\n(rpt5)nop\nend\n", file);
    REQUIRE(found.size() == 1);
    CHECK(found[0].fix == Wait::delay);
    return found[0].missing_slots;
  };
  const std::string alu = "add.u r1.x, r2.x, 1\n";
  CHECK(missing(alu + "add.u r3.x, r1.x, 1") == 3);                       // ALU to ALU
  CHECK(missing(alu + "stg.u32 g[r4.x], r1.x, 1") == 6);                  // to a memory reader
  CHECK(missing(alu + "rcp r3.x, r1.x") == 6);                            // to the SFU
  CHECK(missing(alu + "mad.f32 r3.x, r1.x, r5.x, r6.x") == 3);            // mad's src0
  CHECK(missing(alu + "mad.f32 r3.x, r4.x, r5.x, r1.x") == 1);            // its src2 is read 2 cycles late
  CHECK(missing(alu + "add.u hr5.x, hr2.x, 1", RegisterFile::merged) == 6);  // hr2.x is half of r1.x
  CHECK(hazards(alu + "add.u hr5.x, hr2.x, 1\n(rpt5)nop\nend\n").empty());    // split files do not alias
  CHECK(missing(alu + "mad.f16 hr3.x, hr4.x, hr5.x, hr2.x", RegisterFile::merged) == 4);  // 6 - 2
  CHECK(missing("cmps.u.lt p0.x, r1.x, 1\nbr p0.x, #1") == 6);            // p0 to a branch (br counts no slot)
  CHECK(missing("cmps.u.lt p0.x, r1.x, 1\nsel.b32 r3.x, r4.x, r5.x, r6.x\nbr p0.x, #1") == 5);
  CHECK(missing("mova a0.x, 1\nmov.u32u32 r3.x, r<a0.x + 0>") == 6);      // a0.x to any reader
  CHECK(missing("(rpt2)add.u r1.x, (r)r2.x, 1\nadd.u r3.x, r1.z, 1") == 3);  // r1.z is written last
  CHECK(missing("(rpt2)add.u r1.x, (r)r2.x, 1\nadd.u r3.x, r1.x, 1") == 1);  // r1.x two cycles earlier
}
