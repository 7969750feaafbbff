// Memory is usable only with the device that allocated (or imported) it. Another device's GPU
// address lies in another GPU address space — another process-private KGSL pagetable, another
// MSM address space — where it names nothing or someone else's memory, and its kernel object is
// not in this device's handle table. Nothing below the library would say so: the GPU's access
// page-faults, and by the drivers' defaults the fault is only logged and the access dropped or
// read as zeros (KGSL: kgsl_iommu.c kgsl_iommu_fault_handler resumes unless the fault policy has
// KGSL_FT_PAGEFAULT_GPUHALT_ENABLE; msm: a6xx_gpu.c a6xx_fault_handler → adreno_gpu.c
// adreno_fault_handler logs "*** gpu fault", rate limited, and translation resumes), while an MSM
// submission's buffer table would name another object of this file or be refused with EINVAL
// (msm_gem_submit.c submit_lookup_objects). So every entry point that takes memory checks it once,
// where it is taken: Arguments at set time (against the program's device), queue operations when
// recorded, Device operations on a buffer.
#pragma once

#include <adreno/queue.hpp>

#include "core/buffer_impl.h"
#include "core/device_impl.h"

#include <string_view>

namespace adreno {

/// Error(invalid_argument, operation, "<what> belongs to another device ..."), naming both devices.
[[noreturn, gnu::cold, gnu::noinline]] void throw_other_device(const char* operation, std::string_view what,
                                                               const Device::Impl& owner, const Device::Impl& user);

/// Whether `memory` was allocated on, or imported into, `device`.
inline bool belongs_to(const MemoryBlock& memory, const Device::Impl& device) noexcept { return &memory.device() == &device; }

/// Throws as throw_other_device when `memory` is not `device`'s.
inline void require_same_device(const Device::Impl& device, const MemoryBlock& memory, const char* operation,
                                std::string_view what) {
  if (!belongs_to(memory, device)) [[unlikely]] throw_other_device(operation, what, memory.device(), device);
}

/// Error(invalid_argument, operation, ...) for a view that has no buffer or whose buffer is not
/// `device`'s: the slow path of the check below, for callers that make `what` only when it fails.
[[noreturn, gnu::cold, gnu::noinline]] void throw_unusable_view(const Device::Impl& device, const BufferView& view,
                                                                const char* operation, std::string_view what);

/// The same for a view; Error(invalid_argument) too when the view has no buffer.
inline void require_same_device(const Device::Impl& device, const BufferView& view, const char* operation,
                                std::string_view what) {
  if (!view.buffer() || !belongs_to(view.buffer()->block(), device)) [[unlikely]]
    throw_unusable_view(device, view, operation, what);
}

/// Error(invalid_argument, operation, ...) unless `signal` holds a signal (not moved from) whose
/// memory is `device`'s: another device's signal is written by that device's queues, whose
/// fences are contexts of another file.
void require_usable_signal(const Device::Impl& device, const Signal& signal, const char* operation);

}  // namespace adreno
