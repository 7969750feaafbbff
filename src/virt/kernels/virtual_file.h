// An open virtual device node: what a `struct file` of the KGSL or msm driver is to the kernel.
// VirtualSyscalls routes ioctl/mmap/munmap on the node's descriptors here.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace adreno::virt {

/// One entry of the ledger: a driver object still alive.
struct LiveObject {
  enum class Kind { buffer, mapping, context, descriptor, sync_object };
  Kind kind;
  std::uint64_t id = 0;       ///< KGSL mem entry or context id, GEM handle, submitqueue id, fd, syncobj handle
  std::uint64_t size = 0;     ///< buffers and mappings: bytes
  std::uint64_t flags = 0;    ///< buffers: the driver's flags; contexts: their flags or priority
  std::uint64_t address = 0;  ///< buffers: GPU address (0 while it has none); mappings: CPU address
  std::string description;    ///< one line, as leaks are reported
};

class VirtualFile {
 public:
  virtual ~VirtualFile() = default;

  /// Handles one ioctl the way the driver does: 0 (or a positive result) or -errno.
  virtual int ioctl(unsigned long request, void* arg) = 0;

  /// Maps `length` bytes at the driver-defined `offset`; returns the CPU address or sets `error`.
  virtual void* mmap(std::size_t length, int prot, int flags, off_t offset, int& error) = 0;
  /// A mapping made by mmap() is going away (after the host munmap succeeded).
  virtual void munmapped(void* addr, std::size_t length) = 0;
  /// The CPU ran cache maintenance (DC CVAC / DC CIVAC) over `length` bytes at `offset` of the
  /// mapping made at `addr`. Nodes that model CPU cache lines the driver left dirty write those
  /// lines back now; the default has none.
  virtual void cache_maintained(void* addr, std::size_t offset, std::size_t length) noexcept {
    (void)addr;
    (void)offset;
    (void)length;
  }

  /// What fstat reports for the node (character device numbers of the real driver).
  virtual void stat(struct stat& out) const = 0;

  /// Objects still alive in this file: the ledger.
  virtual std::vector<LiveObject> ledger() const { return {}; }
  /// The ledger, one line each — reported as leaks when the file closes.
  virtual std::vector<std::string> live_objects() const {
    std::vector<std::string> lines;
    for (const LiveObject& object : ledger()) lines.push_back(object.description);
    return lines;
  }
};

}  // namespace adreno::virt
