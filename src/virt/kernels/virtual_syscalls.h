// The syscall seam implemented in-process over virtual device nodes. Descriptors of virtual nodes
// are real eventfds, so their numbers never collide with real descriptors; calls on any other
// descriptor (dma-buf memfds, for example) go to libc. The object also keeps the ledger — every
// descriptor, mapping and driver object still alive — and can make chosen ioctls fail.
#pragma once

#include "sys/syscalls.h"
#include "virt/kernels/virtual_file.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace adreno::virt {

class VirtualSyscalls final : public sys::Syscalls {
 public:
  using NodeFactory = std::function<std::shared_ptr<VirtualFile>()>;

  VirtualSyscalls();
  ~VirtualSyscalls() override;

  /// Makes `path` a virtual node; each open() of it creates a new file from `factory`.
  void add_node(std::string path, NodeFactory factory);

  /// The `nth` (1-based) future call of ioctl `request` fails with `error` before reaching the
  /// driver. request 0 matches every ioctl.
  void fail_ioctl(unsigned long request, unsigned nth, int error);
  /// Cancels every failure set up with fail_ioctl() that has not fired yet.
  void clear_ioctl_failures();
  /// Calls of `request` so far (0: all ioctls).
  unsigned ioctl_count(unsigned long request) const;

  /// Everything still alive: open virtual descriptors, CPU mappings of virtual nodes, and driver
  /// objects of open files — plus objects that files still held when they were closed.
  std::vector<std::string> leaks() const;

  int open(const char* path, int flags) override;
  int close(int fd) override;
  int ioctl(int fd, unsigned long request, void* arg) override;
  sys::MapResult mmap(std::size_t length, int prot, int flags, int fd, off_t offset) override;
  int munmap(void* addr, std::size_t length) override;
  int poll(struct pollfd* fds, nfds_t count, int timeout_ms) override;
  int dup(int fd) override;
  int fstat(int fd, struct stat* out) override;

 private:
  struct Descriptor {
    std::string path;
    std::shared_ptr<VirtualFile> file;
  };
  struct CpuMapping {
    std::size_t length;
    std::shared_ptr<VirtualFile> file;
  };
  struct Injection {
    unsigned long request;
    unsigned at;  // fails when the count of matching calls reaches this
    int error;
  };
  std::shared_ptr<VirtualFile> file_for(int fd) const;
  void release_file(const std::string& path, std::shared_ptr<VirtualFile> file);

  mutable std::mutex mutex_;
  std::map<std::string, NodeFactory> nodes_;
  std::map<int, Descriptor> descriptors_;
  std::map<void*, CpuMapping> mappings_;
  std::map<unsigned long, unsigned> ioctl_counts_;
  unsigned total_ioctls_ = 0;
  std::vector<Injection> injections_;
  std::vector<std::string> closed_with_live_objects_;
};

}  // namespace adreno::virt
