// adreno-run's argument and size syntax: each input line is parsed as a kernel argument
// (`buf:COUNTxTYPE[:FILL]` / `TYPE:VALUE`) and as a size (`X[,Y[,Z]]`). Only adreno::Error may
// come out, and an accepted buffer's byte size must not wrap around.
#include "run_arguments.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (const auto& line : adreno_run::split(input, '\n')) {
    try {
      const auto spec = adreno_run::parse_argument(line);
      if (spec.is_buffer && spec.count > std::numeric_limits<std::size_t>::max() / spec.type->bytes) std::abort();
    } catch (const adreno::Error&) {
    }
    try {
      (void)adreno_run::parse_size3(line, "--groups");
    } catch (const adreno::Error&) {
    }
  }
  return 0;
}
