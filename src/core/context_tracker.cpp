#include "core/context_tracker.h"

#include <adreno/error.hpp>

#include <chrono>

namespace adreno {

void ContextTracker::add(Kernel::ContextId context) {
  std::lock_guard lock(mutex_);
  retired_[context] = 0;
}

void ContextTracker::remove(Kernel::ContextId context) {
  std::lock_guard lock(mutex_);
  retired_.erase(context);
}

void ContextTracker::note_retired(Kernel::ContextId context, std::uint64_t fence) {
  std::lock_guard lock(mutex_);
  auto it = retired_.find(context);
  if (it != retired_.end() && fence > it->second) it->second = fence;
}

bool ContextTracker::retired(const GpuUse& use) {
  {
    std::lock_guard lock(mutex_);
    auto it = retired_.find(use.context);
    if (it == retired_.end() || use.fence <= it->second) return true;
  }
  try {
    if (!kernel_.wait(use.context, use.fence, std::chrono::nanoseconds(0))) return false;
  } catch (const Error& error) {
    if (error.code() != Errc::device_lost) throw;
  }
  note_retired(use.context, use.fence);
  return true;
}

}  // namespace adreno
