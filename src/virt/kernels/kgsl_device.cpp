#include "virt/kernels/kgsl_device.h"

#include "kgsl/kgsl_abi.h"
#include "virt/kernels/fault_injection.h"
#include "virt/kernels/kgsl_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <utility>

namespace adreno::virt {
namespace {

// Context ids come from an idr over [1, KGSL_MEMSTORE_MAX): one memstore slot of
// sizeof(struct kgsl_devmemstore) = 40 bytes each in 8 pages, less the global slot, the LPAC
// ringbuffer and 4 priority ringbuffers (qualcomm-linux/kgsl kgsl.h KGSL_MEMSTORE_MAX, kgsl.c
// _kgsl_get_context_id). Exhaustion is -ENOSPC.
constexpr std::uint32_t kMemstoreSize = 8 * 4096;
constexpr std::uint32_t kDevmemstoreSize = 40;
constexpr std::uint32_t kMemstoreMax = kMemstoreSize / kDevmemstoreSize - 2 - 4;
// kgsl_context_init refuses a process more than KGSL_MAX_CONTEXTS_PER_PROC contexts (the check
// is `count > 200` before the increment) with -ENOSPC.
constexpr std::size_t kMaxContextsPerProcess = 200;

// kgsl_device.h: a context keeps at most KGSL_MAX_FAULT_ENTRIES faults, and kgsl_add_fault
// drops those older than KGSL_MAX_FAULT_TIME_THRESHOLD ms whenever it adds one.
constexpr std::size_t kMaxFaultEntries = 40;
constexpr std::chrono::milliseconds kMaxFaultTime{5000};

}  // namespace

VirtualSyscalls::NodeFactory make_virtual_kgsl_node(const VirtualGpuConfig& config) {
  auto device = std::make_shared<KgslDevice>(config);
  return [device]() -> std::shared_ptr<VirtualFile> { return std::make_shared<KgslFile>(device); };
}

std::uint64_t KgslDevice::new_owner() {
  std::lock_guard lock(mutex_);
  return next_owner_++;
}

int KgslDevice::create_context(std::uint64_t owner, std::uint32_t flags, std::shared_ptr<const GpuMemory> memory) {
  std::lock_guard lock(mutex_);
  const auto owned = std::count_if(contexts_.begin(), contexts_.end(),
                                   [&](const auto& entry) { return entry.second->owner == owner; });
  if (static_cast<std::size_t>(owned) > kMaxContextsPerProcess) return -ENOSPC;
  // idr_alloc hands out the lowest free id.
  std::uint32_t id = 1;
  for (const auto& [used, context] : contexts_) {
    if (used != id) break;
    ++id;
  }
  if (id >= kMemstoreMax) return -ENOSPC;
  auto context = std::make_shared<KgslContext>();
  context->id = id;
  context->owner = owner;
  context->flags = flags;
  // KGSL prints a fault to the kernel log with its context and timestamp (adreno_dispatch.c
  // adreno_fault_header: "gpu fault ctx %u ... ts %u"); stderr is the host's stand-in for that log.
  // Recovery then reaches the other contexts (recover_from).
  const std::string timeline = "context " + std::to_string(id);
  Ring::FaultLog report = reporting_fault_log(config_.fault_injection, timeline, [id](const FaultRecord& fault) {
    std::fprintf(stderr, "virtual kgsl: gpu fault ctx %u ts %llu: %s\n", id, static_cast<unsigned long long>(fault.seqno),
                 fault.message.c_str());
  });
  // A page fault goes to the IOMMU fault handler instead, which does not start a recovery under
  // the default policy (kgsl_iommu.c kgsl_iommu_fault_handler).
  Ring::FaultLog page_fault_report = reporting_fault_log(
      config_.fault_injection, timeline, [this, id](const FaultRecord& fault) { page_fault(id, fault); });
  context->ring = std::make_shared<Ring>(std::move(memory), config_.hang_timeout,
                                         Ring::FaultLogs{[this, id, report](const FaultRecord& fault) {
                                                           report(fault);
                                                           recover_from(fault, id);
                                                         },
                                                         std::move(page_fault_report)},
                                         ringbuffer_for(flags), config_.model.instr_cache_units, config_.execution, nullptr,
                                         config_.model.generation);
  contexts_.emplace(id, std::move(context));
  return static_cast<int>(id);
}

std::shared_ptr<RingBuffer> KgslDevice::ringbuffer_for(std::uint32_t flags) {
  // adreno_dispatch.c dispatch_get_rb (preemption enabled, as on a6xx): the band is the context
  // priority divided by the number of ringbuffers, capped at the last one. Priority 1..15 (0 was
  // made 8 at creation) gives bands 0..3; every context of a band shares its ringbuffer, so one
  // context's CP wait holds all of them.
  const std::uint32_t priority = (flags & KGSL_CONTEXT_PRIORITY_MASK) >> KGSL_CONTEXT_PRIORITY_SHIFT;
  const std::size_t band = std::min<std::size_t>(priority / ringbuffers_.size(), ringbuffers_.size() - 1);
  if (!ringbuffers_[band]) ringbuffers_[band] = std::make_shared<RingBuffer>();
  return ringbuffers_[band];
}

int KgslDevice::destroy_context(std::uint64_t owner, std::uint32_t id) {
  std::shared_ptr<KgslContext> detached;
  {
    std::lock_guard lock(mutex_);
    auto it = contexts_.find(id);
    // kgsl_ioctl_drawctxt_destroy: a context of another process, or none, is -EINVAL.
    if (it == contexts_.end() || it->second->owner != owner) return -EINVAL;
    detached = std::move(it->second);
    contexts_.erase(it);
  }
  // The ring (and its thread) goes when the last waiter lets go of the context, outside the lock.
  return 0;
}

void KgslDevice::recover_from(const FaultRecord&, std::uint32_t guilty) {
  // adreno_dispatch.c fault recovery resets the GPU and replays the commands other contexts had
  // in flight, flagging each of them ADRENO_CONTEXT_FAULT; their next GPU_COMMAND is queued and
  // answered -EPROTO. The faulting context itself is invalidated (INVALIDATE_ON_FAULT).
  std::lock_guard lock(mutex_);
  for (const auto& [id, context] : contexts_) {
    if (id != guilty && context->ring->submitted() != context->ring->retired()) context->recovered = true;
  }
}

void KgslDevice::page_fault(std::uint32_t id, const FaultRecord& fault) {
  // kgsl_iommu_print_fault, rate limited; the GPU address is printed as the driver does.
  if (page_fault_prints_.allow()) {
    std::fprintf(stderr, "virtual kgsl: GPU PAGE FAULT: addr = %llX drawctxt=%u ts %llu (%s %s fault)\n",
                 static_cast<unsigned long long>(fault.address), id, static_cast<unsigned long long>(fault.seqno),
                 fault.write ? "write" : "read", fault.permission ? "permission" : "translation");
  }
  // kgsl_iommu_add_fault_info → kgsl_add_fault: only a FAULT_INFO context that is neither
  // detached nor invalidated keeps the fault.
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(id);
  if (it == contexts_.end() || !(it->second->flags & KGSL_CONTEXT_FAULT_INFO) || it->second->ring->fault()) return;
  std::deque<KgslPageFault>& faults = it->second->page_faults;
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(faults, [&](const KgslPageFault& kept) { return now - kept.time >= kMaxFaultTime; });
  if (faults.size() == kMaxFaultEntries) faults.pop_front();
  const std::uint32_t type = (fault.permission ? KGSL_PAGEFAULT_TYPE_PERMISSION : KGSL_PAGEFAULT_TYPE_TRANSLATION) |
                             (fault.write ? KGSL_PAGEFAULT_TYPE_WRITE : KGSL_PAGEFAULT_TYPE_READ);
  faults.push_back(KgslPageFault{fault.address, type, now});
}

std::vector<KgslPageFault> KgslDevice::page_faults(const KgslContext& context) const {
  std::lock_guard lock(mutex_);
  return {context.page_faults.begin(), context.page_faults.end()};
}

int KgslDevice::wait_for_room(KgslContext& context, unsigned drawobjs) {
  // adreno_dispatch.c: adreno_dispatcher_queue_cmds refuses a command that could never fit
  // (-EINVAL); _wait_for_room_in_context_queue lets the queue hold at most
  // _context_drawqueue_size - 1 drawobjs, sleeps up to _context_queue_wait for the dispatcher to
  // drain it (_check_context_queue also wakes for an invalidated context) and gives up with
  // -ETIMEDOUT before anything is queued. The driver's queue drains as the dispatcher sends
  // commands to the ringbuffer (up to its in-flight limit); here a command leaves it when it
  // retires, so the virtual queue is full at least as often as the driver's.
  const unsigned size = config_.context_queue_size;
  if (size == 0 || drawobjs > size - 1) return -EINVAL;
  const auto deadline = std::chrono::steady_clock::now() + config_.context_queue_wait;
  for (;;) {
    std::uint64_t until = 0;  // the timestamp whose retirement makes room
    {
      std::lock_guard lock(mutex_);
      const std::uint64_t retired = context.ring->retired();
      while (!context.drawqueue.empty() && context.drawqueue.front().timestamp <= retired) {
        context.drawqueue.pop_front();
      }
      unsigned queued = 0;
      for (const KgslContext::Queued& entry : context.drawqueue) queued += entry.drawobjs;
      if (queued + drawobjs <= size - 1) return 0;
      for (const KgslContext::Queued& entry : context.drawqueue) {
        until = entry.timestamp;
        queued -= entry.drawobjs;
        if (queued + drawobjs <= size - 1) break;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return -ETIMEDOUT;
    if (context.ring->wait(until, deadline - now) == Ring::WaitResult::faulted) return -EDEADLK;
  }
}

void KgslDevice::queued(KgslContext& context, std::uint64_t timestamp, unsigned drawobjs) {
  std::lock_guard lock(mutex_);
  context.drawqueue.push_back(KgslContext::Queued{timestamp, drawobjs});
}

bool KgslDevice::take_recovered(KgslContext& context) {
  std::lock_guard lock(mutex_);
  return std::exchange(context.recovered, false);
}

std::shared_ptr<KgslContext> KgslDevice::find_any(std::uint32_t id) const {
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(id);
  return it == contexts_.end() ? nullptr : it->second;
}

std::shared_ptr<KgslContext> KgslDevice::find(std::uint64_t owner, std::uint32_t id) const {
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(id);
  if (it == contexts_.end() || it->second->owner != owner) return nullptr;
  return it->second;
}

std::uint32_t KgslDevice::take_reset_status(KgslContext& context) {
  std::lock_guard lock(mutex_);
  // adreno_drawctxt_set_guilty marks the faulting context GUILTY; this driver never reports
  // INNOCENT (contexts replayed after someone else's fault learn of it through -EPROTO
  // instead), and the virtual GPU's rings are independent, so no other context is affected.
  if (!context.ring->fault() || context.reset_reported) return KGSL_CTX_STAT_NO_ERROR;
  context.reset_reported = true;
  return KGSL_CTX_STAT_GUILTY_CONTEXT_RESET_EXT;
}

std::vector<std::uint32_t> KgslDevice::contexts_of(std::uint64_t owner) const {
  std::lock_guard lock(mutex_);
  std::vector<std::uint32_t> ids;
  for (const auto& [id, context] : contexts_) {
    if (context->owner == owner) ids.push_back(id);
  }
  return ids;
}

void KgslDevice::release(std::uint64_t owner) {
  std::vector<std::shared_ptr<KgslContext>> detached;
  {
    std::lock_guard lock(mutex_);
    for (auto it = contexts_.begin(); it != contexts_.end();) {
      if (it->second->owner == owner) {
        detached.push_back(std::move(it->second));
        it = contexts_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

}  // namespace adreno::virt
