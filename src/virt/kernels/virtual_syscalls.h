// The syscall seam implemented in-process over virtual device nodes. Descriptors of virtual nodes
// are real eventfds, so their numbers never collide with real descriptors; calls on any other
// descriptor (dma-buf memfds, for example) go to libc. The object also keeps the ledger — every
// descriptor, mapping and driver object still alive — can make chosen ioctls and mmaps fail, and
// tells an observer (the test kit's call log) about every call on a virtual node. It stands in
// for the dma-buf core too: memfds play dma-bufs (the virtual kernels import any memfd), and
// DMA_BUF_IOCTL_SYNC, lseek and fstat on them answer as drivers/dma-buf/dma-buf.c does.
#pragma once

#include "sys/syscalls.h"
#include "virt/kernels/virtual_file.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace adreno::virt {

class VirtualSyscalls final : public sys::Syscalls {
 public:
  using NodeFactory = std::function<std::shared_ptr<VirtualFile>()>;

  /// A call on a virtual node (or one of its mappings), a DMA_BUF_IOCTL_SYNC on a dma-buf, or CPU
  /// cache maintenance of any range, after it returned.
  struct Call {
    enum class Kind { open, close, ioctl, mmap, munmap, cache_clean, cache_clean_invalidate };
    Kind kind;
    int fd = -1;                 ///< the descriptor (open: the new one)
    unsigned long request = 0;   ///< ioctl
    const void* arg = nullptr;   ///< ioctl: the argument, as the driver left it
    const char* path = nullptr;  ///< open
    void* address = nullptr;     ///< mmap (result), munmap, cache maintenance (the range's start)
    std::uint64_t length = 0;    ///< mmap, munmap, cache maintenance
    std::uint64_t offset = 0;    ///< mmap
    int result = 0;              ///< 0 (or a positive result) or -errno
    bool injected = false;       ///< the failure came from fail(), not the driver
  };
  using Observer = std::function<void(const Call&)>;

  /// Which calls fail, with which errno, before they reach the driver.
  struct Failure {
    enum class Schedule { nth, every, fraction };
    Call::Kind call = Call::Kind::ioctl;  ///< ioctl or mmap (of a virtual node)
    unsigned long request = 0;  ///< ioctl: 0 matches every ioctl
    Schedule schedule = Schedule::nth;
    unsigned nth = 1;           ///< nth: the nth (1-based) matching call from now, then never again
    double fraction = 0;        ///< fraction: each matching call fails with this probability,
    std::uint64_t seed = 0;     ///< drawn from a generator seeded with this
    int error = 0;
    /// ioctl: only calls this accepts (by request and argument) match, every call when empty;
    /// so one failure can stand for several ioctls, counted together. Runs with the seam's lock
    /// held: it must not call back into the seam.
    std::function<bool(unsigned long request, const void* arg)> matches;
  };

  /// `page_size`: the kernel's PAGE_SIZE, as page_size() reports it (the nodes added must be
  /// configured with the same one).
  explicit VirtualSyscalls(std::uint64_t page_size = 4096);
  ~VirtualSyscalls() override;

  /// Moves now() on by `step`, as if the calling thread had been away that long; the virtual
  /// kernels' own timing is not affected. For tests of how a backend spends a timeout.
  void advance_clock(std::chrono::nanoseconds step);
  /// Whether fstat of a dma-buf reports its size. Linux gives the dma-buf inode the buffer's size
  /// only since 5.3 (dma-buf.c dma_buf_getfile); older kernels, common on Android, report 0.
  void set_dmabuf_size_in_fstat(bool reported);

  /// Makes `path` a virtual node; each open() of it creates a new file from `factory`.
  void add_node(std::string path, NodeFactory factory);

  /// The `nth` (1-based) future call of ioctl `request` fails with `error` before reaching the
  /// driver. request 0 matches every ioctl.
  void fail_ioctl(unsigned long request, unsigned nth, int error);
  void fail(Failure failure);
  /// Cancels every failure set up with fail_ioctl() or fail() that has not fired yet.
  void clear_ioctl_failures();
  /// Calls of `request` so far (0: all ioctls).
  unsigned ioctl_count(unsigned long request) const;

  /// Everything still alive: open virtual descriptors, CPU mappings of virtual nodes, and driver
  /// objects of open files — plus objects that files still held when they were closed.
  std::vector<std::string> leaks() const;
  /// The live objects of every open file and the open descriptors, structured.
  std::vector<LiveObject> ledger() const;

  /// Tells `observer` about every call on a virtual node from now on (none when empty). It runs
  /// on the calling thread, without the seam's lock.
  void set_observer(Observer observer);

  int open(const char* path, int flags) override;
  int close(int fd) override;
  int ioctl_once(int fd, unsigned long request, void* arg) override;
  sys::MapResult mmap(std::size_t length, int prot, int flags, int fd, off_t offset) override;
  int munmap(void* addr, std::size_t length) override;
  int poll(struct pollfd* fds, nfds_t count, int timeout_ms) override;
  int dup(int fd) override;
  int fstat(int fd, struct stat* out) override;
  off_t lseek(int fd, off_t offset, int whence) override;
  std::uint64_t page_size() const override { return page_size_; }
  std::chrono::steady_clock::time_point now() const override;
  /// Tells the node whose mapping holds the range (which may write back lines it left dirty) and
  /// the observer (as a cache_clean / cache_clean_invalidate call); ranges in no mapping of a
  /// virtual node are only observed.
  void maintain_dcache(CacheMaintenance operation, const void* data, std::size_t size) noexcept override;

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
    Failure failure;
    unsigned seen = 0;  // matching calls so far
    std::mt19937_64 random;
  };
  std::shared_ptr<VirtualFile> file_for(int fd) const;
  /// The errno an injection makes this call fail with, or 0; fired nth injections go. Lock held.
  int injected_failure(Call::Kind call, unsigned long request, const void* arg);
  void notify(const Call& call) const;
  void release_file(const std::string& path, std::shared_ptr<VirtualFile> file);
  /// DMA_BUF_IOCTL_SYNC on a descriptor that is no virtual node: 0 or -errno.
  static int dmabuf_sync(int fd, const void* arg);

  const std::uint64_t page_size_;

  mutable std::mutex mutex_;
  std::map<std::string, NodeFactory> nodes_;
  std::map<int, Descriptor> descriptors_;
  std::map<void*, CpuMapping> mappings_;
  Observer observer_;
  std::map<unsigned long, unsigned> ioctl_counts_;
  unsigned total_ioctls_ = 0;
  std::vector<Injection> injections_;
  std::vector<std::string> closed_with_live_objects_;
  std::chrono::nanoseconds clock_offset_{0};
  bool dmabuf_size_in_fstat_ = true;
};

}  // namespace adreno::virt
