// Driver facts below cite Linux drivers/gpu/drm/{msm,drm_*}.c as of torvalds/linux
// 00dfa76bdfc2fa807881df260f30053e2515c665 (msm_gem_submit.c, msm_submitqueue.c) unless a
// comment names another version; the UAPI is msm/msm_abi.h.
#include "virt/kernels/msm_device.h"

#include "msm/msm_abi.h"
#include "virt/gpu/backing.h"
#include "virt/gpu/gpu_memory.h"
#include "virt/kernels/fault_injection.h"
#include "virt/kernels/memory_limit.h"
#include "virt/kernels/rate_limit.h"
#include "virt/kernels/ring.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace adreno::virt {
namespace {

namespace uapi = msm::uapi;

// adreno_gpu.h ADRENO_VM_START: per-process address spaces start at 4 GiB, above 32 bits so
// that a missing _HI register write shows. Their size, adreno_private_address_space_size()
// (renamed adreno_private_vm_size() later; adreno_gpu.c), is SZ_4G unless the catalog entry
// sets address_space_size, which a630's does not. Newest kernels size it from the SMMU's TTBR
// configuration instead; 4 GiB is what an a630 on a v6.x kernel reports.
constexpr std::uint64_t kVaStart = 0x100000000ull;
constexpr std::uint64_t kVaSize = 0x100000000ull;

// The CPU's data cache line: 64 bytes on the Kryo and Cortex-A cores next to a6xx and a7xx GPUs
// (CTR_EL0.DminLine).
constexpr std::uint64_t kCpuCacheLine = 64;

// drm_gem.c: fake mmap offsets are handed out by the device's drm_vma_offset_manager from
// DRM_FILE_PAGE_OFFSET_START = (0xFFFFFFFF >> PAGE_SHIFT) + 1 pages, i.e. byte offset 4 GiB.
constexpr std::uint64_t kFirstMmapOffset = 0x100000000ull;

// drm_drv.h: DRM_MAJOR 226; render minors start at 128 (drm_minor_alloc, DRM_MINOR_RENDER).
constexpr unsigned kDrmMajor = 226;
constexpr unsigned kFirstRenderMinor = 128;

// msm_drv.c: driver name, description, date; MSM_VERSION 1.12.0 is the version whose UAPI
// msm/msm_abi.h follows (1.12.0 added MSM_INFO_{SET,GET}_METADATA).
constexpr const char* kDriverName = "msm";
constexpr const char* kDriverDate = "20130625";
constexpr const char* kDriverDesc = "MSM Snapdragon DRM";
constexpr int kVersionMajor = 1, kVersionPatch = 0;  // the minor: MsmNodeOptions::version_minor

std::uint64_t page_align(std::uint64_t size, std::uint64_t page_size) {
  return (size + page_size - 1) & ~(page_size - 1);
}

/// Shared by every file of one node, as the drm_device is.
struct MsmDevice {
  VirtualGpuConfig config;
  MsmNodeOptions options;
  std::atomic<std::uint64_t> next_mmap_offset{kFirstMmapOffset};
  // msm_gpu.h msm_gpu_convert_priority: a submitqueue of priority p runs on ring
  // p / NR_SCHED_PRIORITIES. a630 has one ring (a6xx_gpu_init), so all queues of all files share
  // it and one queue's CP wait holds every other queue. Created on first use.
  std::mutex ring_mutex;
  std::vector<std::shared_ptr<RingBuffer>> rings;
  RateLimit page_fault_prints;  // pr_warn_ratelimited in adreno_fault_handler
  // The faults of the one GPU address space every file shares without per-process pagetables.
  std::shared_ptr<std::atomic<std::uint64_t>> shared_vm_faults = std::make_shared<std::atomic<std::uint64_t>>(0);

  std::shared_ptr<RingBuffer> ringbuffer(std::uint32_t priority) {
    std::lock_guard lock(ring_mutex);
    if (rings.empty()) rings.resize(options.rings);
    auto& ring = rings.at(std::min<std::size_t>(priority / kMsmPrioritiesPerRing, rings.size() - 1));
    if (!ring) ring = std::make_shared<RingBuffer>();
    return ring;
  }
};

/// A GEM object. Handles, submissions in flight and CPU mappings hold references; its GPU
/// mapping goes away with the last one (msm_gem_free_object → VMA teardown).
struct GemObject {
  std::shared_ptr<Backing> backing;
  std::uint64_t size;  // page aligned
  std::uint32_t flags;
  bool imported;  // made by PRIME_FD_TO_HANDLE from a dma-buf (obj->import_attach)
  std::shared_ptr<GpuMemory> memory;
  std::optional<std::uint64_t> iova;         // assigned on first GET_IOVA or submit, as msm does
  std::optional<std::uint64_t> mmap_offset;  // assigned on first GET_OFFSET
  /// The reservation object's fences (dma_resv): one per queue that listed the object, the
  /// latest of its submissions, a write fence if it listed the object MSM_SUBMIT_BO_WRITE.
  /// Fences of other files on a shared dma-buf are not modelled.
  struct Fence {
    std::weak_ptr<const Ring> ring;  // a closed queue's fences have signalled
    std::uint64_t seqno;
    bool write;
  };
  std::vector<Fence> fences;
  /// Byte ranges (whole CPU cache lines, sorted, disjoint) whose lines the CPU cache holds dirty
  /// with what the kernel's zeroing of the pages wrote: a cached object's pages start so (see
  /// gem_new). Each goes back to memory — over whatever the GPU wrote there since — when the
  /// CPU first runs cache maintenance over it (cache_maintained).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> dirty_lines{};

  ~GemObject() {
    if (iova) memory->unmap(*iova);
  }
};

struct Queue {
  std::uint32_t priority;
  std::shared_ptr<Ring> ring;
  std::uint32_t last_fence = 0;  // msm_gpu.h queue->last_fence, for WAIT_FENCE's range check
};

/// A submission's fence, as a syncobj holds it.
struct SubmitFence {
  std::weak_ptr<const Ring> ring;  // a closed queue's fences have signalled
  std::uint64_t seqno;
};

/// drm_syncobj.c: a binary syncobj holds one fence or none (msm has no timeline syncobjs).
struct Syncobj {
  std::optional<SubmitFence> fence;
  bool signalled_stub = false;  // DRM_SYNCOBJ_CREATE_SIGNALED: an already signalled fence
};

struct CpuMapping {
  std::uint32_t handle;
  std::size_t length;
  std::shared_ptr<GemObject> object;  // a mapping keeps the object alive (drm_gem_vm_open)
};

std::int64_t monotonic_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000000000ll + now.tv_nsec;
}

class MsmFile final : public VirtualFile {
 public:
  explicit MsmFile(std::shared_ptr<MsmDevice> device)
      : device_(std::move(device)),
        memory_(std::make_shared<GpuMemory>(kVaStart, kVaSize)),
        vm_faults_(device_->options.per_process_pgtables ? std::make_shared<std::atomic<std::uint64_t>>(0)
                                                         : device_->shared_vm_faults) {}

  ~MsmFile() override {
    // Rings first: their threads may still hold submissions referencing objects.
    queues_.clear();
    retiring_.clear();
  }

  int ioctl(unsigned long request, void* arg) override {
    if (arg == nullptr) return -EFAULT;
    // WAIT_FENCE sleeps, so it takes the lock only to look the queue up.
    if (request == uapi::DRM_IOCTL_MSM_WAIT_FENCE) return wait_fence(*static_cast<uapi::drm_msm_wait_fence*>(arg));
    std::lock_guard lock(mutex_);
    reap_retired_queues();
    switch (request) {
      case DRM_IOCTL_VERSION: return version(*static_cast<drm_version*>(arg));
      case uapi::DRM_IOCTL_MSM_GET_PARAM: return get_param(*static_cast<uapi::drm_msm_param*>(arg));
      case uapi::DRM_IOCTL_MSM_GEM_NEW: return gem_new(*static_cast<uapi::drm_msm_gem_new*>(arg));
      case uapi::DRM_IOCTL_MSM_GEM_INFO: return gem_info(*static_cast<uapi::drm_msm_gem_info*>(arg));
      case DRM_IOCTL_GEM_CLOSE: return gem_close(*static_cast<drm_gem_close*>(arg));
      case DRM_IOCTL_PRIME_HANDLE_TO_FD: return prime_handle_to_fd(*static_cast<drm_prime_handle*>(arg));
      case DRM_IOCTL_PRIME_FD_TO_HANDLE: return prime_fd_to_handle(*static_cast<drm_prime_handle*>(arg));
      case uapi::DRM_IOCTL_MSM_GEM_SUBMIT: return gem_submit(*static_cast<uapi::drm_msm_gem_submit*>(arg));
      case DRM_IOCTL_SYNCOBJ_CREATE: return syncobj_create(*static_cast<drm_syncobj_create*>(arg));
      case DRM_IOCTL_SYNCOBJ_DESTROY: return syncobj_destroy(*static_cast<drm_syncobj_destroy*>(arg));
      case uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW: return submitqueue_new(*static_cast<uapi::drm_msm_submitqueue*>(arg));
      case uapi::DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE: return submitqueue_close(*static_cast<std::uint32_t*>(arg));
      case uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY:
        return submitqueue_query(*static_cast<uapi::drm_msm_submitqueue_query*>(arg));
      default: return -EINVAL;  // drm_ioctl.c: a driver ioctl number the driver lacks is EINVAL
    }
  }

  void* mmap(std::size_t length, int prot, int flags, off_t offset, int& error) override {
    std::lock_guard lock(mutex_);
    // drm_gem.c drm_gem_mmap: an offset that names no object is EINVAL, and so is a mapping
    // larger than the object (drm_gem_mmap_obj).
    std::uint32_t handle = 0;
    std::shared_ptr<GemObject> object;
    for (const auto& [h, candidate] : objects_) {
      if (candidate->mmap_offset && *candidate->mmap_offset == static_cast<std::uint64_t>(offset)) {
        handle = h;
        object = candidate;
      }
    }
    if (!object || length > object->size) {
      error = EINVAL;
      return nullptr;
    }
    // A fresh host mapping of the object's pages: its address is the CPU's, never the GPU VA.
    void* addr = ::mmap(nullptr, length, prot, flags, object->backing->fd(), 0);
    if (addr == MAP_FAILED) {
      error = errno;
      return nullptr;
    }
    mappings_[addr] = CpuMapping{handle, length, std::move(object)};
    return addr;
  }

  void munmapped(void* addr, std::size_t) override {
    std::shared_ptr<GemObject> released;  // dropped after the lock, as it may unmap GPU memory
    std::lock_guard lock(mutex_);
    auto it = mappings_.find(addr);
    if (it == mappings_.end()) return;
    released = std::move(it->second.object);
    mappings_.erase(it);
  }

  void cache_maintained(void* addr, std::size_t offset, std::size_t length) noexcept override {
    // DC CVAC and DC CIVAC write a dirty line back to memory before anything else they do (Arm
    // ARM, "Data cache maintenance instructions"): the zeros the kernel left in a cached
    // object's lines land now, over what the GPU wrote since. Dirty lines the CPU never
    // maintains are written back on eviction on hardware, at no fixed time; here they stay
    // until maintained, so that the point at which they land is deterministic — at the latest
    // when the host invalidates the range to read what the GPU wrote.
    std::lock_guard lock(mutex_);
    auto it = mappings_.find(addr);
    if (it == mappings_.end() || it->second.object->dirty_lines.empty()) return;
    const std::uint64_t begin = offset / kCpuCacheLine * kCpuCacheLine;
    const std::uint64_t end = std::min<std::uint64_t>((offset + length + kCpuCacheLine - 1) / kCpuCacheLine * kCpuCacheLine,
                                                      it->second.length);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> still_dirty;
    for (const auto& [first, last] : it->second.object->dirty_lines) {
      const std::uint64_t from = std::max(first, begin), to = std::min(last, end);
      if (from >= to) {
        still_dirty.emplace_back(first, last);
        continue;
      }
      std::memset(static_cast<std::byte*>(addr) + from, 0, to - from);  // the mapping starts at offset 0 of the object
      if (first < from) still_dirty.emplace_back(first, from);
      if (to < last) still_dirty.emplace_back(to, last);
    }
    it->second.object->dirty_lines = std::move(still_dirty);
  }

  void stat(struct stat& out) const override {
    out.st_mode = S_IFCHR | 0666;
    out.st_rdev = makedev(kDrmMajor, kFirstRenderMinor);
  }

  std::vector<LiveObject> ledger() const override {
    std::lock_guard lock(mutex_);
    std::vector<LiveObject> live;
    for (const auto& [handle, object] : objects_) {
      live.push_back(LiveObject{LiveObject::Kind::buffer, handle, object->size, object->flags, object->iova.value_or(0),
                                "GEM handle " + std::to_string(handle) + " (" + std::to_string(object->size) +
                                    " bytes, flags 0x" + hex(object->flags) + ")"});
    }
    for (const auto& [id, queue] : queues_) {
      if (id == 0) continue;
      live.push_back(LiveObject{LiveObject::Kind::context, id, 0, queue.priority, 0,
                                "submitqueue " + std::to_string(id) + " (priority " + std::to_string(queue.priority) + ")"});
    }
    for (const auto& [handle, syncobj] : syncobjs_) {
      live.push_back(LiveObject{LiveObject::Kind::sync_object, handle, 0, 0, 0, "syncobj " + std::to_string(handle)});
    }
    for (const auto& [addr, mapping] : mappings_) {
      char text[96];
      std::snprintf(text, sizeof text, "CPU mapping of GEM handle %u at %p (%zu bytes)", mapping.handle, addr,
                    mapping.length);
      live.push_back(LiveObject{LiveObject::Kind::mapping, mapping.handle, mapping.length, 0,
                                reinterpret_cast<std::uintptr_t>(addr), text});
    }
    return live;
  }

 private:
  static std::string hex(std::uint64_t value) {
    char text[20];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
    return text;
  }

  // ---- DRM core ----

  // drm_ioctl.c drm_copy_field: copy what fits, report the full length.
  static void copy_field(char* buffer, __kernel_size_t& length, const char* value) {
    const std::size_t full = std::strlen(value);
    const std::size_t copied = std::min<std::size_t>(full, length);
    length = full;
    if (copied != 0 && buffer != nullptr) std::memcpy(buffer, value, copied);
  }

  int version(drm_version& args) {
    args.version_major = kVersionMajor;
    args.version_minor = device_->options.version_minor;
    args.version_patchlevel = kVersionPatch;
    copy_field(args.name, args.name_len, kDriverName);
    copy_field(args.date, args.date_len, kDriverDate);
    copy_field(args.desc, args.desc_len, kDriverDesc);
    return 0;
  }

  // drm_gem.c drm_gem_handle_create_tail: idr_alloc(..., 1, 0, ...) — the lowest free id from 1.
  std::uint32_t add_handle(std::shared_ptr<GemObject> object) {
    std::uint32_t handle = 1;
    for (const auto& [used, unused] : objects_) {
      if (used != handle) break;
      ++handle;
    }
    objects_.emplace(handle, std::move(object));
    return handle;
  }

  std::shared_ptr<GemObject> lookup(std::uint32_t handle) const {
    auto it = objects_.find(handle);
    return it == objects_.end() ? nullptr : it->second;
  }

  int gem_close(drm_gem_close& args) {
    // drm_gem.c drm_gem_handle_delete: an unknown handle is EINVAL. The object itself lives on
    // while a submission or a CPU mapping still references it.
    auto it = objects_.find(args.handle);
    if (it == objects_.end()) return -EINVAL;
    objects_.erase(it);
    return 0;
  }

  int prime_handle_to_fd(drm_prime_handle& args) {
    // drm_prime.c drm_prime_handle_to_fd_ioctl: only DRM_CLOEXEC and DRM_RDWR are valid flags;
    // an unknown handle is ENOENT (drm_gem_prime_handle_to_fd).
    if (args.flags & ~(DRM_CLOEXEC | DRM_RDWR)) return -EINVAL;
    auto object = lookup(args.handle);
    if (!object) return -ENOENT;
    int fd = ::fcntl(object->backing->fd(), (args.flags & DRM_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
    if (fd < 0) return -errno;
    args.fd = fd;
    return 0;
  }

  int prime_fd_to_handle(drm_prime_handle& args) {
    // dma-buf.c dma_buf_get: a descriptor that is not open is EBADF, one that is not a dma-buf
    // EINVAL (here: anything but a memfd or regular file, see Backing::import_fd).
    struct stat st {};
    if (::fstat(args.fd, &st) != 0) return -EBADF;
    // drm_prime.c drm_gem_prime_fd_to_handle: a dma-buf this file already has a handle for
    // (imported before, or exported from it) yields that same handle.
    for (const auto& [handle, object] : objects_) {
      if (object->backing->inode() == st.st_ino) {
        args.handle = handle;
        return 0;
      }
    }
    auto backing = Backing::import_fd(args.fd);
    if (!backing) return errno == EINVAL ? -EINVAL : -ENOMEM;
    const std::uint64_t size = backing->size();
    // msm_gem.c msm_gem_import: an imported object is MSM_BO_WC.
    args.handle = add_handle(std::make_shared<GemObject>(GemObject{std::move(backing), size, uapi::MSM_BO_WC, true, memory_, {}, {}, {}}));
    return 0;
  }

  // drm_syncobj.c drm_syncobj_create_ioctl: msm sets DRIVER_SYNCOBJ; only CREATE_SIGNALED is a
  // valid flag; the handle is idr_alloc(1, 0) of the file's syncobj idr, the lowest free from 1.
  int syncobj_create(drm_syncobj_create& args) {
    if (args.flags & ~DRM_SYNCOBJ_CREATE_SIGNALED) return -EINVAL;
    std::uint32_t handle = 1;
    for (const auto& [used, unused] : syncobjs_) {
      if (used != handle) break;
      ++handle;
    }
    syncobjs_.emplace(handle, Syncobj{std::nullopt, (args.flags & DRM_SYNCOBJ_CREATE_SIGNALED) != 0});
    args.handle = handle;
    return 0;
  }

  // drm_syncobj.c drm_syncobj_destroy_ioctl: pad must be zero, an unknown handle is EINVAL. A
  // submission that waits for its fence took the fence itself and is not affected.
  int syncobj_destroy(drm_syncobj_destroy& args) {
    if (args.pad != 0) return -EINVAL;
    return syncobjs_.erase(args.handle) == 1 ? 0 : -EINVAL;
  }

  // ---- msm: parameters and objects ----

  int get_param(uapi::drm_msm_param& args) {
    // msm_drv.c msm_ioctl_get_param: only the 3D pipe, pad zero; adreno_gpu.c
    // adreno_get_param: no pointer params (len must be 0), unknown params are EINVAL.
    if (args.pipe != uapi::MSM_PIPE_3D0 || args.pad != 0) return -EINVAL;
    if (args.len != 0) return -EINVAL;
    const GpuModel& model = device_->config.model;
    switch (args.param) {
      case uapi::MSM_PARAM_GPU_ID: args.value = model.msm_revn; return 0;
      // A part without a revn (the a7xx entries of a6xx_catalog.c) has its speed bin in bits
      // 32..47; the virtual GPU has no speed-bin fuse, which adreno_gpu_init turns into 0xffff
      // (what Mesa's freedreno_devices.py lists as the "default no-speedbin fallback" ids).
      case uapi::MSM_PARAM_CHIP_ID:
        args.value = model.msm_revn != 0 ? model.chip_id : model.chip_id | (std::uint64_t{0xffff} << 32);
        return 0;
      case uapi::MSM_PARAM_GMEM_SIZE: args.value = model.gmem_bytes; return 0;
      case uapi::MSM_PARAM_PRIORITIES: args.value = priorities(); return 0;
      // gpu->global_faults + the address space's faults (adreno_gpu.c adreno_get_param): every
      // file's queues when there are no per-process pagetables, as they share one.
      case uapi::MSM_PARAM_FAULTS: args.value = vm_faults_->load(); return 0;
      case uapi::MSM_PARAM_VA_START:
        if (!device_->options.per_process_pgtables) return -EINVAL;
        args.value = kVaStart;
        return 0;
      case uapi::MSM_PARAM_VA_SIZE:
        if (!device_->options.per_process_pgtables) return -EINVAL;
        args.value = kVaSize;
        return 0;
      default: return -EINVAL;
    }
  }

  int gem_new(uapi::drm_msm_gem_new& args) {
    // msm_drv.c msm_ioctl_gem_new: unknown flag bits are EINVAL.
    if (args.flags & ~uapi::MSM_BO_FLAGS) return -EINVAL;
    // msm_gem.c msm_gem_new_impl: exactly one known cache mode. CACHED_COHERENT needs
    // ADRENO_QUIRK_HAS_CACHED_COHERENT, which the a6xx catalog sets for a630 (a6xx_catalog.c).
    // MSM_BO_UNCACHED is refused since "drm/msm: Deprecate MSM_BO_UNCACHED harder" (v6.0): it
    // left the list, and msm_ioctl_gem_new's promotion to WC computes a copy of the flags but
    // passes the caller's on, so the request still reaches msm_gem_new_impl as UNCACHED.
    switch (args.flags & uapi::MSM_BO_CACHE_MASK) {
      case uapi::MSM_BO_CACHED:
      case uapi::MSM_BO_WC: break;
      case uapi::MSM_BO_CACHED_COHERENT:
        if (!device_->options.cached_coherent) return -EINVAL;
        break;
      default: return -EINVAL;
    }
    // msm_gem.c msm_gem_new: the size is page-aligned (the kernel's pages), and zero-sized
    // objects are refused.
    const std::uint64_t size = page_align(args.size, device_->config.page_size);
    if (size == 0) return -EINVAL;
    auto backing = allocate_pages(device_->config.memory_limit, size);
    if (!backing) return -ENOMEM;
    auto object = std::make_shared<GemObject>(GemObject{std::move(backing), size, args.flags, false, memory_, {}, {}, {}});
    // The pages come from shmem, which zeroes them through the kernel's cached linear map, so the
    // zeros can sit in the CPU cache as dirty lines. msm_gem.c get_pages() cleans the new pages
    // (sync_for_device) only for MSM_BO_WC objects (MSM_BO_WC | MSM_BO_UNCACHED before v6.0), as
    // the GPU does not snoop them; a MSM_BO_CACHED object keeps its dirty lines until user space
    // cleans them, as Turnip does after GEM_NEW (tu_knl_drm_msm.cc). MSM_BO_CACHED_COHERENT
    // objects are snooped by the GPU: nothing to model.
    if ((args.flags & uapi::MSM_BO_CACHE_MASK) == uapi::MSM_BO_CACHED) object->dirty_lines.emplace_back(0, size);
    args.handle = add_handle(std::move(object));
    return 0;
  }

  /// Maps the object into this file's address space on first use (msm_gem_get_and_pin_iova);
  /// a full address space is ENOSPC, as drm_mm reports it.
  int ensure_iova(GemObject& object) {
    if (object.iova) return 0;
    auto va = memory_->map(object.backing, 0, object.size, !(object.flags & uapi::MSM_BO_GPU_READONLY));
    if (!va) return -ENOSPC;
    object.iova = *va;
    return 0;
  }

  int gem_info(uapi::drm_msm_gem_info& args) {
    // msm_drv.c msm_ioctl_gem_info (torvalds/linux, v6.13-era, with GET_FLAGS): pad must be
    // zero; value-returning requests need len == 0; unknown requests are EINVAL; then the
    // handle is looked up (ENOENT).
    if (args.pad != 0) return -EINVAL;
    switch (args.info) {
      case uapi::MSM_INFO_GET_OFFSET:
      case uapi::MSM_INFO_GET_IOVA:
      case uapi::MSM_INFO_GET_FLAGS:
        if (args.len != 0) return -EINVAL;
        break;
      default: return -EINVAL;
    }
    auto object = lookup(args.handle);
    if (!object) return -ENOENT;
    switch (args.info) {
      case uapi::MSM_INFO_GET_OFFSET:
        if (!object->mmap_offset) object->mmap_offset = device_->next_mmap_offset.fetch_add(object->size);
        args.value = *object->mmap_offset;
        return 0;
      case uapi::MSM_INFO_GET_IOVA:
        if (int ret = ensure_iova(*object); ret < 0) return ret;
        args.value = *object->iova;
        return 0;
      default:
        // An imported object's flags belong to its exporter: EINVAL.
        if (object->imported) return -EINVAL;
        args.value = object->flags;
        return 0;
    }
  }

  // ---- msm: submitqueues, submission, fences ----

  /// A submitqueue's ring. The driver puts GPU faults in the kernel log — a lockup when
  /// hangcheck fires (msm_gpu.c hangcheck_handler), a CP error (a6xx_gpu.c a6xx_cp_hw_err_irq) —
  /// so the virtual node writes its faults to stderr, the host's stand-in for that log. A page
  /// fault is only logged (adreno_gpu.c adreno_fault_handler: "*** gpu fault", rate limited;
  /// then a devcoredump, and translation resumes): it starts no recovery and counts nowhere.
  std::shared_ptr<Ring> make_ring(std::uint32_t queue_id, std::uint32_t priority) {
    const std::string timeline = "submitqueue " + std::to_string(queue_id);
    auto print_page_fault = [device = device_, ttbr0 = memory_->va_begin()](const FaultRecord& fault) {
      if (!device->page_fault_prints.allow()) return;
      std::fprintf(stderr, "virtual msm: *** gpu fault: ttbr0=%.16llx iova=%.16llx dir=%s type=%s source=%s\n",
                   static_cast<unsigned long long>(ttbr0), static_cast<unsigned long long>(fault.address),
                   fault.write ? "WRITE" : "READ", fault.permission ? "PERMISSION" : "TRANSLATION", "unknown");
    };
    // msm_gpu.c recover_worker counts a recovered fault for the queue and for the address space
    // its submission ran in (gpu->global_faults instead when the process is gone, which a
    // virtual file tearing down never reports: its cut-short submissions are no faults).
    auto log_fault = [queue_id, vm_faults = vm_faults_](const FaultRecord& fault) {
      std::fprintf(stderr, "virtual msm: submitqueue %u, submission %llu: %s\n", queue_id,
                   static_cast<unsigned long long>(fault.seqno), fault.message.c_str());
      vm_faults->fetch_add(1);
    };
    return std::make_shared<Ring>(
        memory_, device_->config.hang_timeout,
        Ring::FaultLogs{reporting_fault_log(device_->config.fault_injection, timeline, std::move(log_fault)),
                        reporting_fault_log(device_->config.fault_injection, timeline, std::move(print_page_fault))},
        device_->ringbuffer(priority), device_->config.model.instr_cache_units, device_->config.execution,
        entity(priority), device_->config.model.generation);
  }

  std::shared_ptr<const int> entity(std::uint32_t priority) {
    auto& entity = entities_[priority];
    if (!entity) entity = std::make_shared<const int>(0);
    return entity;
  }

  /// MSM_PARAM_PRIORITIES: 3 on a630's single ring.
  std::uint32_t priorities() const { return device_->options.rings * kMsmPrioritiesPerRing; }

  /// msm_submitqueue.c msm_submitqueue_get; the default queue 0 exists from open on
  /// (msm_submitqueue_init), its ring is started on first use.
  Queue* find_queue(std::uint32_t id) {
    if (id == 0 && queues_.count(0) == 0) {
      // msm_submitqueue.c msm_submitqueue_init: the default queue takes the middle priority,
      // DIV_ROUND_UP(max_priority, 2) with max_priority = priorities - 1, i.e. priorities / 2.
      queues_.emplace(0, Queue{priorities() / 2, make_ring(0, priorities() / 2)});
    }
    auto it = queues_.find(id);
    return it == queues_.end() ? nullptr : &it->second;
  }

  int submitqueue_new(uapi::drm_msm_submitqueue& args) {
    // msm_drv.c msm_ioctl_submitqueue_new: unknown flags are EINVAL; msm_gpu.h
    // msm_gpu_convert_priority: a priority at or past MSM_PARAM_PRIORITIES is EINVAL.
    if (args.flags & ~uapi::MSM_SUBMITQUEUE_FLAGS) return -EINVAL;
    if (args.prio >= priorities()) return -EINVAL;
    // msm_submitqueue_create: id = ctx->queueid++, and the default queue took 0.
    args.id = next_queue_id_++;
    queues_.emplace(args.id, Queue{args.prio, make_ring(args.id, args.prio)});
    return 0;
  }

  int submitqueue_close(std::uint32_t id) {
    // msm_submitqueue_remove: queue 0 cannot be closed, unknown ids are ENOENT.
    if (id == 0) return -ENOENT;
    auto it = queues_.find(id);
    if (it == queues_.end()) return -ENOENT;
    // Submissions hold a reference to their queue (msm_gem_submit.c submit_create), so work in
    // flight still runs to completion after the close.
    retiring_.push_back(std::move(it->second.ring));
    queues_.erase(it);
    return 0;
  }

  void reap_retired_queues() {
    for (auto it = retiring_.begin(); it != retiring_.end();) {
      if ((*it)->retired() != (*it)->submitted()) {
        ++it;
        continue;
      }
      it = retiring_.erase(it);
    }
  }

  /// msm_gpu.c recover_worker bumps the guilty queue's and its address space's counters when
  /// hangcheck recovers the GPU. Two simplifications, both on the side of reporting more: every
  /// fault that stops a virtual ring (a CP error or shader error too, and the deliberately
  /// stricter bo-table faults, not only hangs) is treated as ending in that recovery, and a
  /// faulted Ring cancels what its queue submits afterwards, where the driver replays later
  /// submissions of a context that did not opt into VM_BIND. Page faults count nowhere.
  static std::uint32_t ring_faults(const Ring& ring) { return ring.fault() ? 1 : 0; }

  int submitqueue_query(uapi::drm_msm_submitqueue_query& args) {
    // msm_submitqueue.c msm_submitqueue_query: pad must be zero, unknown queue ENOENT, unknown
    // param EINVAL; len 0 asks for the size, otherwise min(len, 4) bytes are copied to data.
    if (args.pad != 0) return -EINVAL;
    Queue* queue = find_queue(args.id);
    if (queue == nullptr) return -ENOENT;
    if (args.param != uapi::MSM_SUBMITQUEUE_PARAM_FAULTS) return -EINVAL;
    const std::uint32_t faults = ring_faults(*queue->ring);
    if (args.len == 0) {
      args.len = sizeof faults;
      return 0;
    }
    args.len = std::min<std::uint32_t>(args.len, sizeof faults);
    if (args.data == 0) return -EFAULT;
    std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(args.data)), &faults, args.len);
    return 0;
  }

  int gem_submit(uapi::drm_msm_gem_submit& args) {
    // msm_gem_submit.c msm_ioctl_gem_submit, in the driver's order of checks.
    if (args.pad != 0) return -EINVAL;
    if ((args.flags & uapi::MSM_PIPE_ID_MASK) != uapi::MSM_PIPE_3D0) return -EINVAL;
    const std::uint32_t pipe_flags = args.flags & ~uapi::MSM_PIPE_ID_MASK;
    if (pipe_flags & ~uapi::MSM_SUBMIT_FLAGS) return -EINVAL;
    constexpr int kSyncobjMinor = 6;  // msm_drv.c: "1.6.0 - Syncobj support"
    if (device_->options.version_minor < kSyncobjMinor &&
        (pipe_flags & (uapi::MSM_SUBMIT_SYNCOBJ_IN | uapi::MSM_SUBMIT_SYNCOBJ_OUT))) {
      return -EINVAL;  // not in that kernel's MSM_SUBMIT_FLAGS
    }
    // SUDO needs CONFIG_DRM_MSM_GPU_SUDO and CAP_SYS_RAWIO; a virtual process has neither.
    if (pipe_flags & uapi::MSM_SUBMIT_SUDO) return -EINVAL;
    Queue* queue = find_queue(args.queueid);
    if (queue == nullptr) return -ENOENT;
    // Fence fds and user-chosen seqnos are valid requests the virtual node does not model (the
    // library passes its fences as syncobjs); it refuses them rather than ignore them.
    if (pipe_flags & (uapi::MSM_SUBMIT_FENCE_FD_IN | uapi::MSM_SUBMIT_FENCE_FD_OUT | uapi::MSM_SUBMIT_FENCE_SN_IN)) {
      return -EOPNOTSUPP;
    }
    std::vector<Ring::Dependency> after;
    std::vector<std::uint32_t> to_reset, to_signal;
    if (pipe_flags & uapi::MSM_SUBMIT_SYNCOBJ_IN) {
      if (int ret = parse_in_syncobjs(args, *queue, after, to_reset); ret < 0) return ret;
    }
    if (pipe_flags & uapi::MSM_SUBMIT_SYNCOBJ_OUT) {
      if (int ret = parse_out_syncobjs(args, to_signal); ret < 0) return ret;
    }
    if ((args.nr_bos != 0 && args.bos == 0) || (args.nr_cmds != 0 && args.cmds == 0)) return -EFAULT;
    const auto* bos = reinterpret_cast<const uapi::drm_msm_gem_submit_bo*>(static_cast<std::uintptr_t>(args.bos));
    const auto* cmds = reinterpret_cast<const uapi::drm_msm_gem_submit_cmd*>(static_cast<std::uintptr_t>(args.cmds));

    // submit_lookup_objects: each entry needs READ and/or WRITE and no unknown flag, then a
    // valid handle — both EINVAL.
    for (std::uint32_t i = 0; i < args.nr_bos; ++i) {
      if ((bos[i].flags & ~uapi::MSM_SUBMIT_BO_FLAGS) ||
          !(bos[i].flags & (uapi::MSM_SUBMIT_BO_READ | uapi::MSM_SUBMIT_BO_WRITE))) {
        return -EINVAL;
      }
    }
    std::vector<std::shared_ptr<GemObject>> table;
    table.reserve(args.nr_bos);
    for (std::uint32_t i = 0; i < args.nr_bos; ++i) {
      auto object = lookup(bos[i].handle);
      if (!object) return -EINVAL;
      table.push_back(std::move(object));
    }
    // submit_lookup_cmds: known type, dword-multiple size (EINVAL). Relocs are kept for later.
    for (std::uint32_t i = 0; i < args.nr_cmds; ++i) {
      if (cmds[i].type < uapi::MSM_SUBMIT_CMD_BUF || cmds[i].type > uapi::MSM_SUBMIT_CMD_CTX_RESTORE_BUF) return -EINVAL;
      if (cmds[i].size % 4 != 0) return -EINVAL;
    }
    // submit_lock_objects: drm_exec_prepare_obj on an object already locked by this submit
    // returns -EALREADY (drm_exec.c; the submit does not pass DRM_EXEC_IGNORE_DUPLICATES).
    std::set<const GemObject*> seen;
    for (const auto& object : table) {
      if (!seen.insert(object.get()).second) return -EALREADY;
    }
    // submit_pin_objects: every table entry gets its iova in this address space.
    for (const auto& object : table) {
      if (int ret = ensure_iova(*object); ret < 0) return ret;
    }
    // The command loop: the index must be inside the table, the IB non-empty and inside its
    // object (sizes and offsets in dwords; the offset is truncated to a dword), all EINVAL.
    // Relocs are refused on a6xx (gpu->allow_relocs is only set before a6xx).
    std::vector<IbSpan> ibs;
    for (std::uint32_t i = 0; i < args.nr_cmds; ++i) {
      if (cmds[i].submit_idx >= table.size()) return -EINVAL;
      const GemObject& object = *table[cmds[i].submit_idx];
      const std::uint64_t dwords = cmds[i].size / 4, offset = cmds[i].submit_offset / 4;
      if (dwords == 0 || dwords + offset > object.size / 4) return -EINVAL;
      if (cmds[i].nr_relocs != 0) return -EINVAL;
      // a6xx_submit: IB_TARGET_BUF is only reached through another IB; CTX_RESTORE_BUF runs
      // when the ring switched contexts, which other processes can always have caused.
      if (cmds[i].type == uapi::MSM_SUBMIT_CMD_IB_TARGET_BUF) continue;
      ibs.push_back(IbSpan{*object.iova + offset * 4, static_cast<std::uint32_t>(dwords)});
    }
    // The submission references its objects until it retires (msm_submit_retire).
    std::vector<std::shared_ptr<const void>> keep_alive(table.begin(), table.end());
    // The bo table is the driver's whole knowledge of what a submission uses
    // (drivers/gpu/drm/msm/msm_gem_submit.c): submit_lookup_objects takes a reference on each
    // entry, submit_pin_objects pins it, submit_attach_object_fences adds the submission's fence
    // to its reservation object (a write or read fence per MSM_SUBMIT_BO_WRITE — all that
    // implicit sync ever sees), and the references are dropped only when the submission retires.
    // Nothing checks what the GPU then touches: on hardware an object missing from the table
    // still works while it stays mapped in the context's address space, yet it can be freed
    // under the running GPU and nobody waits for its access. The virtual node is deliberately
    // stricter than hardware so that such bugs show: an access outside the table's objects —
    // to another live object, or to where an object of this file was until it was freed — is a
    // fault that stops the queue and counts as a recovered one (hardware would at most log a
    // page fault there, and go on). Holes that never held an object fault as on hardware.
    std::vector<AddressRanges::Range> listed;
    listed.reserve(table.size());
    for (const auto& object : table) listed.push_back(AddressRanges::Range{*object->iova, object->size});
    if ((pipe_flags & uapi::MSM_SUBMIT_NO_IMPLICIT) == 0) {
      std::vector<Ring::Dependency> implicit = implicit_dependencies(*queue, bos, table);
      after.insert(after.end(), std::make_move_iterator(implicit.begin()), std::make_move_iterator(implicit.end()));
    }
    const std::uint64_t seqno = queue->ring->submit(std::move(ibs), std::move(keep_alive),
                                                    std::make_shared<const AddressRanges>(std::move(listed)),
                                                    next_injected_fault(device_->config.fault_injection), std::move(after));
    attach_object_fences(*queue, seqno, bos, table);
    // msm_syncobj_reset, then msm_syncobj_process_post_deps: in-syncobjs asked to be reset lose
    // their fence, out-syncobjs get this submission's in place of theirs (drm_syncobj_replace_fence).
    for (const std::uint32_t handle : to_reset) syncobjs_.at(handle) = Syncobj{};
    for (const std::uint32_t handle : to_signal) syncobjs_.at(handle) = Syncobj{SubmitFence{queue->ring, seqno}, false};
    // Fence ids come from idr_alloc_cyclic(1, INT_MAX) per queue: 1, 2, 3, ... like the seqnos.
    queue->last_fence = static_cast<std::uint32_t>(seqno);
    args.fence = queue->last_fence;
    return 0;
  }

  /// Whether the scheduler can drop a dependency on `fence` of a submission on `queue`:
  /// drm_sched_entity_add_dependency_cb skips fences of the job's own entity, whose jobs run in
  /// order anyway — and msm shares one entity among a file's submitqueues of one ring and
  /// priority (msm_submitqueue.c get_sched_entity). A fence that signalled is no dependency either.
  static bool needs_no_wait(const Queue& queue, const Ring& fence_ring, std::uint64_t seqno) {
    return fence_ring.entity() == queue.ring->entity() || fence_ring.passed(seqno);
  }

  /// The driver's user copy of syncobj entry `i` of an array at `address` with `stride` bytes
  /// between entries: min(stride, entry size) bytes over what the previous entry left in `entry`
  /// (msm_syncobj.c copies into one descriptor zeroed once). False: EFAULT.
  static bool copy_syncobj_entry(std::uint64_t address, std::uint32_t stride, std::uint32_t i,
                                 uapi::drm_msm_gem_submit_syncobj& entry) {
    if (address == 0) return false;
    std::memcpy(&entry, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address + std::uint64_t{i} * stride)),
                std::min<std::size_t>(stride, sizeof entry));
    return true;
  }

  /// msm_syncobj.c msm_syncobj_parse_deps: a nonzero point is EOPNOTSUPP (no
  /// DRIVER_SYNCOBJ_TIMELINE), a flag but RESET EINVAL; drm_sched_job_add_syncobj_dependency →
  /// drm_syncobj_find_fence: an unknown handle is ENOENT, a syncobj without a fence EINVAL (no
  /// WAIT_FOR_SUBMIT). The job then waits in the scheduler — not on the ring — until the fence
  /// signalled; other entities' work passes it.
  int parse_in_syncobjs(const uapi::drm_msm_gem_submit& args, const Queue& queue, std::vector<Ring::Dependency>& after,
                        std::vector<std::uint32_t>& to_reset) const {
    uapi::drm_msm_gem_submit_syncobj entry{};
    for (std::uint32_t i = 0; i < args.nr_in_syncobjs; ++i) {
      if (!copy_syncobj_entry(args.in_syncobjs, args.syncobj_stride, i, entry)) return -EFAULT;
      if (entry.point != 0) return -EOPNOTSUPP;
      if (entry.flags & ~uapi::MSM_SUBMIT_SYNCOBJ_FLAGS) return -EINVAL;
      auto it = syncobjs_.find(entry.handle);
      if (it == syncobjs_.end()) return -ENOENT;
      const Syncobj& syncobj = it->second;
      if (!syncobj.fence && !syncobj.signalled_stub) return -EINVAL;
      if (syncobj.fence) {
        auto ring = syncobj.fence->ring.lock();
        if (ring && !needs_no_wait(queue, *ring, syncobj.fence->seqno)) {
          after.push_back(Ring::Dependency{std::move(ring), syncobj.fence->seqno});
        }
      }
      if (entry.flags & uapi::MSM_SUBMIT_SYNCOBJ_RESET) to_reset.push_back(entry.handle);
    }
    return 0;
  }

  /// msm_syncobj.c msm_syncobj_parse_post_deps: any flag is EINVAL, a nonzero point EOPNOTSUPP,
  /// an unknown handle EINVAL.
  int parse_out_syncobjs(const uapi::drm_msm_gem_submit& args, std::vector<std::uint32_t>& to_signal) const {
    uapi::drm_msm_gem_submit_syncobj entry{};
    for (std::uint32_t i = 0; i < args.nr_out_syncobjs; ++i) {
      if (!copy_syncobj_entry(args.out_syncobjs, args.syncobj_stride, i, entry)) return -EFAULT;
      if (entry.flags != 0) return -EINVAL;
      if (entry.point != 0) return -EOPNOTSUPP;
      if (syncobjs_.count(entry.handle) == 0) return -EINVAL;
      to_signal.push_back(entry.handle);
    }
    return 0;
  }

  /// msm_gem_submit.c submit_fence_sync: unless the entry says MSM_SUBMIT_BO_NO_IMPLICIT, the
  /// job depends on the object's fences — every fence for a write, the write fences for a read
  /// (drm_sched_job_add_implicit_dependencies, dma_resv_usage_rw), but for fences of its own
  /// entity (needs_no_wait).
  std::vector<Ring::Dependency> implicit_dependencies(const Queue& queue, const uapi::drm_msm_gem_submit_bo* bos,
                                                      const std::vector<std::shared_ptr<GemObject>>& table) const {
    std::vector<Ring::Dependency> after;
    for (std::size_t i = 0; i < table.size(); ++i) {
      if (bos[i].flags & uapi::MSM_SUBMIT_BO_NO_IMPLICIT) continue;
      const bool write = (bos[i].flags & uapi::MSM_SUBMIT_BO_WRITE) != 0;
      for (const auto& fence : table[i]->fences) {
        auto ring = fence.ring.lock();
        if (!ring || needs_no_wait(queue, *ring, fence.seqno) || !(write || fence.write)) continue;
        after.push_back(Ring::Dependency{std::move(ring), fence.seqno});
      }
    }
    return after;
  }

  /// msm_gem_submit.c submit_attach_object_fences: the submission's fence joins every listed
  /// object's reservation, as a write fence for MSM_SUBMIT_BO_WRITE entries, whatever their
  /// NO_IMPLICIT flag; it replaces the same queue's older fence (dma_resv_add_fence keeps one per
  /// fence context). Signalled fences are dropped.
  void attach_object_fences(const Queue& queue, std::uint64_t seqno, const uapi::drm_msm_gem_submit_bo* bos,
                            const std::vector<std::shared_ptr<GemObject>>& table) const {
    for (std::size_t i = 0; i < table.size(); ++i) {
      auto& fences = table[i]->fences;
      std::erase_if(fences, [&](const GemObject::Fence& fence) {
        auto ring = fence.ring.lock();
        return !ring || ring == queue.ring || ring->passed(fence.seqno);
      });
      fences.push_back(GemObject::Fence{queue.ring, seqno, (bos[i].flags & uapi::MSM_SUBMIT_BO_WRITE) != 0});
    }
  }

  int wait_fence(uapi::drm_msm_wait_fence& args) {
    std::shared_ptr<Ring> ring;
    {
      std::lock_guard lock(mutex_);
      // msm_drv.c msm_ioctl_wait_fence: unknown flags EINVAL, unknown queue ENOENT; wait_fence:
      // a fence after the queue's last submission is EINVAL.
      if (args.flags & ~uapi::MSM_WAIT_FENCE_FLAGS) return -EINVAL;
      Queue* queue = find_queue(args.queueid);
      if (queue == nullptr) return -ENOENT;
      if (args.fence > queue->last_fence) return -EINVAL;
      if (args.fence == 0) return 0;  // no such idr entry: nothing to wait for
      ring = queue->ring;
    }
    // The timeout is an absolute CLOCK_MONOTONIC time; a past one polls (timeout_to_jiffies).
    const std::int64_t now = monotonic_ns();
    std::chrono::nanoseconds remaining = std::chrono::nanoseconds::max();  // beyond int64 ns: forever
    if (args.timeout.tv_sec < std::numeric_limits<std::int64_t>::max() / 1000000000ll - 1) {
      const std::int64_t deadline = args.timeout.tv_sec * 1000000000ll + args.timeout.tv_nsec;
      remaining = std::chrono::nanoseconds(std::max<std::int64_t>(deadline - now, 0));
    }
    // A faulted submission's fence still signals after recovery (msm_gpu.c recover_worker), so
    // WAIT_FENCE succeeds; the fault shows only in the counters.
    return ring->wait(args.fence, remaining) == Ring::WaitResult::timeout ? -ETIMEDOUT : 0;
  }

  std::shared_ptr<MsmDevice> device_;
  std::shared_ptr<GpuMemory> memory_;
  mutable std::mutex mutex_;
  std::map<std::uint32_t, std::shared_ptr<GemObject>> objects_;  // by GEM handle
  std::map<void*, CpuMapping> mappings_;
  std::map<std::uint32_t, Queue> queues_;
  std::map<std::uint32_t, Syncobj> syncobjs_;  // by syncobj handle
  // msm_submitqueue.c get_sched_entity: one drm_sched entity per ring and priority of the file
  // (msm_context), shared by its submitqueues of that priority. Made on first use.
  std::map<std::uint32_t, std::shared_ptr<const int>> entities_;
  std::vector<std::shared_ptr<Ring>> retiring_;  // closed queues with work still in flight
  std::shared_ptr<std::atomic<std::uint64_t>> vm_faults_;  // the address space's recovered faults
  std::uint32_t next_queue_id_ = 1;
};

}  // namespace

VirtualSyscalls::NodeFactory make_virtual_msm_node(const VirtualGpuConfig& config, MsmNodeOptions options) {
  auto device = std::make_shared<MsmDevice>();
  device->config = config;
  device->options = options;
  return [device]() -> std::shared_ptr<VirtualFile> { return std::make_shared<MsmFile>(device); };
}

}  // namespace adreno::virt
