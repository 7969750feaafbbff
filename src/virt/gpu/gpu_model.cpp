#include "virt/gpu/gpu_model.h"

#include <array>

namespace adreno::virt {
namespace {

// Chip ids, GMEM and instruction-cache sizes (the a6xx_gen* templates' instr_cache_size) from Mesa
// src/freedreno/common/freedreno_devices.py (the a630 entry
// also matches the fixtures' fd_dev_id chip_id 0x06030001); a730 is here so that the library's
// refusal of a7xx parts can be exercised.
constexpr std::array kModels = {
    GpuModel{"a630", 0x06030001, 630, 1024 * 1024, 64},
    GpuModel{"a640", 0x06040001, 640, 1024 * 1024, 64},
    GpuModel{"a650", 0x06050002, 650, 1024 * 1024 + 512 * 1024, 127},
    GpuModel{"a660", 0x06060001, 660, 1024 * 1024 + 512 * 1024, 127},
    // a7xx_base's instr_cache_size is 127, not 128: "Blob limits it to 128 but we hang with 128".
    GpuModel{"a730", 0x07030001, 730, 2 * 1024 * 1024, 127},  // a7xx_gen1
};

}  // namespace

std::span<const GpuModel> gpu_models() { return kModels; }

std::optional<GpuModel> find_gpu_model(std::string_view name) {
  for (const GpuModel& model : kModels) {
    if (model.name == name) return model;
  }
  return std::nullopt;
}

}  // namespace adreno::virt
