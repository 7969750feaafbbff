#include "kernel/kernel_error.h"

namespace adreno {

namespace {
// The kernel-internal ENOTSUPP (include/linux/errno.h), which KGSL's GPUOBJ_IMPORT returns to
// userspace (kgsl.c kgsl_ioctl_gpuobj_import for an unknown import type); libc has no name for it.
constexpr int kKernelEnotsupp = 524;
}  // namespace

Errc errc_for_errno(int error) noexcept {
  switch (error) {
    case ENOMEM: return Errc::out_of_memory;
    case ETIMEDOUT: return Errc::timeout;
    case EDEADLK:
    case EIO:
    case ENODEV: return Errc::device_lost;
    case ENOENT: return Errc::not_found;
    case EINVAL:
    case EFAULT:
    case E2BIG:
    case ERANGE: return Errc::invalid_argument;
    case ENOTTY:
    case EOPNOTSUPP:
    case kKernelEnotsupp: return Errc::unsupported;
    case EBUSY: return Errc::busy;
    default: return Errc::kernel_error;
  }
}

void throw_kernel_error(const std::string& operation, const std::string& detail, int ret) {
  int error = ret < 0 ? -ret : ret;
  throw Error(errc_for_errno(error), operation, detail, error);
}

}  // namespace adreno
