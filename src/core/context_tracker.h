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
  /// Everything up to `fence` on `context` retired (a host wait returned).
  void note_retired(Kernel::ContextId context, std::uint64_t fence);

  /// True when the submission retired — or can no longer run: its context is gone, or faulted
  /// (a faulted context executes nothing more).
  bool retired(const GpuUse& use) override;

 private:
  Kernel& kernel_;
  std::mutex mutex_;
  std::map<Kernel::ContextId, std::uint64_t> retired_;  // live contexts → highest retired fence
};

}  // namespace adreno
