// Disassembler: program words to text, one instruction per line, in Mesa's syntax.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ir3/generation.h"

namespace adreno::ir3 {

/// How each line looks.
enum class ListingStyle {
  plain,    ///< just the instruction text (re-assemblable)
  indexed,  ///< "  N[hi_lo] text", the layout of Mesa's ir3-disasm listings
};

/// One line per word, each ending in '\n'. Words that match no instruction of `gen` are printed
/// as `raw 0x<16 hex digits>`, which the assembler accepts back.
std::string disassemble(std::span<const std::uint64_t> words, ListingStyle style, Generation gen = Generation::a6xx);

/// The text of one word (`raw 0x...` when it matches no instruction of `gen`).
std::string disassemble_word(std::uint64_t word, Generation gen = Generation::a6xx);

}  // namespace adreno::ir3
