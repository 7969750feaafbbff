#include "sys/syscalls.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace adreno::sys {
namespace {

bool is_transient(int error) { return error == EINTR || error == EAGAIN; }

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

  int ioctl(int fd, unsigned long request, void* arg) override {
    for (;;) {
      int ret = ::ioctl(fd, request, arg);
      if (ret >= 0) return ret;
      if (!is_transient(errno)) return -errno;
    }
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
};

}  // namespace

Syscalls& real_syscalls() {
  static RealSyscalls instance;
  return instance;
}

}  // namespace adreno::sys
