// The virtual msm render node: what drivers/gpu/drm/msm (with drm_gem/drm_prime underneath)
// is to a process that opens /dev/dri/renderD128 on a Snapdragon running an upstream kernel.
// Each open file is one msm_context: its own GEM handle table, its own GPU address space, its
// own submitqueues (each a virtual Ring). It decodes the same structs (msm/msm_abi.h) and
// answers with the driver's errno for the driver's checks.
#pragma once

#include "virt/kernels/virtual_gpu_config.h"

#include <cstdint>
#include "virt/kernels/virtual_syscalls.h"

namespace adreno::virt {

/// msm_gpu.h NR_SCHED_PRIORITIES: each GPU ring gives this many submitqueue priorities, and
/// MSM_PARAM_PRIORITIES is nr_rings times it (adreno_gpu.c adreno_get_param).
inline constexpr std::uint32_t kMsmPrioritiesPerRing = 3;

struct MsmNodeOptions {
  /// Per-process pagetables: MSM_PARAM_VA_START/VA_SIZE answer. Kernels (or IOMMU setups)
  /// without them answer EINVAL (adreno_gpu.c adreno_get_param), which this switch reproduces.
  bool per_process_pgtables = true;
  /// Ringbuffers the GPU has: 1 on a630 (a6xx_gpu_init creates one), 4 on GPUs with preemption.
  std::uint32_t rings = 1;
  /// ADRENO_QUIRK_HAS_CACHED_COHERENT (set for a630 in a6xx_catalog.c): without it, GEM_NEW
  /// refuses MSM_BO_CACHED_COHERENT with EINVAL (msm_gem.c msm_gem_new_impl).
  bool cached_coherent = true;
  /// The driver's minor version (DRM_IOCTL_VERSION; major 1). Before 1.6 (msm_drv.c's version
  /// history: "1.6.0 - Syncobj support") GEM_SUBMIT knows no MSM_SUBMIT_SYNCOBJ_IN/OUT and
  /// answers EINVAL for them, as its flag check does for any unknown flag.
  int version_minor = 12;
};

VirtualSyscalls::NodeFactory make_virtual_msm_node(const VirtualGpuConfig& config, MsmNodeOptions options = {});

}  // namespace adreno::virt
