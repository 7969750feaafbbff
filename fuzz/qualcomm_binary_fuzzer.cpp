// Qualcomm OpenCL binary loader: any bytes either parse into a ProgramInfo or throw
// adreno::Error; nothing else (no crash, no other exception).
#include <adreno/error.hpp>

#include "core/qualcomm_binary.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)adreno::parse_qualcomm_binary(std::span(reinterpret_cast<const std::byte*>(data), size));
  } catch (const adreno::Error&) {
  }
  return 0;
}
