#include "virt/gpu/gpu_model.h"

#include <array>

namespace adreno::virt {
namespace {

// Chip ids, GMEM and instruction-cache sizes (the a6xx_gen* templates' instr_cache_size) from Mesa
// src/freedreno/common/freedreno_devices.py (the a630 entry also matches the fixtures' fd_dev_id
// chip_id 0x06030001). The a7xx chip ids are those freedreno_devices.py marks "KGSL, no speedbin
// data" (FD730 0x07030001, FD740 0x43050a01, FD750 0x43051401): KGSL's DEVICE_INFO reports the
// device tree's qcom,chipid (adreno.c adreno_get_chipid, adreno_prop_device_info), and msm's
// a6xx_catalog.c lists the same ids (a7xx_gpus[]: ADRENO_CHIP_IDS). GMEM: msm a6xx_catalog.c and
// KGSL adreno-gpulist.h agree — a730 SZ_2M (gen7_0_0), a740 3 * SZ_1M (gen7_2_0), a750 3 * SZ_1M
// (gen7_9_0). a6xx_catalog.c gives the a7xx entries no revn, so msm reports GPU_ID 0 for them and
// the speed bin above the chip id (msm_device.cpp).
constexpr std::array kModels = {
    GpuModel{"a630", 0x06030001, 630, 1024 * 1024, 64},
    GpuModel{"a640", 0x06040001, 640, 1024 * 1024, 64},
    GpuModel{"a650", 0x06050002, 650, 1024 * 1024 + 512 * 1024, 127},
    GpuModel{"a660", 0x06060001, 660, 1024 * 1024 + 512 * 1024, 127},
    // a7xx_base's instr_cache_size is 127, not 128: "Blob limits it to 128 but we hang with 128".
    GpuModel{"a730", 0x07030001, 0, 2 * 1024 * 1024, 127, ir3::Generation::a7xx},  // a7xx_gen1
    GpuModel{"a740", 0x43050a01, 0, 3 * 1024 * 1024, 127, ir3::Generation::a7xx},  // a7xx_gen2
    GpuModel{"a750", 0x43051401, 0, 3 * 1024 * 1024, 127, ir3::Generation::a7xx},  // a7xx_gen3
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
