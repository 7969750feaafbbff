#include "sys/syscalls.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace adreno::sys {
namespace {

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
};

}  // namespace

Syscalls& real_syscalls() {
  static RealSyscalls instance;
  return instance;
}

}  // namespace adreno::sys
