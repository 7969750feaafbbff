// Typed errors. Every failure the library reports is an adreno::Error that names the operation
// that failed, what it was working on, and — where the kernel refused — the errno it returned.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace adreno {

/// What kind of failure this is; stable for programs to branch on.
enum class Errc {
  invalid_argument,  ///< the caller passed something out of range or inconsistent
  not_found,         ///< no device, object or entry with that name or id
  unsupported,       ///< the kernel, GPU or backend cannot do this
  out_of_memory,     ///< host or GPU memory exhausted
  kernel_error,      ///< the kernel refused a request (see sys_errno())
  timeout,           ///< a wait ran out of time
  device_lost,       ///< the GPU faulted or hung; the context is unusable (sticky)
  malformed,         ///< a binary, stream or file is malformed (names the field)
  busy,              ///< the object is still in use by the GPU
};

/// Returns a short, stable name for an error kind ("kernel_error", ...).
std::string_view to_string(Errc code) noexcept;

class Error : public std::runtime_error {
 public:
  /// `operation` names what was being done ("KGSL GPUOBJ_ALLOC"), `detail` the object or field.
  /// `sys_errno` is the kernel's errno, or 0 when none applies.
  Error(Errc code, std::string operation, std::string detail, int sys_errno = 0);

  Errc code() const noexcept { return code_; }
  int sys_errno() const noexcept { return errno_; }
  const std::string& operation() const noexcept { return operation_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  Errc code_;
  int errno_;
  std::string operation_;
  std::string detail_;
};

}  // namespace adreno
