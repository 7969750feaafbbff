// adreno-run's command-line syntax (tools/run_arguments.h): each input line is parsed as a kernel
// argument (`buf:COUNTxTYPE[:FILL]` / `TYPE:VALUE`), as a size (`X[,Y[,Z]]`), as `--print
// N[:FORMAT]` and as `--save N:PATH`, and the index of the last two is looked up among the
// arguments parsed so far. Only adreno::Error may come out, an accepted buffer's byte size must
// not wrap around, and an accepted index must name a buffer.
#include "run_arguments.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<adreno_run::ArgumentSpec> specs;
  for (const auto& line : adreno_run::split(input, '\n')) {
    try {
      const auto spec = adreno_run::parse_argument(line);
      if (spec.is_buffer && spec.count > std::numeric_limits<std::size_t>::max() / spec.type->bytes) std::abort();
      specs.push_back(spec);
    } catch (const adreno::Error&) {
    }
    try {
      (void)adreno_run::parse_size3(line, "--groups");
    } catch (const adreno::Error&) {
    }
    try {
      const auto print = adreno_run::parse_print(line);
      if (!adreno_run::buffer_argument(specs, print.index, line).is_buffer) std::abort();
    } catch (const adreno::Error&) {
    }
    try {
      const auto save = adreno_run::parse_save(line);
      if (save.path.empty() || !adreno_run::buffer_argument(specs, save.index, line).is_buffer) std::abort();
    } catch (const adreno::Error&) {
    }
  }
  return 0;
}
