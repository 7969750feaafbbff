#include "virt/gpu/backing.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace adreno::virt {
namespace {

std::byte* map_shared(int fd, std::uint64_t size) {
  void* addr = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return addr == MAP_FAILED ? nullptr : static_cast<std::byte*>(addr);
}

}  // namespace

std::shared_ptr<Backing> Backing::create(std::uint64_t size) {
  int fd = ::memfd_create("adreno-virtual-bo", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  std::byte* host = nullptr;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0 || ::fstat(fd, &st) != 0 ||
      (host = map_shared(fd, size)) == nullptr) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return nullptr;
  }
  return std::shared_ptr<Backing>(new Backing(fd, host, size, st.st_ino, true));
}

std::shared_ptr<Backing> Backing::import_fd(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return nullptr;
  if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
    errno = EINVAL;
    return nullptr;
  }
  int own = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) return nullptr;
  auto size = static_cast<std::uint64_t>(st.st_size);
  std::byte* host = map_shared(own, size);
  if (host == nullptr) {
    int saved = errno;
    ::close(own);
    errno = saved;
    return nullptr;
  }
  return std::shared_ptr<Backing>(new Backing(own, host, size, st.st_ino, true));
}

std::shared_ptr<Backing> Backing::wrap_user(void* ptr, std::uint64_t size) {
  return std::shared_ptr<Backing>(new Backing(-1, static_cast<std::byte*>(ptr), size, 0, false));
}

Backing::~Backing() {
  if (owns_mapping_) ::munmap(host_, size_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace adreno::virt
