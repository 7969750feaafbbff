// How a virtual GPU is set up: which model it reports and how patient its hang detector is.
#pragma once

#include "virt/gpu/gpu_model.h"

#include <chrono>

namespace adreno::virt {

struct VirtualGpuConfig {
  GpuModel model = gpu_models().front();
  /// A CP wait that is not satisfied for this long is reported as a GPU hang. Real drivers'
  /// fault detection fires on the order of seconds too.
  std::chrono::milliseconds hang_timeout{2000};
};

/// Where the virtual nodes live in the virtual file system.
inline constexpr const char* kVirtualKgslNode = "/dev/kgsl-3d0";
inline constexpr const char* kVirtualMsmNode = "/dev/dri/renderD128";

}  // namespace adreno::virt
