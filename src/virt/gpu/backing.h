// Host memory behind a virtual buffer object: what "physical pages" are to the real drivers.
// Kernel-allocated objects and dma-bufs are memfds, so a CPU mmap, an exported dma-buf fd and the
// GPU's view all share the same pages; imported user memory wraps the caller's pointer.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace adreno::virt {

class Backing {
 public:
  /// A new zero-filled memfd of `size` bytes; nullptr (errno set) when the host refuses.
  static std::shared_ptr<Backing> create(std::uint64_t size);
  /// The pages behind a dma-buf (here: any memfd or regular file) fd; the fd is duplicated.
  static std::shared_ptr<Backing> import_fd(int fd);
  /// The caller's memory; the caller keeps it alive (as with KGSL's user-memory import).
  static std::shared_ptr<Backing> wrap_user(void* ptr, std::uint64_t size);

  ~Backing();
  Backing(const Backing&) = delete;
  Backing& operator=(const Backing&) = delete;

  std::byte* host() const noexcept { return host_; }
  std::uint64_t size() const noexcept { return size_; }
  /// The memfd, or -1 for wrapped user memory.
  int fd() const noexcept { return fd_; }
  /// Identity of the underlying file (dma-buf deduplication), 0 for user memory.
  ino_t inode() const noexcept { return inode_; }

 private:
  Backing(int fd, std::byte* host, std::uint64_t size, ino_t inode, bool owns_mapping)
      : fd_(fd), host_(host), size_(size), inode_(inode), owns_mapping_(owns_mapping) {}

  int fd_;
  std::byte* host_;
  std::uint64_t size_;
  ino_t inode_;
  bool owns_mapping_;
};

}  // namespace adreno::virt
