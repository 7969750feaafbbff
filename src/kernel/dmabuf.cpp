#include "kernel/dmabuf.h"

#include "kernel/kernel_error.h"

#include <unistd.h>

namespace adreno {

std::uint64_t dmabuf_size(sys::Syscalls& sys, int fd, const std::string& operation) {
  const std::string detail = "fd " + std::to_string(fd);
  const off_t end = sys.lseek(fd, 0, SEEK_END);
  if (end < 0) throw_kernel_error(operation + " lseek", detail, static_cast<int>(end));
  if (const off_t start = sys.lseek(fd, 0, SEEK_SET); start < 0) {
    throw_kernel_error(operation + " lseek", detail, static_cast<int>(start));
  }
  if (end == 0) throw Error(Errc::invalid_argument, operation, detail + " has no size; not a dma-buf");
  return static_cast<std::uint64_t>(end);
}

}  // namespace adreno
