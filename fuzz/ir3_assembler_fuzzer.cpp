// ir3 assembler (text): any source either assembles (as written, and through the legalizer) or
// throws adreno::Error; what assembles is also analyzed into launch metadata (ir3_metadata) and
// disassembled again, and the legalizer's source rewrite runs on it too.
#include <adreno/error.hpp>

#include "core/ir3_assembly.h"
#include "ir3/assembler.h"
#include "ir3/disassembler.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  using adreno::ir3::Scheduling;
  for (const auto file : {adreno::ir3::RegisterFile::split, adreno::ir3::RegisterFile::merged}) {
    for (const auto scheduling : {Scheduling::as_written, Scheduling::legalize}) {
      try {
        const auto program = adreno::ir3::assemble(source, file, scheduling);
        (void)adreno::ir3::disassemble(program.words, adreno::ir3::ListingStyle::plain);
        (void)adreno::ir3_metadata(program);
      } catch (const adreno::Error&) {
      }
    }
    try {
      (void)adreno::ir3::legalize_source(source, file);
    } catch (const adreno::Error&) {
    }
  }
  return 0;
}
