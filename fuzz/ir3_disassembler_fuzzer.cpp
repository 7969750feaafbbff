// Instruction decoder and disassembler (words): any 64-bit words decode, re-encode, analyze and
// disassemble without crashing; the only exception allowed is adreno::Error.
#include <adreno/error.hpp>

#include "ir3/codec.h"
#include "ir3/disassembler.h"
#include "ir3/program.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint64_t> words(size / sizeof(std::uint64_t));
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * sizeof(std::uint64_t));
  for (const std::uint64_t word : words) {
    (void)adreno::ir3::disassemble_word(word);
    try {
      (void)adreno::ir3::encode(adreno::ir3::decode(word));
    } catch (const adreno::Error&) {
    }
  }
  (void)adreno::ir3::disassemble(words, adreno::ir3::ListingStyle::indexed);
  for (const auto file : {adreno::ir3::RegisterFile::split, adreno::ir3::RegisterFile::merged}) {
    try {
      (void)adreno::ir3::analyze(words, file);
    } catch (const adreno::Error&) {
    }
  }
  return 0;
}
