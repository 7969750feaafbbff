#include "msm/msm_kernel.h"

#include "kernel/dmabuf.h"
#include "kernel/kernel_error.h"
#include "msm/msm_abi.h"
#include "msm/submit_table.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <xf86drm.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

namespace adreno {
namespace {

namespace uapi = msm::uapi;

std::string handle_text(std::uint32_t handle) { return "GEM handle " + std::to_string(handle); }
std::string queue_text(Kernel::ContextId id) { return "submitqueue " + std::to_string(id); }

/// Owns a descriptor until release(); closes it when an error unwinds past it.
class DescriptorGuard {
 public:
  DescriptorGuard(sys::Syscalls& sys, int fd) : sys_(sys), fd_(fd) {}
  ~DescriptorGuard() {
    if (fd_ >= 0) sys_.close(fd_);
  }
  DescriptorGuard(const DescriptorGuard&) = delete;
  DescriptorGuard& operator=(const DescriptorGuard&) = delete;
  int release() { return std::exchange(fd_, -1); }

 private:
  sys::Syscalls& sys_;
  int fd_;
};

/// GET_PARAM on the 3D pipe; returns the seam's result and stores the value on success.
int query_param(sys::Syscalls& sys, int fd, std::uint32_t param, std::uint64_t& value) {
  uapi::drm_msm_param args{uapi::MSM_PIPE_3D0, param, 0, 0, 0};
  int ret = sys.ioctl(fd, uapi::DRM_IOCTL_MSM_GET_PARAM, &args);
  if (ret >= 0) value = args.value;
  return ret;
}

std::uint64_t required_param(sys::Syscalls& sys, int fd, std::uint32_t param, const char* name,
                             const std::string& node) {
  std::uint64_t value = 0;
  int ret = query_param(sys, fd, param, value);
  if (ret < 0) throw_kernel_error("MSM DRM_IOCTL_MSM_GET_PARAM", std::string(name) + " of " + node, ret);
  return value;
}

/// VA_START/VA_SIZE exist only with per-process pagetables; without them (and on kernels that
/// predate the params) adreno_get_param answers EINVAL (drivers/gpu/drm/msm/adreno/adreno_gpu.c).
std::optional<VaRange> optional_va_range(sys::Syscalls& sys, int fd, const std::string& node) {
  std::uint64_t start = 0, size = 0;
  for (auto [param, name, value] : {std::tuple{uapi::MSM_PARAM_VA_START, "MSM_PARAM_VA_START", &start},
                                    std::tuple{uapi::MSM_PARAM_VA_SIZE, "MSM_PARAM_VA_SIZE", &size}}) {
    int ret = query_param(sys, fd, param, *value);
    if (ret == -EINVAL) return std::nullopt;
    if (ret < 0) throw_kernel_error("MSM DRM_IOCTL_MSM_GET_PARAM", std::string(name) + " of " + node, ret);
  }
  return VaRange{start, size};
}

std::uint32_t cache_flag(MemoryType type) {
  switch (type) {
    case MemoryType::write_combined: return uapi::MSM_BO_WC;
    case MemoryType::cached: return uapi::MSM_BO_CACHED;
    case MemoryType::cached_coherent: return uapi::MSM_BO_CACHED_COHERENT;
    // msm has no strongly ordered CPU mapping: MSM_BO_UNCACHED has been mapped write-combined
    // since "drm/msm: deprecate MSM_BO_UNCACHED (map as writecombine instead)" and is refused
    // by GEM_NEW since v6.0 (msm_gem.c msm_gem_new_impl). msm_drm.h: "use MSM_BO_WC".
    case MemoryType::uncached: return uapi::MSM_BO_WC;
  }
  throw Error(Errc::invalid_argument, "MSM alloc", "unknown memory type");
}

class MsmKernel final : public Kernel {
 public:
  MsmKernel(sys::Syscalls& sys, int fd, KernelInfo info) : sys_(sys), fd_(fd), info_(std::move(info)) {}
  ~MsmKernel() override {
    for (auto& [id, queue] : queues_) destroy_syncobjs_quietly(queue);
    sys_.close(fd_);
  }

  const KernelInfo& info() const override { return info_; }

  ContextId create_context(unsigned priority) override {
    if (priority >= info_.priority_levels) {
      throw Error(Errc::invalid_argument, "MSM create_context",
                  "priority " + std::to_string(priority) + " outside 0.." + std::to_string(info_.priority_levels - 1) +
                      " (MSM_PARAM_PRIORITIES of " + info_.node + ")");
    }
    uapi::drm_msm_submitqueue args{0, priority, 0};
    call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &args, "DRM_IOCTL_MSM_SUBMITQUEUE_NEW",
         "priority " + std::to_string(priority));
    // A new queue's fault counter starts at zero (msm_submitqueue.c allocates it zeroed).
    std::lock_guard lock(mutex_);
    queues_[args.id] = Queue{0, false, {}, {}};
    return args.id;
  }

  void destroy_context(ContextId ctx) override {
    std::lock_guard lock(mutex_);
    find_queue(ctx, "MSM destroy_context");
    std::uint32_t id = ctx;
    call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id, "DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE", queue_text(ctx));
    // Nothing names this queue's submissions any more, and a submission that depended on one
    // holds the fence itself (drm_syncobj_find_fence took it): the syncobjs go with the queue.
    destroy_syncobjs_quietly(queues_.at(ctx));
    queues_.erase(ctx);
  }

  Bo alloc(std::uint64_t size, BoFlags flags) override {
    uapi::drm_msm_gem_new args{size, cache_flag(flags.type) | (flags.gpu_read_only ? uapi::MSM_BO_GPU_READONLY : 0u), 0};
    const int ret = sys_.ioctl(fd_, uapi::DRM_IOCTL_MSM_GEM_NEW, &args);
    // msm_gem.c msm_gem_new_impl refuses CACHED_COHERENT with EINVAL where the GPU lacks
    // ADRENO_QUIRK_HAS_CACHED_COHERENT; freedreno probes it the same way (msm_device.c
    // msm_device_new: has_cached_coherent from a trial GEM_NEW). A missing feature, not a bad call.
    if (ret == -EINVAL && flags.type == MemoryType::cached_coherent) {
      throw Error(Errc::unsupported, "MSM DRM_IOCTL_MSM_GEM_NEW",
                  "size " + std::to_string(size) + ": " + info_.node + " offers no cached-coherent memory (MSM_BO_CACHED_COHERENT refused)",
                  EINVAL);
    }
    if (ret < 0) {
      throw_kernel_error("MSM DRM_IOCTL_MSM_GEM_NEW", "size " + std::to_string(size) + ", flags 0x" + hex(args.flags), ret);
    }
    std::uint64_t iova = 0;
    try {
      iova = gem_info(args.handle, uapi::MSM_INFO_GET_IOVA, "MSM_INFO_GET_IOVA");
    } catch (...) {
      close_handle_quietly(args.handle);
      throw;
    }
    std::lock_guard lock(mutex_);
    handle_refs_[args.handle] = 1;
    return Bo{args.handle, size, GpuAddress(iova), flags};
  }

  void free(const Bo& bo) override {
    std::lock_guard lock(mutex_);
    if (handle_refs_.count(bo.handle) == 0) {
      throw Error(Errc::not_found, "MSM free", handle_text(bo.handle) + " is not open");
    }
    const int ret = release_handle(bo.handle);
    if (ret < 0) throw_kernel_error("MSM DRM_IOCTL_GEM_CLOSE", handle_text(bo.handle), ret);
  }

  CpuView map(const Bo& bo) override {
    std::uint64_t offset = gem_info(bo.handle, uapi::MSM_INFO_GET_OFFSET, "MSM_INFO_GET_OFFSET");
    sys::MapResult mapped =
        sys_.mmap(bo.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, static_cast<off_t>(offset));
    if (mapped.addr == nullptr) {
      throw_kernel_error("MSM mmap", handle_text(bo.handle) + " (" + std::to_string(bo.size) + " bytes at offset 0x" +
                                         hex(offset) + ")",
                         -mapped.error);
    }
    // msm_gem.c cleans CPU caches only for WC and uncached pages when it allocates them: a
    // cached object's pages can still hold dirty lines from the kernel zeroing them, which would
    // later be written back over what the GPU wrote. Turnip cleans a cached object after
    // GEM_NEW (tu_knl_drm_msm.cc); the object is mapped once, right after creation. The virtual
    // msm node keeps those lines dirty and writes them back at the CPU's first maintenance.
    if (bo.flags.type == MemoryType::cached) sys_.maintain_dcache(sys::Syscalls::CacheMaintenance::clean, mapped.addr, bo.size);
    return CpuView(mapped.addr, bo.size);
  }

  void unmap(const Bo& bo, CpuView view) override {
    int ret = sys_.munmap(view.data(), view.size());
    if (ret < 0) throw_kernel_error("MSM munmap", handle_text(bo.handle), ret);
  }

  Bo import_dmabuf(int fd) override {
    const std::uint64_t size = dmabuf_size(sys_, fd, "MSM import_dmabuf");
    drm_prime_handle args{0, 0, fd};
    {
      // A dma-buf this file already has a handle for yields that same handle, with no reference
      // of its own (drm_prime.c drm_gem_prime_fd_to_handle: drm_prime_lookup_buf_handle), and a
      // GEM_CLOSE of it by the free of another Bo on the handle would close it under this one.
      // So the handle is counted before the lock goes, and free counts down and closes under the
      // same lock, as Mesa's freedreno_bo.c does it: fd_bo_from_dmabuf holds table_lock across
      // drmPrimeFDToHandle and the handle-table lookup (which takes the reference), and the
      // handle is closed and dropped from the table under table_lock (fd_bo_fini_common).
      std::lock_guard lock(mutex_);
      call(DRM_IOCTL_PRIME_FD_TO_HANDLE, &args, "DRM_IOCTL_PRIME_FD_TO_HANDLE", "fd " + std::to_string(fd));
      ++handle_refs_[args.handle];
      shared_handles_.insert(args.handle);
    }
    std::uint64_t iova = 0;
    try {
      iova = gem_info(args.handle, uapi::MSM_INFO_GET_IOVA, "MSM_INFO_GET_IOVA");
    } catch (...) {
      std::lock_guard lock(mutex_);
      release_handle(args.handle);
      throw;
    }
    // msm_gem.c msm_gem_import: imported objects are write-combined for the CPU.
    return Bo{args.handle, size, GpuAddress(iova),
              BoFlags{MemoryType::write_combined, false}};
  }

  int export_dmabuf(const Bo& bo) override {
    drm_prime_handle args{bo.handle, DRM_CLOEXEC | DRM_RDWR, -1};
    call(DRM_IOCTL_PRIME_HANDLE_TO_FD, &args, "DRM_IOCTL_PRIME_HANDLE_TO_FD", handle_text(bo.handle));
    std::lock_guard lock(mutex_);
    shared_handles_.insert(bo.handle);
    return args.fd;
  }

  Bo import_user_memory(void*, std::uint64_t size) override {
    // msm_drm.h has no user-pointer object: the only way in for foreign memory is a dma-buf.
    throw Error(Errc::unsupported, "MSM import_user_memory",
                std::to_string(size) + " bytes: the msm driver cannot wrap user memory; put it in a dma-buf "
                                       "(e.g. a udmabuf from a memfd) and use import_dmabuf");
  }

  std::uint64_t submit(ContextId ctx, std::span<const IbRef> ibs, std::span<const BoUse> bos,
                       std::span<const FenceWait> after = {}) override {
    // Held through GEM_SUBMIT: a syncobj named as an in-fence below must still carry the fence
    // it was chosen for when the kernel reads it, and another thread's submission could
    // otherwise reuse it as its out-fence in between (Turnip's msm_queue_submit likewise holds
    // its bo_mutex across the ioctl).
    std::lock_guard lock(mutex_);
    {
      const Queue& queue = find_queue(ctx, "MSM submit");
      if (queue.lost) throw lost_error("MSM submit", ctx, queue.faults);
    }
    // Other queues' submissions are waited for by the kernel, not here and not on the ring: each
    // submission signals a syncobj of its own (MSM_SUBMIT_SYNCOBJ_OUT), and a dependent one names
    // it in MSM_SUBMIT_SYNCOBJ_IN, as Turnip's msm_queue_submit passes its semaphores
    // (tu_knl_drm_msm.cc). The scheduler holds the job until those fences signalled
    // (msm_syncobj.c msm_syncobj_parse_deps → drm_sched_job_add_syncobj_dependency), while the
    // ring runs other work. Kernels before the scheduler (v5.16) waited for them inside the
    // ioctl instead (msm_gem_submit.c msm_wait_deps, dma_fence_wait). msm syncobjs are binary
    // (no DRIVER_SYNCOBJ_TIMELINE), hence one per submission of a queue still in flight,
    // recycled by the queue once it retired. A submission known retired needs no fence; so does one of a queue destroyed
    // since (its queue drained first, or faulted: a faulted submission's fence still signals).
    in_syncobjs_.clear();
    for (const FenceWait& wait : after) {
      auto producer = queues_.find(wait.context);
      if (producer == queues_.end()) continue;
      const auto& in_flight = producer->second.in_flight;
      auto it = std::find_if(in_flight.begin(), in_flight.end(), [&](const InFlight& s) { return s.fence == wait.fence; });
      if (it != in_flight.end()) in_syncobjs_.push_back(uapi::drm_msm_gem_submit_syncobj{it->syncobj, 0, 0});
    }
    Queue& queue = find_queue(ctx, "MSM submit");
    const std::uint32_t out = take_syncobj(ctx, queue);
    uapi::drm_msm_gem_submit_syncobj out_syncobj{out, 0, 0};
    msm::SubmitTable table = msm::build_submit_table(ibs, bos);
    uapi::drm_msm_gem_submit args{};
    args.flags = uapi::MSM_PIPE_3D0 | implicit_sync_flags(table) | uapi::MSM_SUBMIT_SYNCOBJ_OUT |
                 (in_syncobjs_.empty() ? 0u : uapi::MSM_SUBMIT_SYNCOBJ_IN);
    args.nr_bos = static_cast<std::uint32_t>(table.bos.size());
    args.nr_cmds = static_cast<std::uint32_t>(table.cmds.size());
    args.bos = reinterpret_cast<std::uintptr_t>(table.bos.data());
    args.cmds = reinterpret_cast<std::uintptr_t>(table.cmds.data());
    args.fence_fd = -1;
    args.queueid = ctx;
    args.in_syncobjs = reinterpret_cast<std::uintptr_t>(in_syncobjs_.data());
    args.out_syncobjs = reinterpret_cast<std::uintptr_t>(&out_syncobj);
    args.nr_in_syncobjs = static_cast<std::uint32_t>(in_syncobjs_.size());
    args.nr_out_syncobjs = 1;
    args.syncobj_stride = sizeof(uapi::drm_msm_gem_submit_syncobj);
    const int ret = sys_.ioctl(fd_, uapi::DRM_IOCTL_MSM_GEM_SUBMIT, &args);
    if (ret < 0) {
      queue.idle_syncobjs.push_back(out);  // the failed submission replaced nothing
      throw_kernel_error("MSM DRM_IOCTL_MSM_GEM_SUBMIT",
                         queue_text(ctx) + ", " + std::to_string(args.nr_cmds) + " IBs, " + std::to_string(args.nr_bos) +
                             " objects, " + std::to_string(args.nr_in_syncobjs) + " in-fences",
                         ret);
    }
    queue.in_flight.push_back(InFlight{args.fence, out});
    return args.fence;
  }

  bool wait(ContextId ctx, std::uint64_t fence, std::chrono::nanoseconds timeout) override {
    {
      std::lock_guard lock(mutex_);
      const Queue& queue = find_queue(ctx, "MSM wait");
      if (queue.lost) throw lost_error("MSM wait", ctx, queue.faults);
    }
    // WAIT_FENCE takes an absolute CLOCK_MONOTONIC deadline (msm_drm.h, drm_msm_timespec), so an
    // ioctl restarted after a signal keeps the caller's deadline.
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    const std::int64_t ns = std::max<std::int64_t>(timeout.count(), 0);
    std::int64_t sec = now.tv_sec + ns / 1000000000;
    std::int64_t nsec = now.tv_nsec + ns % 1000000000;
    if (nsec >= 1000000000) {
      ++sec;
      nsec -= 1000000000;
    }
    // Interrupted (msm_wait_fence waits interruptibly), the seam asks again with the same
    // arguments (sys::retry_transient), which keep the same deadline; once it passed, the driver
    // answers -ETIMEDOUT.
    uapi::drm_msm_wait_fence args{static_cast<std::uint32_t>(fence), 0, {sec, nsec}, ctx};
    int ret = sys_.ioctl(fd_, uapi::DRM_IOCTL_MSM_WAIT_FENCE, &args);
    if (ret == -ETIMEDOUT) return false;  // msm_drv.c wait_fence: the deadline passed first
    if (ret < 0) {
      throw_kernel_error("MSM DRM_IOCTL_MSM_WAIT_FENCE", queue_text(ctx) + ", fence " + std::to_string(fence), ret);
    }
    // A fence signals even when its submission faulted: the driver's recovery retires the guilty
    // submission and only counts the fault (msm_gpu.c recover_worker). The counter tells.
    std::uint32_t faults = queue_faults(ctx, "fence " + std::to_string(fence));
    std::lock_guard lock(mutex_);
    Queue& queue = find_queue(ctx, "MSM wait");
    retire_through(queue, fence);
    if (faults != queue.faults) {
      queue.faults = faults;
      queue.lost = true;
    }
    if (queue.lost) throw lost_error("MSM DRM_IOCTL_MSM_WAIT_FENCE", ctx, faults);
    return true;
  }

  ResetStatus reset_status(ContextId ctx) override {
    {
      std::lock_guard lock(mutex_);
      find_queue(ctx, "MSM reset_status");
    }
    // Only the queue's own counter speaks for it: msm_gpu.c recover_worker bumps it for the
    // queue whose submission hung. MSM_PARAM_FAULTS (adreno_gpu.c adreno_get_param:
    // gpu->global_faults + the address space's faults) also moves for the file's other queues,
    // for other processes when there are no per-process pagetables, and for processes that
    // exited; it cannot tell whether this queue's work was caught in a recovery, so it never
    // makes a queue innocent (Turnip's msm_device_check_status reads it only as "the GPU faulted
    // or hung", tu_knl_drm_msm.cc).
    std::uint32_t faults = queue_faults(ctx, "reset status");
    std::lock_guard lock(mutex_);
    Queue& queue = find_queue(ctx, "MSM reset_status");
    if (faults != queue.faults) {
      queue.faults = faults;
      queue.lost = true;
    }
    return queue.lost ? ResetStatus::guilty : ResetStatus::none;
  }

 private:
  /// A submission not known to have retired, and the syncobj its fence went to.
  struct InFlight {
    std::uint64_t fence;
    std::uint32_t syncobj;
  };
  struct Queue {
    std::uint32_t faults;  // MSM_SUBMITQUEUE_PARAM_FAULTS last seen
    bool lost;             // sticky once the queue faulted
    std::deque<InFlight> in_flight;  // in submission order
    std::vector<std::uint32_t> idle_syncobjs;  // their submissions retired
  };

  /// A syncobj for a submission of `queue` to signal: one whose submission retired, or a new one.
  std::uint32_t take_syncobj(ContextId ctx, Queue& queue) {
    if (!queue.idle_syncobjs.empty()) {
      const std::uint32_t handle = queue.idle_syncobjs.back();
      queue.idle_syncobjs.pop_back();
      return handle;
    }
    drm_syncobj_create args{0, 0};
    call(DRM_IOCTL_SYNCOBJ_CREATE, &args, "DRM_IOCTL_SYNCOBJ_CREATE", "out-fence of a submission on " + queue_text(ctx));
    return args.handle;
  }

  /// Everything up to `fence` on `queue` retired: its syncobjs can take other fences.
  void retire_through(Queue& queue, std::uint64_t fence) {
    while (!queue.in_flight.empty() && queue.in_flight.front().fence <= fence) {
      queue.idle_syncobjs.push_back(queue.in_flight.front().syncobj);
      queue.in_flight.pop_front();
    }
  }

  /// Syncobjs live until destroyed or until the file closes (drm_syncobj_release); destroyed with
  /// their queue, so that a virtual node's ledger sees every object go. Cleanup: errors ignored.
  void destroy_syncobjs_quietly(Queue& queue) {
    retire_through(queue, std::numeric_limits<std::uint64_t>::max());
    for (const std::uint32_t handle : queue.idle_syncobjs) {
      drm_syncobj_destroy args{handle, 0};
      sys_.ioctl(fd_, DRM_IOCTL_SYNCOBJ_DESTROY, &args);
    }
    queue.idle_syncobjs.clear();
  }

  static std::string hex(std::uint64_t value) {
    char text[20];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
    return text;
  }

  void call(unsigned long request, void* arg, const char* name, const std::string& detail) {
    int ret = sys_.ioctl(fd_, request, arg);
    if (ret < 0) throw_kernel_error(std::string("MSM ") + name, detail, ret);
  }

  std::uint64_t gem_info(std::uint32_t handle, std::uint32_t info, const char* name) {
    uapi::drm_msm_gem_info args{handle, info, 0, 0, 0};
    call(uapi::DRM_IOCTL_MSM_GEM_INFO, &args, "DRM_IOCTL_MSM_GEM_INFO", std::string(name) + " of " + handle_text(handle));
    return args.value;
  }

  std::uint32_t queue_faults(ContextId ctx, const std::string& why) {
    std::uint32_t faults = 0;
    uapi::drm_msm_submitqueue_query args{reinterpret_cast<std::uintptr_t>(&faults), ctx,
                                         uapi::MSM_SUBMITQUEUE_PARAM_FAULTS, sizeof faults, 0};
    call(uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &args, "DRM_IOCTL_MSM_SUBMITQUEUE_QUERY",
         "MSM_SUBMITQUEUE_PARAM_FAULTS of " + queue_text(ctx) + " (" + why + ")");
    return faults;
  }

  Queue& find_queue(ContextId ctx, const char* operation) {
    auto it = queues_.find(ctx);
    if (it == queues_.end()) throw Error(Errc::not_found, operation, queue_text(ctx) + " was not created here");
    return it->second;
  }

  /// Implicit sync makes a submission wait for every other queue's fences on the objects it
  /// lists (msm_gem_submit.c submit_fence_sync → drm_sched_job_add_implicit_dependencies). The
  /// library's queues order their work themselves and share slabs (queue scratch, signals), so
  /// implicit sync would chain every queue to every other: it is turned off for the whole
  /// submission (MSM_SUBMIT_NO_IMPLICIT, as Turnip's msm_queue_submit sets it) unless an
  /// object shared with other drivers or processes is listed; then only those objects keep it
  /// and every other entry says MSM_SUBMIT_BO_NO_IMPLICIT. Called with mutex_ held.
  std::uint32_t implicit_sync_flags(msm::SubmitTable& table) {
    const auto shared = [&](const uapi::drm_msm_gem_submit_bo& entry) { return shared_handles_.count(entry.handle) != 0; };
    if (std::none_of(table.bos.begin(), table.bos.end(), shared)) return uapi::MSM_SUBMIT_NO_IMPLICIT;
    for (auto& entry : table.bos) {
      if (!shared(entry)) entry.flags |= uapi::MSM_SUBMIT_BO_NO_IMPLICIT;
    }
    return 0;
  }

  static Error lost_error(const char* operation, ContextId ctx, std::uint32_t faults) {
    return Error(Errc::device_lost, operation,
                 queue_text(ctx) + " faulted or hung on the GPU (MSM_SUBMITQUEUE_PARAM_FAULTS = " +
                     std::to_string(faults) + "); the context is lost");
  }

  /// Drops one Bo's count on an open handle; the last one closes it (a dma-buf imported twice
  /// shares one handle, drm_prime.c drm_gem_prime_fd_to_handle). Returns GEM_CLOSE's result (0
  /// when the handle stays open); a refused close leaves the handle counted. Called with mutex_ held.
  int release_handle(std::uint32_t handle) {
    auto it = handle_refs_.find(handle);
    if (it->second > 1) {
      --it->second;
      return 0;
    }
    drm_gem_close args{handle, 0};
    const int ret = sys_.ioctl(fd_, DRM_IOCTL_GEM_CLOSE, &args);
    if (ret < 0) return ret;
    handle_refs_.erase(it);
    shared_handles_.erase(handle);
    return 0;
  }

  // Cleanup on error paths: the original error is what the caller needs to see.
  void close_handle_quietly(std::uint32_t handle) {
    drm_gem_close args{handle, 0};
    sys_.ioctl(fd_, DRM_IOCTL_GEM_CLOSE, &args);
  }

  sys::Syscalls& sys_;
  const int fd_;
  const KernelInfo info_;
  std::mutex mutex_;
  std::map<ContextId, Queue> queues_;
  std::map<std::uint32_t, unsigned> handle_refs_;  // Bos alive per GEM handle
  std::set<std::uint32_t> shared_handles_;          // imported or exported: implicit sync stays on
  std::vector<uapi::drm_msm_gem_submit_syncobj> in_syncobjs_;  // reused across submits
};

}  // namespace

std::unique_ptr<Kernel> open_msm_kernel(sys::Syscalls& sys, const std::string& path, bool is_virtual) {
  int fd = sys.open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw_kernel_error("MSM open", path, fd);
  DescriptorGuard guard(sys, fd);

  // drm_ioctl.c drm_copy_field: copies at most name_len bytes and reports the full length.
  char name[64] = {};
  drm_version version{};
  version.name = name;
  version.name_len = sizeof name - 1;
  int ret = sys.ioctl(fd, DRM_IOCTL_VERSION, &version);
  if (ret < 0) throw_kernel_error("MSM DRM_IOCTL_VERSION", path, ret);
  const std::string driver(name, std::min<std::size_t>(version.name_len, sizeof name - 1));
  if (driver != "msm") {
    throw Error(Errc::unsupported, "MSM DRM_IOCTL_VERSION", path + " is driven by \"" + driver + "\", not msm");
  }
  // Every submission signals a syncobj and names those it waits for (MSM_SUBMIT_SYNCOBJ_OUT/IN),
  // which GEM_SUBMIT knows from msm 1.6 on (msm_drv.c version history: "1.6.0 - Syncobj
  // support"); an older driver answers EINVAL for the flags at the first submission.
  constexpr int kSyncobjMajor = 1, kSyncobjMinor = 6;
  if (version.version_major < kSyncobjMajor ||
      (version.version_major == kSyncobjMajor && version.version_minor < kSyncobjMinor)) {
    throw Error(Errc::unsupported, "MSM DRM_IOCTL_VERSION",
                path + " runs msm " + std::to_string(version.version_major) + "." + std::to_string(version.version_minor) +
                    ", before 1.6: GEM_SUBMIT takes no syncobjs");
  }

  KernelInfo info;
  info.kind = KernelKind::msm;
  info.node = path;
  info.is_virtual = is_virtual;
  // adreno_gpu.c adreno_get_param: the chip id is the low 32 bits; a part the catalog lists without
  // a revn (the a7xx parts) has its speed bin above them, which does not name the part.
  info.chip_id = static_cast<std::uint32_t>(required_param(sys, fd, uapi::MSM_PARAM_CHIP_ID, "MSM_PARAM_CHIP_ID", path));
  info.gpu_id = static_cast<std::uint32_t>(required_param(sys, fd, uapi::MSM_PARAM_GPU_ID, "MSM_PARAM_GPU_ID", path));
  info.gmem_size = required_param(sys, fd, uapi::MSM_PARAM_GMEM_SIZE, "MSM_PARAM_GMEM_SIZE", path);
  info.priority_levels =
      static_cast<unsigned>(required_param(sys, fd, uapi::MSM_PARAM_PRIORITIES, "MSM_PARAM_PRIORITIES", path));
  if (info.priority_levels == 0) {
    throw Error(Errc::unsupported, "MSM DRM_IOCTL_MSM_GET_PARAM", "MSM_PARAM_PRIORITIES of " + path + " is 0");
  }
  info.va = optional_va_range(sys, fd, path);
  return std::make_unique<MsmKernel>(sys, guard.release(), std::move(info));
}

std::vector<std::string> msm_render_node_candidates() {
  std::vector<std::string> nodes;
  int count = drmGetDevices2(0, nullptr, 0);
  if (count <= 0) return nodes;
  std::vector<drmDevicePtr> devices(static_cast<std::size_t>(count));
  count = drmGetDevices2(0, devices.data(), count);
  for (int i = 0; i < count; ++i) {
    if (devices[i]->available_nodes & (1 << DRM_NODE_RENDER)) nodes.emplace_back(devices[i]->nodes[DRM_NODE_RENDER]);
  }
  if (count > 0) drmFreeDevices(devices.data(), count);
  return nodes;
}

}  // namespace adreno
