// [pure] Kernel errnos become typed errors that name the operation, the object and the errno.
#include "kernel/kernel_error.h"

#include <catch2/catch.hpp>

using adreno::Errc;

TEST_CASE("each kernel errno maps to its error kind", "[pure][errors]") {
  struct Case {
    int error;
    const char* name;
    Errc code;
  };
  const Case table[] = {
      {ENOMEM, "ENOMEM", Errc::out_of_memory}, {ETIMEDOUT, "ETIMEDOUT", Errc::timeout},
      {EDEADLK, "EDEADLK", Errc::device_lost}, {EIO, "EIO", Errc::device_lost},
      {ENOENT, "ENOENT", Errc::not_found},     {EINVAL, "EINVAL", Errc::invalid_argument},
      {ENOTTY, "ENOTTY", Errc::unsupported},   {EBUSY, "EBUSY", Errc::busy},
      {EPERM, "EPERM", Errc::kernel_error},    {ENODEV, "ENODEV", Errc::device_lost},
      {EFAULT, "EFAULT", Errc::invalid_argument}, {E2BIG, "E2BIG", Errc::invalid_argument},
      {ERANGE, "ERANGE", Errc::invalid_argument}, {EOPNOTSUPP, "EOPNOTSUPP", Errc::unsupported},
      {524, "524", Errc::unsupported},  // the kernel's ENOTSUPP (include/linux/errno.h), no libc name
      {EINTR, "EINTR", Errc::kernel_error},   {EAGAIN, "EAGAIN", Errc::kernel_error},
      {ENOSPC, "ENOSPC", Errc::kernel_error}, {EBADF, "EBADF", Errc::kernel_error},
  };
  for (auto [error, name, code] : table) {
    INFO(error);
    try {
      adreno::throw_kernel_error("KGSL IOCTL_KGSL_GPUOBJ_ALLOC", "size 4096", -error);
      FAIL("did not throw");
    } catch (const adreno::Error& thrown) {
      CHECK(thrown.code() == code);
      CHECK(thrown.sys_errno() == error);
      CHECK(thrown.operation() == "KGSL IOCTL_KGSL_GPUOBJ_ALLOC");
      const std::string text = thrown.what();
      CHECK(text.find("size 4096") != std::string::npos);
      CHECK(text.find(name) != std::string::npos);
    }
  }
}
