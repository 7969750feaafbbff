// The syscall seam: every contact with a kernel goes through one of these objects. The real one
// calls libc; the virtual kernels (src/virt) implement the same calls in-process, so the KGSL and
// MSM backends run unchanged against either.
//
// Calls return what the kernel returns, without errno: a non-negative result, or -errno.
#pragma once

#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>

namespace adreno::sys {

struct MapResult {
  void* addr;  // nullptr on failure
  int error;   // errno when addr is nullptr, else 0
};

class Syscalls {
 public:
  virtual ~Syscalls() = default;

  virtual int open(const char* path, int flags) = 0;
  virtual int close(int fd) = 0;
  virtual int ioctl(int fd, unsigned long request, void* arg) = 0;
  virtual MapResult mmap(std::size_t length, int prot, int flags, int fd, off_t offset) = 0;
  virtual int munmap(void* addr, std::size_t length) = 0;
  virtual int poll(struct pollfd* fds, nfds_t count, int timeout_ms) = 0;
  virtual int dup(int fd) = 0;
  virtual int fstat(int fd, struct stat* out) = 0;
};

/// The process-wide libc implementation. ioctl and open are retried on EINTR and EAGAIN, as
/// libdrm's drmIoctl does (both drivers restart those ioctls); close is never retried, since
/// Linux releases the descriptor even when close reports EINTR.
Syscalls& real_syscalls();

}  // namespace adreno::sys
