#include "core/gpu_part.h"

#include <adreno/error.hpp>

#include <array>

#include <fmt/format.h>

namespace adreno {
namespace {

constexpr std::array kParts = {
    GpuPart{630, 2, 128 * 16, false},      // a6xx_gen1
    GpuPart{640, 2, 128 * 4 * 16, false},  // a6xx_gen2
    GpuPart{650, 3, 128 * 2 * 16, false},  // a6xx_gen3
    GpuPart{660, 3, 128 * 2 * 16, true},   // a6xx_gen4
};

}  // namespace

const GpuPart& supported_part(const DeviceInfo& info, std::string_view operation) {
  const std::uint32_t core = info.chip_id >> 24;
  if (core == 6) {
    for (const GpuPart& part : kParts)
      if (part.gpu_id == info.gpu_id) return part;
  }
  throw Error(Errc::unsupported, std::string(operation),
              fmt::format("unsupported GPU: {} (chip id {:#010x}); compute dispatch supports the a6xx parts "
                          "a630, a640, a650 and a660",
                          info.name, info.chip_id));
}

}  // namespace adreno
