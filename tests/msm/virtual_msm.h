// Test support for the MSM backend on the virtual msm node: the virtual system with its node,
// and hand-encoded PM4 (opcodes and fields from Mesa src/freedreno/registers/adreno/adreno_pm4.xml).
#pragma once

#include "msm/msm_abi.h"
#include "msm/msm_kernel.h"
#include "pm4/packet.h"
#include "virt/kernels/msm_device.h"
#include "virt/kernels/virtual_syscalls.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace msm_test {

using adreno::GpuAddress;
using adreno::pm4::type7_header;

inline constexpr std::uint32_t CP_WAIT_REG_MEM = 0x3c, CP_MEM_WRITE = 0x3d, CP_EVENT_WRITE = 0x46,
                               CACHE_FLUSH_TS = 4;
// CP_WAIT_REG_MEM_0: FUNCTION WRITE_EQ (3), POLL POLL_MEMORY (1 << 4).
inline constexpr std::uint32_t kWaitMemoryEqual = 3 | (1u << 4);

/// What the backend handed the kernel: a seam in front of the virtual system that keeps a copy
/// of every GEM_NEW request and every GEM_SUBMIT's tables on their way down.
class RecordingSyscalls final : public adreno::sys::Syscalls {
 public:
  struct Submission {
    adreno::msm::uapi::drm_msm_gem_submit args;
    std::vector<adreno::msm::uapi::drm_msm_gem_submit_bo> bos;
    std::vector<adreno::msm::uapi::drm_msm_gem_submit_cmd> cmds;
  };

  explicit RecordingSyscalls(adreno::sys::Syscalls& inner) : inner_(inner) {}

  std::vector<adreno::msm::uapi::drm_msm_gem_new> gem_news() const {
    std::lock_guard lock(mutex_);
    return gem_news_;
  }
  std::vector<Submission> submissions() const {
    std::lock_guard lock(mutex_);
    return submissions_;
  }

  int open(const char* path, int flags) override { return inner_.open(path, flags); }
  int close(int fd) override { return inner_.close(fd); }
  int ioctl_once(int fd, unsigned long request, void* arg) override {
    namespace uapi = adreno::msm::uapi;
    std::unique_lock lock(mutex_);
    if (request == uapi::DRM_IOCTL_MSM_GEM_NEW) gem_news_.push_back(*static_cast<uapi::drm_msm_gem_new*>(arg));
    if (request == uapi::DRM_IOCTL_MSM_GEM_SUBMIT) {
      const auto& args = *static_cast<uapi::drm_msm_gem_submit*>(arg);
      const auto* bos = reinterpret_cast<const uapi::drm_msm_gem_submit_bo*>(static_cast<std::uintptr_t>(args.bos));
      const auto* cmds = reinterpret_cast<const uapi::drm_msm_gem_submit_cmd*>(static_cast<std::uintptr_t>(args.cmds));
      submissions_.push_back(Submission{args, {bos, bos + args.nr_bos}, {cmds, cmds + args.nr_cmds}});
    }
    lock.unlock();
    return inner_.ioctl_once(fd, request, arg);
  }
  adreno::sys::MapResult mmap(std::size_t length, int prot, int flags, int fd, off_t offset) override {
    return inner_.mmap(length, prot, flags, fd, offset);
  }
  int munmap(void* addr, std::size_t length) override { return inner_.munmap(addr, length); }
  int poll(struct pollfd* fds, nfds_t count, int timeout_ms) override { return inner_.poll(fds, count, timeout_ms); }
  int dup(int fd) override { return inner_.dup(fd); }
  int fstat(int fd, struct stat* out) override { return inner_.fstat(fd, out); }
  off_t lseek(int fd, off_t offset, int whence) override { return inner_.lseek(fd, offset, whence); }
  std::uint64_t page_size() const override { return inner_.page_size(); }
  std::chrono::steady_clock::time_point now() const override { return inner_.now(); }
  void maintain_dcache(CacheMaintenance operation, const void* data, std::size_t size) noexcept override {
    inner_.maintain_dcache(operation, data, size);
  }

 private:
  adreno::sys::Syscalls& inner_;
  mutable std::mutex mutex_;
  std::vector<adreno::msm::uapi::drm_msm_gem_new> gem_news_;
  std::vector<Submission> submissions_;
};

struct VirtualMsm {
  explicit VirtualMsm(adreno::virt::VirtualGpuConfig config = {}, adreno::virt::MsmNodeOptions options = {}) {
    sys.add_node(adreno::virt::kVirtualMsmNode, adreno::virt::make_virtual_msm_node(config, options));
  }
  /// The backend, opened through the recording seam.
  std::unique_ptr<adreno::Kernel> open() {
    return adreno::open_msm_kernel(recorder, adreno::virt::kVirtualMsmNode, true);
  }

  adreno::virt::VirtualSyscalls sys;
  RecordingSyscalls recorder{sys};
};

/// A PM4 stream under construction.
struct Pm4 {
  std::vector<std::uint32_t> words;

  Pm4& mem_write(GpuAddress at, const std::vector<std::uint32_t>& values) {
    words.push_back(type7_header(CP_MEM_WRITE, static_cast<std::uint32_t>(2 + values.size())));
    words.push_back(at.lo());
    words.push_back(at.hi());
    words.insert(words.end(), values.begin(), values.end());
    return *this;
  }
  Pm4& flush_ts(GpuAddress at, std::uint32_t value) {
    words.insert(words.end(), {type7_header(CP_EVENT_WRITE, 4), CACHE_FLUSH_TS, at.lo(), at.hi(), value});
    return *this;
  }
  /// A packet no CP knows (type-7 opcode 0x7f): a CP error.
  Pm4& illegal() {
    words.push_back(type7_header(0x7f, 0));
    return *this;
  }
  Pm4& wait_equal(GpuAddress at, std::uint32_t value) {
    words.insert(words.end(), {type7_header(CP_WAIT_REG_MEM, 6), kWaitMemoryEqual, at.lo(), at.hi(), value, 0xffffffff, 16});
    return *this;
  }
  /// Copies the stream to `offset` of `view` and returns the IB that covers it.
  adreno::IbRef place(const adreno::Bo& bo, adreno::CpuView view, std::uint64_t offset) const {
    std::memcpy(view.data() + offset, words.data(), words.size() * 4);
    return adreno::IbRef{&bo, offset, static_cast<std::uint32_t>(words.size())};
  }
};

inline std::uint32_t read32(adreno::CpuView view, std::size_t index) {
  std::uint32_t value;
  std::memcpy(&value, view.data() + index * 4, 4);
  return value;
}

}  // namespace msm_test
