// adreno-disasm: print a6xx or a7xx ir3 machine code in Mesa's disassembler syntax.
#include <CLI/CLI.hpp>
#include <adreno/error.hpp>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ir3/disassembler.h"
#include "ir3/generation.h"

namespace {

std::vector<std::uint64_t> read_words(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw adreno::Error(adreno::Errc::not_found, "read binary", "cannot open " + path);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), {});
  if (bytes.size() % 8 != 0) {
    throw adreno::Error(adreno::Errc::malformed, "read binary",
                        path + " is " + std::to_string(bytes.size()) +
                            " bytes, not a whole number of 64-bit instructions");
  }
  std::vector<std::uint64_t> words(bytes.size() / 8);
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (int byte = 7; byte >= 0; --byte) {
      words[i] =
          words[i] << 8 | static_cast<unsigned char>(bytes[i * 8 + static_cast<std::size_t>(byte)]);
    }
  }
  return words;
}

// "0xc0060002_01800001", "c006000201800001" or Mesa's "c0060002_01800001".
std::uint64_t parse_word(std::string text) {
  std::string digits;
  std::string_view view = text;
  if (view.substr(0, 2) == "0x" || view.substr(0, 2) == "0X") view.remove_prefix(2);
  for (char c : view) {
    if (c != '_') digits += c;
  }
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (digits.empty() || digits.size() > 16 || error != std::errc() ||
      end != digits.data() + digits.size()) {
    throw adreno::Error(adreno::Errc::invalid_argument, "parse word",
                        "'" + text + "' is not a 64-bit hex word such as c0060002_01800001");
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Disassemble Adreno a6xx or a7xx ir3 machine code into Mesa's ir3 syntax.\n\n"
      "Input is either a binary file of little-endian 64-bit instruction words (what\n"
      "SP_CS_BASE points at, e.g. a compiler's .code.bin) or words given on the command\n"
      "line. Words that match no instruction of the generation print as `raw 0x...`; the\n"
      "output can be fed back to adreno-asm (with the same --gen) unchanged.",
      "adreno-disasm"};
  std::string path;
  std::vector<std::string> words_text;
  bool indexed = false;
  std::string gen_text = "a6xx";
  app.add_option("binary", path, "binary file of 64-bit instruction words");
  app.add_option("-g,--gen", gen_text,
                 "instruction set: a6xx (default) or a7xx, or a GPU such as a630, a740 (FD740 as in Mesa's ir3-disasm)");
  app.add_option("-w,--word", words_text,
                 "instruction words in hex (c0060002_01800001 or 0xc006000201800001); repeatable");
  app.add_flag("-i,--indexed", indexed,
               "prefix each line with its index and word, like Mesa's ir3-disasm: "
               "`  7[c0060002_01800001] ldg.u32 r0.z, g[r0.x], 1`");
  app.footer(
      "Examples:\n"
      "  adreno-disasm kernel.bin\n"
      "  adreno-disasm -w 52180b18_0014000f      prints (sy)(rpt3)add.u r6.x, (r)r3.w, (r)r5.x\n"
      "  adreno-disasm -g a7xx -w e2d20000_00000000   prints ccinv");
  CLI11_PARSE(app, argc, argv);

  try {
    if (path.empty() == words_text.empty()) {
      throw adreno::Error(adreno::Errc::invalid_argument, "arguments",
                          "give either a binary file or --word values (see --help)");
    }
    std::vector<std::uint64_t> words;
    if (!path.empty()) {
      words = read_words(path);
    } else {
      for (const std::string& text : words_text) words.push_back(parse_word(text));
    }
    const auto style =
        indexed ? adreno::ir3::ListingStyle::indexed : adreno::ir3::ListingStyle::plain;
    std::fputs(adreno::ir3::disassemble(words, style, adreno::ir3::generation_named(gen_text, "--gen")).c_str(), stdout);
  } catch (const adreno::Error& e) {
    std::fprintf(stderr, "adreno-disasm: %s: %s\n", e.operation().c_str(), e.detail().c_str());
    return 1;
  }
  return 0;
}
