#include "sys/syscalls.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace adreno::sys {
namespace {

#if defined(__aarch64__)
// CTR_EL0.DminLine (bits 19:16) is log2 of the smallest data cache line in 4-byte words.
std::size_t dcache_line_bytes() noexcept {
  std::uint64_t ctr;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return std::size_t{4} << ((ctr >> 16) & 0xf);
}
#endif

class RealSyscalls final : public Syscalls {
 public:
  int open(const char* path, int flags) override {
    for (;;) {
      int fd = ::open(path, flags | O_CLOEXEC);
      if (fd >= 0) return fd;
      if (errno != EINTR) return -errno;
    }
  }

  int close(int fd) override { return ::close(fd) == 0 ? 0 : -errno; }

  int ioctl_once(int fd, unsigned long request, void* arg) override {
    const int ret = ::ioctl(fd, request, arg);
    return ret >= 0 ? ret : -errno;
  }

  MapResult mmap(std::size_t length, int prot, int flags, int fd, off_t offset) override {
    void* addr = ::mmap(nullptr, length, prot, flags, fd, offset);
    if (addr == MAP_FAILED) return {nullptr, errno};
    return {addr, 0};
  }

  int munmap(void* addr, std::size_t length) override { return ::munmap(addr, length) == 0 ? 0 : -errno; }

  int poll(struct pollfd* fds, nfds_t count, int timeout_ms) override {
    int ret = ::poll(fds, count, timeout_ms);
    return ret >= 0 ? ret : -errno;
  }

  int dup(int fd) override {
    int ret = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    return ret >= 0 ? ret : -errno;
  }

  int fstat(int fd, struct stat* out) override { return ::fstat(fd, out) == 0 ? 0 : -errno; }

  off_t lseek(int fd, off_t offset, int whence) override {
    const off_t ret = ::lseek(fd, offset, whence);
    return ret >= 0 ? ret : -errno;
  }

  std::uint64_t page_size() const override {
    static const auto size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    return size;
  }

  std::chrono::steady_clock::time_point now() const override { return std::chrono::steady_clock::now(); }

  // DC CVAC / DC CIVAC, which Linux lets user space execute (SCTLR_EL1.UCI), line by line, then a
  // DSB so the maintenance completes before what follows. Other hosts do nothing: x86 caches are
  // coherent with devices, and a virtual GPU on such a host shares the CPU's view of memory.
  void maintain_dcache(CacheMaintenance operation, const void* data, std::size_t size) noexcept override {
#if defined(__aarch64__)
    const std::size_t line = dcache_line_bytes();
    const auto end = reinterpret_cast<std::uintptr_t>(data) + size;
    for (auto address = reinterpret_cast<std::uintptr_t>(data) & ~(line - 1); address < end; address += line) {
      if (operation == CacheMaintenance::clean) {
        asm volatile("dc cvac, %0" ::"r"(address) : "memory");
      } else {
        asm volatile("dc civac, %0" ::"r"(address) : "memory");
      }
    }
    asm volatile("dsb sy" ::: "memory");
#else
    (void)operation;
    (void)data;
    (void)size;
#endif
  }
};

}  // namespace

Syscalls& real_syscalls() {
  static RealSyscalls instance;
  return instance;
}

}  // namespace adreno::sys
