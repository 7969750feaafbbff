// How a virtual GPU is set up: which model it reports, how patient its hang detector is, and
// what a test made it run out of or fail.
#pragma once

#include "virt/gpu/execution_model.h"
#include "virt/gpu/gpu_model.h"

#include <chrono>
#include <cstdint>
#include <memory>

namespace adreno::virt {

class FaultInjection;
class MemoryLimit;

struct VirtualGpuConfig {
  GpuModel model = gpu_models().front();
  /// A CP wait that is not satisfied for this long is reported as a GPU hang. Real drivers'
  /// fault detection fires on the order of seconds too.
  std::chrono::milliseconds hang_timeout{2000};
  /// The kernel's PAGE_SIZE: 4 KiB on most arm64 Android kernels, 16 KiB on some. The drivers
  /// round allocations to it and KGSL names an object's mmap offset in it (id << PAGE_SHIFT); the
  /// seam that hosts the node must report the same one (VirtualSyscalls' constructor). The GPU's
  /// own pagetable keeps its 4 KiB pages (kPageSize).
  std::uint64_t page_size = 4096;
  /// KGSL: how many commands a draw context may hold before GPU_COMMAND sleeps for room, and how
  /// long it sleeps before giving up with -ETIMEDOUT, queueing nothing (adreno_dispatch.c
  /// _context_drawqueue_size 50 and _context_queue_wait 10000 ms, both sysfs-tunable).
  unsigned context_queue_size = 50;
  std::chrono::milliseconds context_queue_wait{10000};
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
