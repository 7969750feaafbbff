// Turning a kernel's -errno into a typed Error, the same way for every backend.
#pragma once

#include <adreno/error.hpp>

#include <cerrno>
#include <string>

namespace adreno {

/// The Errc a kernel errno maps to: ENOMEM → out_of_memory, ETIMEDOUT → timeout,
/// EDEADLK/EIO/ENODEV → device_lost (a reset or dead GPU), ENOENT → not_found,
/// EINVAL/EFAULT/E2BIG/ERANGE → invalid_argument, ENOTTY/EOPNOTSUPP → unsupported, EBUSY → busy.
Errc errc_for_errno(int error) noexcept;

/// Throws the typed error for a failed kernel call; `ret` is the seam's -errno.
[[noreturn]] void throw_kernel_error(const std::string& operation, const std::string& detail, int ret);

}  // namespace adreno
