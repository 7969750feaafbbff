#include "core/context_tracker.h"

#include <adreno/error.hpp>

#include <chrono>

namespace adreno {

void ContextTracker::add(Kernel::ContextId context) {
  std::lock_guard lock(mutex_);
  contexts_[context] = Fences{};
}

void ContextTracker::remove(Kernel::ContextId context) {
  std::lock_guard lock(mutex_);
  contexts_.erase(context);
}

void ContextTracker::note_submitted(Kernel::ContextId context, std::uint64_t fence) {
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(context);
  if (it != contexts_.end() && fence > it->second.submitted) it->second.submitted = fence;
}

void ContextTracker::note_retired(Kernel::ContextId context, std::uint64_t fence) {
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(context);
  if (it != contexts_.end() && fence > it->second.retired) it->second.retired = fence;
}

bool ContextTracker::retired(const GpuUse& use) {
  // The kernel is asked under the lock: remove() runs before a queue destroys its context, so the
  // context cannot be destroyed — nor its id handed to a new context — while it is asked about.
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(use.context);
  if (it == contexts_.end() || use.fence <= it->second.retired || use.fence > it->second.submitted) return true;
  // This runs where memory is released (destructors included), so it never throws. A context
  // that was lost retires nothing more; any other failure of the query (a transient errno) only
  // means the kernel did not say, so the memory waits for the next time it is asked.
  try {
    if (!kernel_.wait(use.context, use.fence, std::chrono::nanoseconds(0))) return false;
  } catch (const Error& error) {
    if (error.code() != Errc::device_lost) return false;
  }
  it->second.retired = use.fence;
  return true;
}

}  // namespace adreno
