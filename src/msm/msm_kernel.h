// MsmKernel: the kernel interface over an upstream msm DRM render node. Every ioctl goes through
// the syscall seam, so the same code runs against /dev/dri/renderD* and the virtual msm node.
#pragma once

#include "kernel/kernel.h"
#include "sys/syscalls.h"

#include <memory>
#include <string>
#include <vector>

namespace adreno {

/// Opens `path` through `sys` and checks that the msm driver is behind it. Throws
/// Errc::unsupported naming the driver found when it is another one, or the open's error.
std::unique_ptr<Kernel> open_msm_kernel(sys::Syscalls& sys, const std::string& path, bool is_virtual);

/// DRM render nodes libdrm's device enumeration reports, in its order. Not all of them are
/// msm: callers open each with open_msm_kernel and skip the ones it refuses as unsupported.
std::vector<std::string> msm_render_node_candidates();

}  // namespace adreno
