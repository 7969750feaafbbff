// [pure] Real compiler output: Mesa 25.2.0 ir3 code for a630 (shared/fixtures/ir3-a630). Every
// word must print as Mesa's ir3-disasm printed it, assemble back to itself, and the assembler's
// metadata for the program must equal the compiler's (the fixture JSON).
#include <adreno/error.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ir3/assembler.h"
#include "ir3/codec.h"
#include "ir3/disassembler.h"
#include "ir3/text.h"

using namespace adreno::ir3;

namespace {

const std::string kFixtureDir = ADRENO_IR3_FIXTURES_DIR;

struct Listed {
  std::size_t index;
  std::uint64_t word;
  std::string text;
};

std::vector<std::uint64_t> read_code(const std::string& name) {
  std::ifstream file(kFixtureDir + name + ".code.bin", std::ios::binary);
  REQUIRE(file.good());
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), {});
  REQUIRE(bytes.size() % 8 == 0);
  std::vector<std::uint64_t> words(bytes.size() / 8);
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::uint64_t w = 0;
    for (int b = 7; b >= 0; --b) w = w << 8 | static_cast<unsigned char>(bytes[i * 8 + b]);
    words[i] = w;
  }
  return words;
}

// "  7[c0060002_01800001] ldg.u32 r0.z, g[r0.x], 1"
std::vector<Listed> read_listing(const std::string& name) {
  std::ifstream file(kFixtureDir + name + ".disasm.txt");
  REQUIRE(file.good());
  std::vector<Listed> out;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == ';') continue;
    std::size_t index = 0;
    unsigned hi = 0, lo = 0;
    int consumed = 0;
    REQUIRE(std::sscanf(line.c_str(), " %zu[%8x_%8x] %n", &index, &hi, &lo, &consumed) == 3);
    out.push_back(
        {index, std::uint64_t{hi} << 32 | lo, line.substr(static_cast<std::size_t>(consumed))});
  }
  return out;
}

nlohmann::json read_json(const std::string& name) {
  std::ifstream file(kFixtureDir + name + ".json");
  REQUIRE(file.good());
  return nlohmann::json::parse(file);
}

}  // namespace

TEST_CASE("fixture words print as Mesa's ir3-disasm and assemble back", "[pure][ir3][fixtures]") {
  for (const char* name : {"scalar", "vector32", "vector128", "multigroup"}) {
    INFO(name);
    const std::vector<std::uint64_t> code = read_code(name);
    const std::vector<Listed> listing = read_listing(name);
    REQUIRE(listing.size() == code.size());
    for (const Listed& line : listing) {
      INFO(line.index << ": " << line.text);
      REQUIRE(line.index < code.size());
      CHECK(code[line.index] == line.word);
      CHECK(disassemble_word(line.word) == line.text);
      CHECK(encode(parse_instruction(line.text)) == line.word);
    }
  }
}

TEST_CASE("assembling a fixture listing reproduces the binary and the compiler's metadata",
          "[pure][ir3][fixtures]") {
  for (const char* name : {"scalar", "vector32", "vector128", "multigroup"}) {
    INFO(name);
    std::string source;
    for (const Listed& line : read_listing(name)) source += line.text + "\n";
    const Program program = assemble(source);
    CHECK(program.words == read_code(name));

    const nlohmann::json json = read_json(name);
    const auto& code = json["code"];
    const auto& registers = json["registers"];
    const ProgramInfo& info = program.info;
    CHECK(info.instruction_count == code["instructions_through_end"].get<std::uint32_t>());
    CHECK(info.instrlen == code["instrlen"]["value"].get<std::uint32_t>());
    CHECK(info.max_reg == registers["max_reg"].get<int>());
    CHECK(info.max_half_reg == registers["max_half_reg"].get<int>());
    CHECK(info.full_footprint_vec4() == registers["full_footprint_vec4"].get<std::uint32_t>());
    CHECK(info.half_footprint_vec4() == registers["half_footprint_vec4"].get<std::uint32_t>());
    CHECK(info.max_const == json["constants"]["max_const_vec4_index_read"].get<int>());
    CHECK(info.expanded_count == code["instrs_count_expanded"].get<std::uint32_t>());
    CHECK(info.nop_count == code["nops_count"].get<std::uint32_t>());
    CHECK(info.ss_count == code["ss_count"].get<std::uint32_t>());
    CHECK(info.sy_count == code["sy_count"].get<std::uint32_t>());
    const auto per_cat = code["instrs_per_cat"].get<std::vector<std::uint32_t>>();
    CHECK(std::vector<std::uint32_t>(info.per_category.begin(), info.per_category.end()) ==
          per_cat);
    CHECK(info.has_barrier == json["control"]["has_barrier"].get<bool>());
    CHECK(info.uses_local_memory == (json["memory"]["shared_bytes"].get<int>() != 0));
  }
}

TEST_CASE("the fixture binary disassembles to a listing in Mesa's indexed layout",
          "[pure][ir3][fixtures]") {
  const std::vector<std::uint64_t> code = read_code("scalar");
  std::istringstream listing(disassemble(code, ListingStyle::indexed));
  std::vector<Listed> expected = read_listing("scalar");
  std::size_t i = 0;
  for (std::string line; std::getline(listing, line); ++i) {
    REQUIRE(i < expected.size());
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "%3zu[%08x_%08x] ", expected[i].index,
                  static_cast<unsigned>(expected[i].word >> 32),
                  static_cast<unsigned>(expected[i].word));
    CHECK(line == prefix + expected[i].text);
  }
  CHECK(i == expected.size());
}
