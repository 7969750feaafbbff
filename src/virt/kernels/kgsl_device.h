// The virtual KGSL device: what /dev/kgsl-3d0 is to the kernel. One device is shared by every
// file opened on the node; it owns the global draw-context id space and each context's Ring,
// as kgsl_device's context_idr does (qualcomm-linux/kgsl kgsl.c, _kgsl_get_context_id). Memory
// lives in the files (kgsl_file.h): each open is a process with its own pagetable.
#pragma once

#include "virt/kernels/rate_limit.h"
#include "virt/kernels/ring.h"
#include "virt/kernels/virtual_gpu_config.h"
#include "virt/kernels/virtual_syscalls.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace adreno::virt {

/// The factory for VirtualSyscalls::add_node: every file it creates shares one virtual device.
VirtualSyscalls::NodeFactory make_virtual_kgsl_node(const VirtualGpuConfig& config);

/// A page fault kept for a KGSL_CONTEXT_FAULT_INFO context (kgsl.c kgsl_add_fault).
struct KgslPageFault {
  std::uint64_t address;
  std::uint32_t type;  // KGSL_PAGEFAULT_TYPE_*
  std::chrono::steady_clock::time_point time;
};

/// A draw context: its flags, its owner (the file that created it) and the ring it runs on.
struct KgslContext {
  std::uint32_t id;
  std::uint64_t owner;
  std::uint32_t flags;
  std::shared_ptr<Ring> ring;
  bool reset_reported = false;  // GPU_RESET_STAT reports GUILTY once, then NO_ERROR
  bool recovered = false;       // ADRENO_CONTEXT_FAULT: lived through another context's recovery
  std::deque<KgslPageFault> page_faults;  // KGSL_CONTEXT_FAULT_INFO only; the device's lock
  /// The draw queue: each queued command's timestamp and the drawobjs it brought, oldest first,
  /// until it retires; the device's lock.
  struct Queued {
    std::uint64_t timestamp;
    unsigned drawobjs;
  };
  std::deque<Queued> drawqueue;
};

class KgslDevice {
 public:
  explicit KgslDevice(const VirtualGpuConfig& config) : config_(config) {}

  const VirtualGpuConfig& config() const noexcept { return config_; }

  /// A number naming a new open file (the owner of its contexts).
  std::uint64_t new_owner();

  /// DRAWCTXT_CREATE after flag validation: the new id, or -errno.
  int create_context(std::uint64_t owner, std::uint32_t flags, std::shared_ptr<const GpuMemory> memory);
  /// DRAWCTXT_DESTROY: 0 or -errno.
  int destroy_context(std::uint64_t owner, std::uint32_t id);
  /// The context `id` when `owner` created it (kgsl_context_get_owner), else nullptr.
  std::shared_ptr<KgslContext> find(std::uint64_t owner, std::uint32_t id) const;
  /// Any context of the device, whoever owns it (kgsl_context_get), else nullptr.
  std::shared_ptr<KgslContext> find_any(std::uint32_t id) const;
  /// Before queueing `drawobjs` (1, or 2 with a sync object) on `context`: 0 once they fit in its
  /// draw queue, -ETIMEDOUT when it stayed full for the whole wait, -EDEADLK when the context
  /// was invalidated meanwhile, -EINVAL when they can never fit.
  int wait_for_room(KgslContext& context, unsigned drawobjs);
  /// The command of `timestamp` was queued with `drawobjs` drawobjs.
  void queued(KgslContext& context, std::uint64_t timestamp, unsigned drawobjs);
  /// Whether `context` lived through a fault recovery since last asked (read-and-clear).
  bool take_recovered(KgslContext& context);
  /// GPU_RESET_STAT: read-and-clear, as kgsl_prop_gpu_reset_stat does.
  std::uint32_t take_reset_status(KgslContext& context);
  /// The page faults kept for `context` (GET_FAULT_REPORT), oldest first.
  std::vector<KgslPageFault> page_faults(const KgslContext& context) const;
  /// Ids of the contexts `owner` still holds.
  std::vector<std::uint32_t> contexts_of(std::uint64_t owner) const;
  /// The owner's file is released: its contexts are detached (kgsl_release → context detach).
  void release(std::uint64_t owner);

 private:
  /// The ringbuffer of the band a context of `flags`' priority runs on (created on first use).
  std::shared_ptr<RingBuffer> ringbuffer_for(std::uint32_t flags);
  /// A context faulted: recovery resets the GPU and replays the others' unfinished work.
  void recover_from(const FaultRecord& fault, std::uint32_t guilty);
  /// A page fault of context `id`'s submission, which the GPU went on after.
  void page_fault(std::uint32_t id, const FaultRecord& fault);

  const VirtualGpuConfig config_;
  RateLimit page_fault_prints_;  // the IOMMU context's ratelimit (kgsl_iommu_print_fault)
  mutable std::mutex mutex_;
  // kgsl.h KGSL_PRIORITY_MAX_RB_LEVELS: four ringbuffers, one per priority band.
  std::array<std::shared_ptr<RingBuffer>, 4> ringbuffers_;
  std::uint64_t next_owner_ = 1;
  std::map<std::uint32_t, std::shared_ptr<KgslContext>> contexts_;
};

}  // namespace adreno::virt
