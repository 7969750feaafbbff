// adreno::Error (<adreno/error.hpp>): the error type of every layer, so it lives beneath them
// all — nothing that throws it needs core, or anything else, at link time.
#include <adreno/error.hpp>

#include <cstring>

namespace adreno {

std::string_view to_string(Errc code) noexcept {
  switch (code) {
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::not_found: return "not_found";
    case Errc::unsupported: return "unsupported";
    case Errc::out_of_memory: return "out_of_memory";
    case Errc::kernel_error: return "kernel_error";
    case Errc::timeout: return "timeout";
    case Errc::device_lost: return "device_lost";
    case Errc::malformed: return "malformed";
    case Errc::busy: return "busy";
  }
  return "unknown";
}

namespace {
std::string compose(Errc code, const std::string& operation, const std::string& detail, int sys_errno) {
  std::string text = operation + ": " + detail + " [" + std::string(to_string(code)) + "]";
  if (sys_errno != 0) {
    // Kernel-internal errnos that reach userspace (ENOTSUPP, 524) have no libc name.
    const char* name = ::strerrorname_np(sys_errno);
    text += " (errno " + std::to_string(sys_errno) + (name ? std::string(", ") + name : std::string()) + ": " +
            std::strerror(sys_errno) + ")";
  }
  return text;
}
}  // namespace

Error::Error(Errc code, std::string operation, std::string detail, int sys_errno)
    : std::runtime_error(compose(code, operation, detail, sys_errno)),
      code_(code),
      errno_(sys_errno),
      operation_(std::move(operation)),
      detail_(std::move(detail)) {}

}  // namespace adreno
