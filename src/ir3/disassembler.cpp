#include "ir3/disassembler.h"

#include <adreno/error.hpp>
#include <cstdio>

#include "ir3/codec.h"
#include "ir3/text.h"

namespace adreno::ir3 {

std::string disassemble_word(std::uint64_t word, Generation gen) {
  try {
    return to_text(decode(word, gen), gen);
  } catch (const Error&) {
    char text[32];
    std::snprintf(text, sizeof text, "raw 0x%016llX", static_cast<unsigned long long>(word));
    return text;
  }
}

std::string disassemble(std::span<const std::uint64_t> words, ListingStyle style, Generation gen) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (style == ListingStyle::indexed) {
      char prefix[64];
      std::snprintf(prefix, sizeof prefix, "%3zu[%08x_%08x] ", i,
                    static_cast<unsigned>(words[i] >> 32), static_cast<unsigned>(words[i]));
      out += prefix;
    }
    out += disassemble_word(words[i], gen);
    out += '\n';
  }
  return out;
}

}  // namespace adreno::ir3
