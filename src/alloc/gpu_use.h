// Which submissions may still touch a piece of memory: for each context that used it, the
// fence of the last submission that did. Memory is reused only after all of them retired.
#pragma once

#include <cstdint>
#include <vector>

namespace adreno {

struct GpuUse {
  std::uint32_t context;
  std::uint64_t fence;
};

class GpuUseSet {
 public:
  /// Records that the submission `fence` on `context` uses the memory (fences only grow).
  void record(std::uint32_t context, std::uint64_t fence) {
    for (GpuUse& use : uses_) {
      if (use.context == context) {
        if (fence > use.fence) use.fence = fence;
        return;
      }
    }
    uses_.push_back(GpuUse{context, fence});
  }
  void merge(const GpuUseSet& other) {
    for (const GpuUse& use : other.uses_) record(use.context, use.fence);
  }
  const std::vector<GpuUse>& uses() const noexcept { return uses_; }
  void clear() noexcept { uses_.clear(); }

 private:
  std::vector<GpuUse> uses_;  // one entry per context: a handful at most
};

/// Answers whether a submission retired; the queues implement it (src/core).
class RetirementOracle {
 public:
  virtual ~RetirementOracle() = default;
  virtual bool retired(const GpuUse& use) = 0;

  bool all_retired(const GpuUseSet& set) {
    for (const GpuUse& use : set.uses()) {
      if (!retired(use)) return false;
    }
    return true;
  }
};

}  // namespace adreno
