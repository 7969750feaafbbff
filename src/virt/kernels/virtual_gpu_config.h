// How a virtual GPU is set up: which model it reports, how patient its hang detector is, and
// what a test made it run out of or fail.
#pragma once

#include "virt/gpu/execution_model.h"
#include "virt/gpu/gpu_model.h"

#include <chrono>
#include <memory>

namespace adreno::virt {

class FaultInjection;
class MemoryLimit;

struct VirtualGpuConfig {
  GpuModel model = gpu_models().front();
  /// A CP wait that is not satisfied for this long is reported as a GPU hang. Real drivers'
  /// fault detection fires on the order of seconds too.
  std::chrono::milliseconds hang_timeout{2000};
  /// Kernel allocations past this limit fail with ENOMEM (memory_limit.h); none when null.
  std::shared_ptr<MemoryLimit> memory_limit;
  /// Submissions a test makes fault, and the record of reported faults (fault_injection.h).
  std::shared_ptr<FaultInjection> fault_injection;
  /// How the rings' command processors run streams and time shaders (the hazard check's mode);
  /// the environment's (ADRENO_VIRTUAL_ORDER/SEED/HAZARDS) when the device opens.
  ExecutionModel execution = ExecutionModel::from_environment();
};

/// Where the virtual nodes live in the virtual file system.
inline constexpr const char* kVirtualKgslNode = "/dev/kgsl-3d0";
inline constexpr const char* kVirtualMsmNode = "/dev/dri/renderD128";

}  // namespace adreno::virt
