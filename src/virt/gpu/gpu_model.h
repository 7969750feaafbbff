// The GPUs the virtual kernels can pretend to be.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ir3/generation.h"

namespace adreno::virt {

struct GpuModel {
  std::string_view name;      // "a630"
  std::uint32_t chip_id;      // as KGSL's DEVICE_INFO reports it, and MSM's CHIP_ID in its low 32 bits
  std::uint32_t msm_revn;     // MSM_PARAM_GPU_ID: a6xx_catalog.c's revn, 0 for parts listed by chip id only
  std::uint32_t gmem_bytes;   // on-chip tile memory
  std::uint32_t instr_cache_units;  // shader instruction cache, in 128-byte units (16 instructions)
  ir3::Generation generation = ir3::Generation::a6xx;  // whose PM4, registers and ir3 it runs
};

/// Every model, the default (a630) first.
std::span<const GpuModel> gpu_models();
std::optional<GpuModel> find_gpu_model(std::string_view name);

}  // namespace adreno::virt
