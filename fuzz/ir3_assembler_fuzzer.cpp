// ir3 assembler (text): any source either assembles or throws adreno::Error; what assembles is
// also analyzed into launch metadata (ir3_metadata) and disassembled again.
#include <adreno/error.hpp>

#include "core/ir3_assembly.h"
#include "ir3/assembler.h"
#include "ir3/disassembler.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  for (const auto file : {adreno::ir3::RegisterFile::split, adreno::ir3::RegisterFile::merged}) {
    try {
      const auto program = adreno::ir3::assemble(source, file);
      (void)adreno::ir3::disassemble(program.words, adreno::ir3::ListingStyle::plain);
      (void)adreno::ir3_metadata(program);
    } catch (const adreno::Error&) {
    }
  }
  return 0;
}
