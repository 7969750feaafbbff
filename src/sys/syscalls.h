// The syscall seam: every contact with a kernel goes through one of these objects. The real one
// calls libc; the virtual kernels (src/virt) implement the same calls in-process, so the KGSL and
// MSM backends run unchanged against either. CPU cache maintenance of buffer mappings goes
// through it too: it is no system call, but it is half of the contract with the driver about
// memory the GPU does not snoop, and the virtual kernels model what happens without it.
//
// Calls return what the kernel returns, without errno: a non-negative result, or -errno.
#pragma once

#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace adreno::sys {

struct MapResult {
  void* addr;  // nullptr on failure
  int error;   // errno when addr is nullptr, else 0
};

/// Calls `attempt` (returning a result or -errno) again for as long as it answers -EINTR or
/// -EAGAIN, and returns the first other answer: libdrm's drmIoctl policy (xf86drm.c), which
/// Turnip's safe_ioctl (tu_knl_kgsl.cc) follows for KGSL. Both drivers restart those calls.
template <typename Attempt>
int retry_transient(Attempt&& attempt) {
  for (;;) {
    const int ret = attempt();
    if (ret != -EINTR && ret != -EAGAIN) return ret;
  }
}

class Syscalls {
 public:
  virtual ~Syscalls() = default;

  virtual int open(const char* path, int flags) = 0;
  virtual int close(int fd) = 0;
  /// An ioctl, asked again with the same arguments while interrupted (retry_transient). Both
  /// seams go through here, so an EINTR the virtual one injects meets the same policy as a real one.
  int ioctl(int fd, unsigned long request, void* arg) {
    return retry_transient([&] { return ioctl_once(fd, request, arg); });
  }
  /// One ioctl: EINTR and EAGAIN reach the caller. For requests whose arguments must change
  /// before they are asked again — a relative timeout, as in KGSL's WAITTIMESTAMP.
  virtual int ioctl_once(int fd, unsigned long request, void* arg) = 0;
  virtual MapResult mmap(std::size_t length, int prot, int flags, int fd, off_t offset) = 0;
  virtual int munmap(void* addr, std::size_t length) = 0;
  virtual int poll(struct pollfd* fds, nfds_t count, int timeout_ms) = 0;
  virtual int dup(int fd) = 0;
  virtual int fstat(int fd, struct stat* out) = 0;
  /// The new file offset, or -errno. A dma-buf answers SEEK_END with its size.
  virtual off_t lseek(int fd, off_t offset, int whence) = 0;
  /// The kernel's page size (PAGE_SIZE): the unit of its allocations and of mmap offsets.
  virtual std::uint64_t page_size() const = 0;
  /// The monotonic clock that relative kernel timeouts are measured against.
  virtual std::chrono::steady_clock::time_point now() const = 0;

  /// CPU cache maintenance by virtual address, to the point of coherency, over every cache line
  /// that [data, data+size) touches of a cached, non-coherent mapping. `clean` writes dirty lines
  /// back (before the GPU reads what the CPU wrote); `clean_invalidate` writes them back and
  /// discards them (before the CPU reads what the GPU wrote). Either writes a dirty line back,
  /// whatever the line holds.
  enum class CacheMaintenance { clean, clean_invalidate };
  virtual void maintain_dcache(CacheMaintenance operation, const void* data, std::size_t size) noexcept = 0;
};

/// The process-wide libc implementation. ioctl follows retry_transient, open is retried on EINTR;
/// close is never retried, since Linux releases the descriptor even when close reports EINTR.
Syscalls& real_syscalls();

}  // namespace adreno::sys
