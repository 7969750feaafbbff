// An open virtual device node: what a `struct file` of the KGSL or msm driver is to the kernel.
// VirtualSyscalls routes ioctl/mmap/munmap on the node's descriptors here.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace adreno::virt {

class VirtualFile {
 public:
  virtual ~VirtualFile() = default;

  /// Handles one ioctl the way the driver does: 0 (or a positive result) or -errno.
  virtual int ioctl(unsigned long request, void* arg) = 0;

  /// Maps `length` bytes at the driver-defined `offset`; returns the CPU address or sets `error`.
  virtual void* mmap(std::size_t length, int prot, int flags, off_t offset, int& error) = 0;
  /// A mapping made by mmap() is going away (after the host munmap succeeded).
  virtual void munmapped(void* addr, std::size_t length) = 0;

  /// What fstat reports for the node (character device numbers of the real driver).
  virtual void stat(struct stat& out) const = 0;

  /// Objects still alive in this file, one line each — reported as leaks when it closes.
  virtual std::vector<std::string> live_objects() const = 0;
};

}  // namespace adreno::virt
