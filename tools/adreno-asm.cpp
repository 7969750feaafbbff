// adreno-asm: assemble a6xx or a7xx ir3 source into a program binary and its launch metadata.
#include <CLI/CLI.hpp>
#include <adreno/error.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ir3/assembler.h"
#include "ir3/codec.h"
#include "ir3/generation.h"
#include "ir3/legalize.h"

namespace {

std::string read_source(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), {});
  }
  std::ifstream file(path);
  if (!file) throw adreno::Error(adreno::Errc::not_found, "read source", "cannot open " + path);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

void write_binary(const std::string& path, const std::vector<std::uint64_t>& words) {
  std::ofstream file(path, std::ios::binary);
  if (!file)
    throw adreno::Error(adreno::Errc::invalid_argument, "write binary", "cannot create " + path);
  for (std::uint64_t word : words) {
    for (int byte = 0; byte < 8; ++byte) file.put(static_cast<char>(word >> (8 * byte)));
  }
}

nlohmann::json metadata(const adreno::ir3::Program& program) {
  using nlohmann::json;
  const auto& info = program.info;
  const auto& launch = program.launch;
  json buffers = json::array();
  for (const auto& buffer : launch.buffers) {
    buffers.push_back(
        {{"kind", buffer.uniform ? "ubo" : "buf"},
         {"size_dwords", buffer.size_dwords},
         {"address_const_regid", buffer.address_const ? json(*buffer.address_const) : json()},
         {"initial", buffer.initial}});
  }
  json constants = json::array();
  for (const auto& values : launch.constants) {
    constants.push_back({{"regid", values.regid}, {"values", values.values}});
  }
  return {
      {"format", "adreno-ir3-program/1"},
      {"generation", adreno::ir3::generation_name(program.generation)},
      {"code_bytes", program.words.size() * 8},
      {"instructions", info.instruction_count},
      {"instrlen", info.instrlen},
      {"registers",
       {{"mergedregs", info.register_file == adreno::ir3::RegisterFile::merged},
        {"max_reg", info.max_reg},
        {"max_half_reg", info.max_half_reg},
        {"full_footprint_vec4", info.full_footprint_vec4()},
        {"half_footprint_vec4", info.half_footprint_vec4()}}},
      {"max_const_vec4", info.max_const},
      {"has_barrier", info.has_barrier},
      {"uses_local_memory", info.uses_local_memory},
      {"counts",
       {{"expanded", info.expanded_count},
        {"nops", info.nop_count},
        {"per_category", info.per_category},
        {"ss", info.ss_count},
        {"sy", info.sy_count}}},
      {"launch",
       {{"local_size", launch.local_size},
        {"local_id_regid", launch.local_id_regid},
        {"work_group_id_regid", launch.work_group_id_regid},
        {"num_work_groups_const_regid",
         launch.num_work_groups_const ? json(*launch.num_work_groups_const) : json()},
        {"buffers", buffers},
        {"early_preamble", launch.early_preamble},
        {"constants", constants}}},
  };
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Assemble Adreno a6xx or a7xx ir3 shader source into a program binary.\n\n"
      "The syntax is the one Mesa's ir3 disassembler prints, e.g.\n"
      "  (sy)(rpt3)add.u r6.x, (r)r3.w, (r)r5.x\n"
      "  ldg.u32 r0.z, g[r0.x], 1\n"
      "one instruction per line; `label:` marks a branch target (`br p0.x, #label`),\n"
      "`;` or `//` starts a comment, and `raw 0x<16 hex digits>` emits a word as is.\n"
      "Launch facts use Mesa computerator's headers:\n"
      "  @localsize 64, 1, 1       work-group size\n"
      "  @invocationid(r0.x)       register that receives the local invocation id\n"
      "  @wgid(r48.x)              register that receives the work-group id\n"
      "  @numwg(c2.x)              const that receives the number of work-groups\n"
      "  @buf 256 (c1.x) 1, 2      storage buffer (UAV) slot i of 256 dwords starting 1, 2; address in c1.xy\n"
      "  @branchstack 2            branch stack depth\n"
      "  @localmem 1024            local memory bytes per work-group\n"
      "  @pvtmem 16                private memory bytes per fiber\n"
      "  @fullnopstart/@fullnopend, @fullsyncstart/@fullsyncend   (rpt5)nop / (ss)(sy)nop before each instruction\n"
      "  @const(c0.x) 1.0, 2, 0, 0 four dwords preloaded at c0.x",
      "adreno-asm"};
  std::string input, output, json_path;
  app.add_option("input", input, "source file, or - for standard input")->required();
  app.add_option("-o,--output", output,
                 "binary to write: little-endian 64-bit instruction words, as SP_CS_BASE expects");
  app.add_option("-j,--json", json_path,
                 "also write metadata (register footprints, instrlen, barrier/local memory use, "
                 "launch facts) as JSON; - for standard output");
  std::string gen_text = "a6xx";
  app.add_option("-g,--gen", gen_text,
                 "instruction set: a6xx (default) or a7xx, or a GPU such as a630, a740; an instruction or "
                 "form of the other generation only is an error naming it");
  bool split = false;
  app.add_flag("-s,--split-registers", split,
               "keep a separate half-register file and footprint (SP_CS_CNTL_0 MERGEDREGS clear), "
               "as the a630 compiler fixtures do; the default merges them (hrN is half of r(N/2)), "
               "as Mesa's own assembler does on a6xx");
  bool legalize = false, check = false;
  std::string legalized_source;
  app.add_flag("--legalize", legalize,
               "place the (sy)/(ss) flags and delay slots the code lacks (Mesa's rules for the generation); code "
               "that already has them comes out unchanged");
  app.add_flag("--check", check,
               "report every timing hazard some path through the program reaches, in the words the "
               "virtual GPU uses, and exit 1 if there is one");
  app.add_option("--legalized-source", legalized_source,
                 "write the source with the waits --legalize would add (labels and comments kept)");
  app.footer(
      "Example:\n"
      "  adreno-asm kernel.s -o kernel.bin -j kernel.json\n"
      "Errors are reported as FILE:LINE:COLUMN: message 'token' and exit with status 1.\n");
  CLI11_PARSE(app, argc, argv);

  try {
    if (output.empty() && !check && legalized_source.empty()) {
      std::fprintf(stderr, "adreno-asm: --output is required (unless only --check or --legalized-source)\n");
      return 1;
    }
    const std::string source = read_source(input);
    const auto file = split ? adreno::ir3::RegisterFile::split : adreno::ir3::RegisterFile::merged;
    const adreno::ir3::Generation gen = adreno::ir3::generation_named(gen_text, "--gen");
    adreno::ir3::Program program;
    try {
      program = adreno::ir3::assemble(
          source, file, legalize ? adreno::ir3::Scheduling::legalize : adreno::ir3::Scheduling::as_written, gen);
      if (!legalized_source.empty()) {
        std::ofstream out(legalized_source);
        if (!out) throw adreno::Error(adreno::Errc::invalid_argument, "write source", "cannot create " + legalized_source);
        out << adreno::ir3::legalize_source(source, file, gen);
      }
    } catch (const adreno::Error& e) {
      std::fprintf(stderr, "adreno-asm: %s:%s\n", input.c_str(), e.detail().c_str());
      return 1;
    }
    if (check) {
      std::vector<adreno::ir3::Instruction> code;
      for (std::uint64_t word : program.words) code.push_back(adreno::ir3::decode(word, gen));
      const auto hazards = adreno::ir3::check(code, file, gen);
      for (const auto& hazard : hazards) {
        std::fprintf(stderr, "adreno-asm: %s: timing hazard: %s\n", input.c_str(),
                     adreno::ir3::describe(hazard, code[hazard.pc], code[hazard.producer_pc], gen).c_str());
      }
      if (!hazards.empty()) return 1;
    }
    if (!output.empty()) write_binary(output, program.words);
    if (!json_path.empty()) {
      const std::string text = metadata(program).dump(1) + "\n";
      if (json_path == "-") {
        std::fputs(text.c_str(), stdout);
      } else {
        std::ofstream file(json_path);
        if (!file)
          throw adreno::Error(adreno::Errc::invalid_argument, "write metadata",
                              "cannot create " + json_path);
        file << text;
      }
    }
  } catch (const adreno::Error& e) {
    std::fprintf(stderr, "adreno-asm: %s: %s\n", e.operation().c_str(), e.detail().c_str());
    return 1;
  }
  return 0;
}
