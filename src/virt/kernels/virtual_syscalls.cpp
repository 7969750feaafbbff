#include "virt/kernels/virtual_syscalls.h"

#include <fcntl.h>
#include <linux/dma-buf.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace adreno::virt {

namespace {

// What the virtual kernels import as a dma-buf (Backing::import_fd): a memfd or regular file.
bool is_dmabuf(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

VirtualSyscalls::VirtualSyscalls(std::uint64_t page_size) : page_size_(page_size) {}

VirtualSyscalls::~VirtualSyscalls() {
  // Whatever the user did not close is torn down like a process exit would.
  for (auto& [addr, mapping] : mappings_) ::munmap(addr, mapping.length);
  for (auto& [fd, descriptor] : descriptors_) ::close(fd);
}

void VirtualSyscalls::add_node(std::string path, NodeFactory factory) {
  std::lock_guard lock(mutex_);
  nodes_[std::move(path)] = std::move(factory);
}

void VirtualSyscalls::fail_ioctl(unsigned long request, unsigned nth, int error) {
  Failure failure;
  failure.request = request;
  failure.nth = nth;
  failure.error = error;
  fail(std::move(failure));
}

void VirtualSyscalls::fail(Failure failure) {
  std::lock_guard lock(mutex_);
  const std::uint64_t seed = failure.seed;
  injections_.push_back(Injection{std::move(failure), 0, std::mt19937_64(seed)});
}

int VirtualSyscalls::injected_failure(Call::Kind call, unsigned long request, const void* arg) {
  for (auto it = injections_.begin(); it != injections_.end(); ++it) {
    const Failure& failure = it->failure;
    if (failure.call != call) continue;
    if (call == Call::Kind::ioctl && failure.request != 0 && failure.request != request) continue;
    if (failure.matches && !failure.matches(request, arg)) continue;
    ++it->seen;
    switch (failure.schedule) {
      case Failure::Schedule::nth:
        if (it->seen == failure.nth) {
          const int error = failure.error;
          injections_.erase(it);
          return error;
        }
        break;
      case Failure::Schedule::every: return failure.error;
      case Failure::Schedule::fraction:
        // 53 random bits as a double in [0, 1): the same sequence on every host for one seed.
        if (static_cast<double>(it->random() >> 11) * 0x1.0p-53 < failure.fraction) return failure.error;
        break;
    }
  }
  return 0;
}

void VirtualSyscalls::set_observer(Observer observer) {
  std::lock_guard lock(mutex_);
  observer_ = std::move(observer);
}

void VirtualSyscalls::notify(const Call& call) const {
  Observer observer;
  {
    std::lock_guard lock(mutex_);
    observer = observer_;
  }
  if (observer) observer(call);
}

void VirtualSyscalls::clear_ioctl_failures() {
  std::lock_guard lock(mutex_);
  injections_.clear();
}

unsigned VirtualSyscalls::ioctl_count(unsigned long request) const {
  std::lock_guard lock(mutex_);
  if (request == 0) return total_ioctls_;
  auto it = ioctl_counts_.find(request);
  return it == ioctl_counts_.end() ? 0 : it->second;
}

std::vector<std::string> VirtualSyscalls::leaks() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> found = closed_with_live_objects_;
  for (const auto& [fd, descriptor] : descriptors_) {
    found.push_back("open descriptor " + std::to_string(fd) + " of " + descriptor.path);
  }
  for (const auto& [addr, mapping] : mappings_) {
    char text[64];
    std::snprintf(text, sizeof text, "CPU mapping at %p (%zu bytes)", addr, mapping.length);
    found.emplace_back(text);
  }
  std::vector<const VirtualFile*> seen;
  for (const auto& [fd, descriptor] : descriptors_) {
    if (std::find(seen.begin(), seen.end(), descriptor.file.get()) != seen.end()) continue;
    seen.push_back(descriptor.file.get());
    for (auto& object : descriptor.file->live_objects()) found.push_back(descriptor.path + ": " + object);
  }
  return found;
}

std::vector<LiveObject> VirtualSyscalls::ledger() const {
  std::lock_guard lock(mutex_);
  std::vector<LiveObject> found;
  std::vector<const VirtualFile*> seen;
  for (const auto& [fd, descriptor] : descriptors_) {
    found.push_back(LiveObject{LiveObject::Kind::descriptor, static_cast<std::uint64_t>(fd), 0, 0, 0,
                               "open descriptor " + std::to_string(fd) + " of " + descriptor.path});
    if (std::find(seen.begin(), seen.end(), descriptor.file.get()) != seen.end()) continue;
    seen.push_back(descriptor.file.get());
    for (auto& object : descriptor.file->ledger()) found.push_back(std::move(object));
  }
  return found;
}

std::shared_ptr<VirtualFile> VirtualSyscalls::file_for(int fd) const {
  std::lock_guard lock(mutex_);
  auto it = descriptors_.find(fd);
  return it == descriptors_.end() ? nullptr : it->second.file;
}

int VirtualSyscalls::open(const char* path, int flags) {
  NodeFactory factory;
  {
    std::lock_guard lock(mutex_);
    auto it = nodes_.find(path);
    if (it == nodes_.end()) return -ENOENT;  // only virtual nodes exist in a virtual system
    factory = it->second;
  }
  (void)flags;
  int fd = ::eventfd(0, EFD_CLOEXEC);
  if (fd < 0) return -errno;
  {
    std::lock_guard lock(mutex_);
    descriptors_[fd] = Descriptor{path, factory()};
  }
  Call call{Call::Kind::open};
  call.fd = fd;
  call.path = path;
  notify(call);
  return fd;
}

void VirtualSyscalls::release_file(const std::string& path, std::shared_ptr<VirtualFile> file) {
  // Called with the lock held. The last descriptor of a file closes it: whatever it still holds
  // would be freed by the driver's release(), and is a leak of the user.
  bool still_open = std::any_of(descriptors_.begin(), descriptors_.end(),
                                [&](const auto& entry) { return entry.second.file == file; }) ||
                    std::any_of(mappings_.begin(), mappings_.end(),
                                [&](const auto& entry) { return entry.second.file == file; });
  if (still_open) return;
  for (auto& object : file->live_objects()) closed_with_live_objects_.push_back(path + " (closed): " + object);
}

int VirtualSyscalls::close(int fd) {
  {
    std::lock_guard lock(mutex_);
    auto it = descriptors_.find(fd);
    if (it == descriptors_.end()) return ::close(fd) == 0 ? 0 : -errno;
    Descriptor descriptor = std::move(it->second);
    descriptors_.erase(it);
    ::close(fd);
    release_file(descriptor.path, std::move(descriptor.file));
  }
  Call call{Call::Kind::close};
  call.fd = fd;
  notify(call);
  return 0;
}

int VirtualSyscalls::dmabuf_sync(int fd, const void* arg) {
  // drivers/dma-buf/dma-buf.c dma_buf_ioctl: the request exists only on dma-buf files (any other
  // file answers -ENOTTY); flags outside DMA_BUF_SYNC_VALID_FLAGS_MASK, or naming neither READ
  // nor WRITE, are -EINVAL. START (no END bit) begins CPU access, END ends it; the virtual
  // dma-bufs are host memory, so neither has cache work to do.
  if (!is_dmabuf(fd)) return -ENOTTY;
  if (arg == nullptr) return -EFAULT;
  dma_buf_sync sync;
  std::memcpy(&sync, arg, sizeof sync);
  if (sync.flags & ~static_cast<std::uint64_t>(DMA_BUF_SYNC_VALID_FLAGS_MASK)) return -EINVAL;
  if ((sync.flags & DMA_BUF_SYNC_RW) == 0) return -EINVAL;
  return 0;
}

int VirtualSyscalls::ioctl_once(int fd, unsigned long request, void* arg) {
  std::shared_ptr<VirtualFile> file = file_for(fd);
  int injected = 0;
  {
    std::lock_guard lock(mutex_);
    ++ioctl_counts_[request];
    ++total_ioctls_;
    injected = injected_failure(Call::Kind::ioctl, request, arg);
  }
  const bool dmabuf = !file && request == DMA_BUF_IOCTL_SYNC;
  if (!file && !dmabuf) {
    if (injected != 0) return -injected;
    return ::ioctl(fd, request, arg) >= 0 ? 0 : -errno;
  }
  const int result = injected != 0 ? -injected : dmabuf ? dmabuf_sync(fd, arg) : file->ioctl(request, arg);
  Call call{Call::Kind::ioctl};
  call.fd = fd;
  call.request = request;
  call.arg = arg;
  call.result = result;
  call.injected = injected != 0;
  notify(call);
  return result;
}

sys::MapResult VirtualSyscalls::mmap(std::size_t length, int prot, int flags, int fd, off_t offset) {
  std::shared_ptr<VirtualFile> file = file_for(fd);
  if (!file) {
    void* addr = ::mmap(nullptr, length, prot, flags, fd, offset);
    return addr == MAP_FAILED ? sys::MapResult{nullptr, errno} : sys::MapResult{addr, 0};
  }
  int injected = 0;
  {
    std::lock_guard lock(mutex_);
    injected = injected_failure(Call::Kind::mmap, 0, nullptr);
  }
  int error = injected;
  void* addr = injected != 0 ? nullptr : file->mmap(length, prot, flags, offset, error);
  if (addr != nullptr) {
    std::lock_guard lock(mutex_);
    mappings_[addr] = CpuMapping{length, std::move(file)};
  }
  Call call{Call::Kind::mmap};
  call.fd = fd;
  call.address = addr;
  call.length = length;
  call.offset = static_cast<std::uint64_t>(offset);
  call.result = -error;
  call.injected = injected != 0;
  notify(call);
  return {addr, error};
}

int VirtualSyscalls::munmap(void* addr, std::size_t length) {
  std::shared_ptr<VirtualFile> file;
  {
    std::lock_guard lock(mutex_);
    auto it = mappings_.find(addr);
    if (it != mappings_.end()) {
      if (it->second.length != length) return -EINVAL;  // partial unmaps of BO mappings: not modelled
      file = it->second.file;
      mappings_.erase(it);
    }
  }
  if (::munmap(addr, length) != 0) return -errno;
  if (file) {
    file->munmapped(addr, length);
    std::lock_guard lock(mutex_);
    // A file whose descriptors are all closed lives on through its mappings, as in the kernel.
    bool open = std::any_of(descriptors_.begin(), descriptors_.end(),
                            [&](const auto& entry) { return entry.second.file == file; });
    if (!open) release_file("(unmapped)", file);
  }
  if (file) {
    Call call{Call::Kind::munmap};
    call.address = addr;
    call.length = length;
    notify(call);
  }
  return 0;
}

int VirtualSyscalls::poll(struct pollfd* fds, nfds_t count, int timeout_ms) {
  int ret = ::poll(fds, count, timeout_ms);
  return ret >= 0 ? ret : -errno;
}

int VirtualSyscalls::dup(int fd) {
  std::lock_guard lock(mutex_);
  auto it = descriptors_.find(fd);
  if (it == descriptors_.end()) {
    int ret = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    return ret >= 0 ? ret : -errno;
  }
  int copy = ::eventfd(0, EFD_CLOEXEC);
  if (copy < 0) return -errno;
  descriptors_[copy] = it->second;
  return copy;
}

int VirtualSyscalls::fstat(int fd, struct stat* out) {
  std::shared_ptr<VirtualFile> file = file_for(fd);
  if (!file) {
    if (::fstat(fd, out) != 0) return -errno;
    bool size_reported;
    {
      std::lock_guard lock(mutex_);
      size_reported = dmabuf_size_in_fstat_;
    }
    if (!size_reported && S_ISREG(out->st_mode)) out->st_size = 0;
    return 0;
  }
  *out = {};
  file->stat(*out);
  return 0;
}

off_t VirtualSyscalls::lseek(int fd, off_t offset, int whence) {
  // dma-buf.c dma_buf_llseek: only the size can be learnt (SEEK_END) and the offset put back
  // (SEEK_SET), both with offset 0; anything else is -EINVAL. Seeking a virtual node is not
  // modelled: no backend does it.
  if (file_for(fd)) return -ESPIPE;
  if (is_dmabuf(fd) && (offset != 0 || (whence != SEEK_END && whence != SEEK_SET))) return -EINVAL;
  const off_t ret = ::lseek(fd, offset, whence);
  return ret >= 0 ? ret : -errno;
}

void VirtualSyscalls::advance_clock(std::chrono::nanoseconds step) {
  std::lock_guard lock(mutex_);
  clock_offset_ += step;
}

void VirtualSyscalls::set_dmabuf_size_in_fstat(bool reported) {
  std::lock_guard lock(mutex_);
  dmabuf_size_in_fstat_ = reported;
}

std::chrono::steady_clock::time_point VirtualSyscalls::now() const {
  std::lock_guard lock(mutex_);
  return std::chrono::steady_clock::now() + clock_offset_;
}

void VirtualSyscalls::maintain_dcache(CacheMaintenance operation, const void* data, std::size_t size) noexcept {
  void* mapping = nullptr;
  std::size_t offset = 0;
  std::shared_ptr<VirtualFile> file;
  {
    std::lock_guard lock(mutex_);
    // The mapping starting at or below `data`; the range must lie inside it.
    auto it = mappings_.upper_bound(const_cast<void*>(data));
    if (it != mappings_.begin()) {
      --it;
      offset = static_cast<std::size_t>(static_cast<const std::byte*>(data) - static_cast<const std::byte*>(it->first));
      if (offset + size <= it->second.length) {
        mapping = it->first;
        file = it->second.file;
      }
    }
  }
  if (file) file->cache_maintained(mapping, offset, size);
  Call call{operation == CacheMaintenance::clean ? Call::Kind::cache_clean : Call::Kind::cache_clean_invalidate};
  call.address = const_cast<void*>(data);
  call.length = size;
  notify(call);
}

}  // namespace adreno::virt
