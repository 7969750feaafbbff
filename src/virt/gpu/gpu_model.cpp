#include "virt/gpu/gpu_model.h"

#include <array>

namespace adreno::virt {
namespace {

// Chip ids, GMEM and instruction-cache sizes (the a6xx_gen* templates' instr_cache_size) from Mesa
// src/freedreno/common/freedreno_devices.py (the a630 entry
// also matches the fixtures' fd_dev_id chip_id 0x06030001). a740: freedreno_devices.py's FD740
// chip id 0x43050a01 (the one KGSL reports, and msm's a6xx_catalog.c lists), 3 MiB of GMEM
// (msm a6xx_catalog.c and KGSL adreno-gpulist.h for gen7_2_0: 3 * SZ_1M). a730 runs the a7xx
// stream too, but the library has no per-chip block for it and refuses it, which tests exercise.
constexpr std::array kModels = {
    GpuModel{"a630", 0x06030001, 630, 1024 * 1024, 64},
    GpuModel{"a640", 0x06040001, 640, 1024 * 1024, 64},
    GpuModel{"a650", 0x06050002, 650, 1024 * 1024 + 512 * 1024, 127},
    GpuModel{"a660", 0x06060001, 660, 1024 * 1024 + 512 * 1024, 127},
    // a7xx_base's instr_cache_size is 127, not 128: "Blob limits it to 128 but we hang with 128".
    GpuModel{"a730", 0x07030001, 730, 2 * 1024 * 1024, 127, ir3::Generation::a7xx},  // a7xx_gen1
    GpuModel{"a740", 0x43050a01, 740, 3 * 1024 * 1024, 127, ir3::Generation::a7xx},  // a7xx_gen2
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
