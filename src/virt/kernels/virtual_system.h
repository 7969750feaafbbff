// A whole virtual system in one object: the syscall seam with one virtual node in it, the KGSL
// device at kVirtualKgslNode or the msm render node at kVirtualMsmNode.
#pragma once

#include "virt/kernels/virtual_gpu_config.h"
#include "virt/kernels/virtual_syscalls.h"

#include <memory>

namespace adreno::virt {

std::unique_ptr<VirtualSyscalls> make_virtual_kgsl_system(const VirtualGpuConfig& config);
std::unique_ptr<VirtualSyscalls> make_virtual_msm_system(const VirtualGpuConfig& config);

}  // namespace adreno::virt
