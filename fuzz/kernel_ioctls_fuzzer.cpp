// The virtual kernels' ioctl surface: a structured fuzzer that opens the virtual KGSL device or
// the virtual msm render node through the syscall seam and drives a sequence of ioctls, mmaps and
// munmaps whose arguments come from the input. Every argument struct is filled with fuzzed bytes;
// some of its 32-bit words are replaced by values earlier calls returned (ids, handles,
// timestamps), so sequences reach objects that exist. At the end every mapping and descriptor is
// released: the seam's ledger must then hold nothing alive, and LeakSanitizer checks that the
// driver's release freed whatever the sequence left behind.
//
// The virtual kernels run in the fuzzer's process: a pointer inside an argument is dereferenced
// as a real kernel's copy_from_user would, without its fault handling. So each pointer field (and
// the length that goes with it) is pointed into a scratch arena owned by the fuzzer, or null,
// before the call: those are the inputs a real kernel answers with EFAULT, which the unit tests
// cover. Waits get timeouts of a few milliseconds, so that a sequence never blocks.
#include "kgsl/kgsl_abi.h"
#include "msm/msm_abi.h"
#include "virt/kernels/kgsl_device.h"
#include "virt/kernels/msm_device.h"
#include "virt/kernels/virtual_syscalls.h"

#include <fuzzer/FuzzedDataProvider.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace {

namespace uapi = adreno::msm::uapi;
using adreno::virt::VirtualSyscalls;

constexpr std::size_t kPage = 4096;
constexpr unsigned kMaxSteps = 48;

// Memory that fuzzed pointers point into: the arena for argument arrays and output buffers, and
// page-aligned user memory that KGSL may import by address. Both live for the whole run.
struct Scratch {
  static constexpr std::size_t kArenaBytes = 16 * kPage, kUserPages = 16;
  std::byte* arena = static_cast<std::byte*>(std::aligned_alloc(kPage, kArenaBytes));
  std::byte* user = static_cast<std::byte*>(std::aligned_alloc(kPage, kUserPages * kPage));
};
Scratch& scratch() {
  static Scratch instance;
  return instance;
}

// One fuzz input's run: the seam, its descriptors and mappings, and the values calls returned.
class Session {
 public:
  Session(FuzzedDataProvider& input, bool msm) : in_(input), msm_(msm) {
    adreno::virt::VirtualGpuConfig config;
    config.hang_timeout = std::chrono::milliseconds(20);
    config.context_queue_wait = std::chrono::milliseconds(20);  // a full KGSL draw queue gives up as quickly
    const char* node = msm ? adreno::virt::kVirtualMsmNode : adreno::virt::kVirtualKgslNode;
    sys_.add_node(node, msm ? adreno::virt::make_virtual_msm_node(config) : adreno::virt::make_virtual_kgsl_node(config));
    fd_ = sys_.open(node, O_RDWR);
    if (fd_ < 0) std::abort();
  }

  void run() {
    for (unsigned step = 0; step < kMaxSteps && in_.remaining_bytes() > 0; ++step) {
      switch (in_.ConsumeIntegralInRange<int>(0, 9)) {
        case 0: map(); break;
        case 1: unmap(); break;
        case 2: make_dmabuf(); break;
        default: msm_ ? msm_ioctl() : kgsl_ioctl(); break;
      }
    }
  }

  // Releases every mapping and descriptor this session holds, then checks the ledger.
  void finish() {
    for (const auto& [address, length] : mappings_) sys_.munmap(address, length);
    for (const int fd : dmabufs_) ::close(fd);
    sys_.close(fd_);
    // The ledger names the objects the file still held at close "(closed)": the fuzzer, as a
    // careless user, leaves contexts and buffers to the driver's release, whose freeing of them
    // LeakSanitizer checks after every input. Anything else still listed (a descriptor, a
    // mapping) was not released by the seam.
    for (const auto& leak : sys_.leaks()) {
      if (leak.find(" (closed): ") != std::string::npos) continue;
      std::fprintf(stderr, "still alive after close: %s\n", leak.c_str());
      std::abort();
    }
    if (!sys_.ledger().empty()) std::abort();
  }

 private:
  // --- argument building ---

  // The struct's bytes from the input, then some aligned words swapped for returned values.
  template <typename T>
  T fuzzed() {
    T value{};
    const auto bytes = in_.ConsumeBytes<std::uint8_t>(sizeof(T));
    if (!bytes.empty()) std::memcpy(&value, bytes.data(), bytes.size());
    auto* raw = reinterpret_cast<unsigned char*>(&value);
    for (std::size_t at = 0; at + 4 <= sizeof(T) && !returned_.empty(); at += 4) {
      if (in_.ConsumeIntegralInRange<int>(0, 3) != 0) continue;
      const std::uint32_t known = returned_[in_.ConsumeIntegralInRange<std::size_t>(0, returned_.size() - 1)];
      std::memcpy(raw + at, &known, 4);
    }
    return value;
  }

  // A region of `bytes` (clamped to the arena) filled from the input, or null; `bytes` becomes
  // what was placed.
  std::uint64_t place(std::uint64_t& bytes) {
    if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) return 0;
    bytes = std::min<std::uint64_t>(bytes, Scratch::kArenaBytes);
    const std::size_t offset = in_.ConsumeIntegralInRange<std::size_t>(0, Scratch::kArenaBytes - bytes);
    std::byte* at = scratch().arena + offset;
    const auto contents = in_.ConsumeBytes<std::uint8_t>(bytes);
    std::memset(at, 0, bytes);
    if (!contents.empty()) std::memcpy(at, contents.data(), contents.size());
    return reinterpret_cast<std::uintptr_t>(at);
  }
  // An array of `count` records of `size` bytes: the count is cut to what the arena holds.
  template <typename Count, typename Size>
  std::uint64_t place_array(Count& count, Size size) {
    if (size != 0) count = static_cast<Count>(std::min<std::uint64_t>(count, Scratch::kArenaBytes / size));
    std::uint64_t bytes = std::uint64_t{count} * size;
    return place(bytes);
  }
  // A descriptor the kernel may be given: a dma-buf of ours, the device itself, or a bad one.
  int some_fd() {
    switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: return fd_;
      case 1: return -1;
      default:
        return dmabufs_.empty() ? -1 : dmabufs_[in_.ConsumeIntegralInRange<std::size_t>(0, dmabufs_.size() - 1)];
    }
  }
  std::uint32_t short_timeout_ms() { return in_.ConsumeIntegralInRange<std::uint32_t>(1, 4); }

  int call(unsigned long request, void* arg, std::size_t size) {
    const int ret = sys_.ioctl(fd_, request, arg);
    if (ret > 0) std::abort();  // these ioctls return 0 or -errno
    if (ret == 0) {
      const auto* raw = static_cast<const unsigned char*>(arg);
      for (std::size_t at = 0; at + 4 <= size; at += 4) {
        std::uint32_t word;
        std::memcpy(&word, raw + at, 4);
        if (word != 0) returned_.push_back(word);
      }
      while (returned_.size() > 32) returned_.pop_front();
    }
    return ret;
  }
  template <typename T>
  int call(unsigned long request, T& arg) {
    return call(request, &arg, sizeof arg);
  }

  // --- KGSL ---

  void kgsl_ioctl() {
    switch (in_.ConsumeIntegralInRange<int>(0, 8)) {
      case 0: {
        auto arg = fuzzed<kgsl_device_getproperty>();
        std::uint64_t bytes = arg.sizebytes;
        arg.value = reinterpret_cast<void*>(place(bytes));
        arg.sizebytes = bytes;
        call(IOCTL_KGSL_DEVICE_GETPROPERTY, arg);
        break;
      }
      case 1: {
        auto arg = fuzzed<kgsl_device_waittimestamp_ctxtid>();
        arg.timeout = short_timeout_ms();
        call(IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID, arg);
        break;
      }
      case 2: {
        auto arg = fuzzed<kgsl_drawctxt_create>();
        call(IOCTL_KGSL_DRAWCTXT_CREATE, arg);
        break;
      }
      case 3: {
        auto arg = fuzzed<kgsl_drawctxt_destroy>();
        call(IOCTL_KGSL_DRAWCTXT_DESTROY, arg);
        break;
      }
      case 4: {
        auto arg = fuzzed<kgsl_gpuobj_alloc>();
        // Sizes up to a few MiB: larger ones only test the host's memory.
        if (in_.ConsumeBool()) arg.size %= 4u << 20;
        std::uint64_t bytes = arg.metadata_len;
        arg.metadata = place(bytes);
        arg.metadata_len = static_cast<unsigned>(bytes);
        call(IOCTL_KGSL_GPUOBJ_ALLOC, arg);
        break;
      }
      case 5: {
        auto arg = fuzzed<kgsl_gpuobj_free>();
        std::uint64_t bytes = arg.len;
        arg.priv = place(bytes);
        arg.len = static_cast<unsigned>(bytes);
        call(IOCTL_KGSL_GPUOBJ_FREE, arg);
        break;
      }
      case 6: {
        auto arg = fuzzed<kgsl_gpuobj_info>();
        call(IOCTL_KGSL_GPUOBJ_INFO, arg);
        break;
      }
      case 7: kgsl_import(); break;
      default: kgsl_submit(); break;
    }
  }

  void kgsl_import() {
    auto arg = fuzzed<kgsl_gpuobj_import>();
    if (arg.type == KGSL_USER_MEM_TYPE_ADDR) {
      // The address of some of our user pages; the length in pages within them (or anything
      // that is not a page multiple, which the kernel refuses before using it).
      const std::size_t first = in_.ConsumeIntegralInRange<std::size_t>(0, Scratch::kUserPages - 1);
      kgsl_gpuobj_import_useraddr useraddr{reinterpret_cast<std::uintptr_t>(scratch().user + first * kPage)};
      if (in_.ConsumeBool()) useraddr.virtaddr += in_.ConsumeIntegralInRange<std::uint64_t>(0, kPage - 1);
      std::uint64_t bytes = sizeof useraddr;
      arg.priv = place(bytes);
      if (arg.priv != 0) std::memcpy(reinterpret_cast<void*>(arg.priv), &useraddr, sizeof useraddr);
      arg.priv_len = in_.ConsumeBool() ? in_.ConsumeIntegralInRange<std::uint64_t>(0, Scratch::kUserPages - first) * kPage
                                       : in_.ConsumeIntegralInRange<std::uint64_t>(0, 3 * kPage);
      if (arg.priv_len % kPage == 0) arg.priv_len = std::min<std::uint64_t>(arg.priv_len, (Scratch::kUserPages - first) * kPage);
    } else {
      kgsl_gpuobj_import_dma_buf buf{some_fd()};
      std::uint64_t bytes = std::min<std::uint64_t>(arg.priv_len, 64);
      arg.priv = place(bytes);
      arg.priv_len = bytes;
      if (arg.priv != 0) std::memcpy(reinterpret_cast<void*>(arg.priv), &buf, std::min<std::uint64_t>(bytes, sizeof buf));
    }
    call(IOCTL_KGSL_GPUOBJ_IMPORT, arg);
  }

  void kgsl_submit() {
    auto arg = fuzzed<kgsl_gpu_command>();
    arg.cmdsize %= 2 * sizeof(kgsl_command_object);
    arg.objsize %= 2 * sizeof(kgsl_command_object);
    arg.syncsize %= 64;
    arg.cmdlist = place_array(arg.numcmds, arg.cmdsize);
    arg.objlist = place_array(arg.numobjs, arg.objsize);
    arg.synclist = place_array(arg.numsyncs, arg.syncsize);
    call(IOCTL_KGSL_GPU_COMMAND, arg);
  }

  // --- MSM ---

  void msm_ioctl() {
    switch (in_.ConsumeIntegralInRange<int>(0, 11)) {
      case 0: {
        auto arg = fuzzed<drm_version>();
        std::uint64_t name = arg.name_len, date = arg.date_len, desc = arg.desc_len;
        arg.name = reinterpret_cast<char*>(place(name));
        arg.date = reinterpret_cast<char*>(place(date));
        arg.desc = reinterpret_cast<char*>(place(desc));
        arg.name_len = name, arg.date_len = date, arg.desc_len = desc;
        call(DRM_IOCTL_VERSION, arg);
        break;
      }
      case 1: {
        auto arg = fuzzed<uapi::drm_msm_param>();
        call(uapi::DRM_IOCTL_MSM_GET_PARAM, arg);
        break;
      }
      case 2: {
        auto arg = fuzzed<uapi::drm_msm_gem_new>();
        if (in_.ConsumeBool()) arg.size %= 4u << 20;
        call(uapi::DRM_IOCTL_MSM_GEM_NEW, arg);
        break;
      }
      case 3: {
        auto arg = fuzzed<uapi::drm_msm_gem_info>();
        call(uapi::DRM_IOCTL_MSM_GEM_INFO, arg);
        break;
      }
      case 4: {
        auto arg = fuzzed<drm_gem_close>();
        call(DRM_IOCTL_GEM_CLOSE, arg);
        break;
      }
      case 5: {
        auto arg = fuzzed<drm_prime_handle>();
        if (call(DRM_IOCTL_PRIME_HANDLE_TO_FD, arg) == 0) dmabufs_.push_back(arg.fd);
        break;
      }
      case 6: {
        auto arg = fuzzed<drm_prime_handle>();
        arg.fd = some_fd();
        call(DRM_IOCTL_PRIME_FD_TO_HANDLE, arg);
        break;
      }
      case 7: {
        auto arg = fuzzed<uapi::drm_msm_gem_submit>();
        arg.bos = place_array(arg.nr_bos, sizeof(uapi::drm_msm_gem_submit_bo));
        arg.cmds = place_array(arg.nr_cmds, sizeof(uapi::drm_msm_gem_submit_cmd));
        arg.syncobj_stride %= 64;
        arg.in_syncobjs = place_array(arg.nr_in_syncobjs, arg.syncobj_stride);
        arg.out_syncobjs = place_array(arg.nr_out_syncobjs, arg.syncobj_stride);
        arg.fence_fd = some_fd();
        call(uapi::DRM_IOCTL_MSM_GEM_SUBMIT, arg);
        break;
      }
      case 8: {
        auto arg = fuzzed<uapi::drm_msm_wait_fence>();
        // An absolute CLOCK_MONOTONIC deadline a few milliseconds away, or one in the past.
        timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        const std::int64_t deadline = (now.tv_sec * 1000000000ll + now.tv_nsec) * in_.ConsumeBool() +
                                      std::int64_t{short_timeout_ms()} * 1000000;
        arg.timeout = {deadline / 1000000000, deadline % 1000000000};
        call(uapi::DRM_IOCTL_MSM_WAIT_FENCE, arg);
        break;
      }
      case 9: {
        auto arg = fuzzed<uapi::drm_msm_submitqueue>();
        call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW, arg);
        break;
      }
      case 10: {
        auto arg = fuzzed<std::uint32_t>();
        call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, arg);
        break;
      }
      default: {
        auto arg = fuzzed<uapi::drm_msm_submitqueue_query>();
        std::uint64_t bytes = arg.len;
        arg.data = place(bytes);
        arg.len = static_cast<std::uint32_t>(bytes);
        call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, arg);
        break;
      }
    }
  }

  // --- memory and descriptors ---

  // mmap of the node at an offset the kernel returned (KGSL: id << 12; msm: GEM_INFO's offset)
  // or any page-aligned offset.
  void map() {
    std::uint64_t offset = in_.ConsumeIntegral<std::uint32_t>() * std::uint64_t{kPage};
    if (!returned_.empty() && in_.ConsumeBool()) {
      const std::uint64_t known = returned_[in_.ConsumeIntegralInRange<std::size_t>(0, returned_.size() - 1)];
      offset = msm_ ? known : known << 12;
    }
    const std::size_t length = in_.ConsumeIntegralInRange<std::size_t>(0, 64) * kPage;
    const auto result = sys_.mmap(length, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, static_cast<off_t>(offset));
    if (result.addr != nullptr) {
      std::memset(result.addr, 0x5a, length);  // the mapping is ours to write, all of it
      mappings_.emplace_back(result.addr, length);
    }
  }

  void unmap() {
    if (mappings_.empty()) return;
    const std::size_t index = in_.ConsumeIntegralInRange<std::size_t>(0, mappings_.size() - 1);
    if (sys_.munmap(mappings_[index].first, mappings_[index].second) != 0) std::abort();
    mappings_.erase(mappings_.begin() + static_cast<std::ptrdiff_t>(index));
  }

  // A dma-buf of some pages from elsewhere (a memfd, as the tests' exporter) to import.
  void make_dmabuf() {
    const int fd = memfd_create("fuzz-dmabuf", MFD_CLOEXEC);
    if (fd < 0) return;
    if (ftruncate(fd, static_cast<off_t>(in_.ConsumeIntegralInRange<std::size_t>(0, 16) * kPage)) != 0) std::abort();
    dmabufs_.push_back(fd);
  }

  FuzzedDataProvider& in_;
  const bool msm_;
  VirtualSyscalls sys_;
  int fd_ = -1;
  std::deque<std::uint32_t> returned_;
  std::vector<std::pair<void*, std::size_t>> mappings_;
  std::vector<int> dmabufs_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  Session session(input, input.ConsumeBool());
  session.run();
  session.finish();
  return 0;
}
