// [pure] The legalizer and the static checker against Mesa's own schedules: the a630 fixtures
// (Mesa 25.2.0 ir3 output) are hazard-free and come back word for word with the pass on; with
// every wait stripped the checker finds hazards, and the legalizer's schedule is hazard-free and
// spends no more delay slots and waits than Mesa's did; branch targets follow inserted nops.
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

TEST_CASE("stripped of every wait, the fixtures have hazards and the legalizer's schedule is no longer than Mesa's", "[pure][ir3][hazards]") {
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
