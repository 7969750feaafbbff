// How much memory the kernel hands out: real devices run out, and a test wants to see its code
// survive that. Kernel allocations (KGSL GPUOBJ_ALLOC, msm GEM_NEW) are charged while their pages
// live; one past the limit fails with ENOMEM, as the drivers report failing page allocations
// (kgsl_sharedmem.c, msm_gem.c). Imports are the exporter's memory and are not charged.
#pragma once

#include "virt/gpu/backing.h"

#include <cstdint>
#include <memory>
#include <mutex>

namespace adreno::virt {

class MemoryLimit {
 public:
  explicit MemoryLimit(std::uint64_t bytes) : limit_(bytes) {}
  /// Takes `bytes` out of what is left; false when that would pass the limit.
  bool charge(std::uint64_t bytes);
  void refund(std::uint64_t bytes);
  std::uint64_t used() const;

 private:
  const std::uint64_t limit_;
  mutable std::mutex mutex_;
  std::uint64_t used_ = 0;
};

/// New zero-filled pages for a kernel allocation, charged to `limit` (when set) until the last
/// reference goes; nullptr when the host refuses or the limit is reached.
std::shared_ptr<Backing> allocate_pages(const std::shared_ptr<MemoryLimit>& limit, std::uint64_t size);

}  // namespace adreno::virt
