// Knows, per kernel context, how far its submissions have retired — the RetirementOracle the
// allocator asks before reusing memory. It asks the kernel (a zero-timeout wait) only when its
// own record is not enough, and remembers the answer.
#pragma once

#include "alloc/gpu_use.h"
#include "kernel/kernel.h"

#include <map>
#include <mutex>

namespace adreno {

class ContextTracker final : public RetirementOracle {
 public:
  explicit ContextTracker(Kernel& kernel) : kernel_(kernel) {}

  /// A context was created / is about to be destroyed (after its queue drained).
  void add(Kernel::ContextId context);
  void remove(Kernel::ContextId context);
  /// `context` handed out `fence` (called before any use of it is recorded).
  void note_submitted(Kernel::ContextId context, std::uint64_t fence);
  /// Everything up to `fence` on `context` retired (a host wait returned).
  void note_retired(Kernel::ContextId context, std::uint64_t fence);

  /// True when the submission retired — or can no longer run: its context is gone, or faulted
  /// (a faulted context executes nothing more). The kernel hands a destroyed context's id to the
  /// next context it creates (KGSL and MSM both take the lowest free id), so a use whose fence the
  /// live context with that id never handed out belongs to an earlier one, which drained before
  /// it was destroyed: retired too.
  bool retired(const GpuUse& use) override;

 private:
  struct Fences {
    std::uint64_t submitted = 0;
    std::uint64_t retired = 0;
  };
  Kernel& kernel_;
  std::mutex mutex_;
  std::map<Kernel::ContextId, Fences> contexts_;  // live contexts
};

}  // namespace adreno
