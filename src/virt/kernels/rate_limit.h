// How the virtual kernels limit what they print to stderr, their stand-in for the kernel log. Both
// drivers print GPU page faults through a ratelimit_state set up by ratelimit_default_init /
// pr_warn_ratelimited (KGSL kgsl_iommu.c kgsl_iommu_print_fault; msm adreno_gpu.c
// adreno_fault_handler): at most DEFAULT_RATELIMIT_BURST (10) messages per
// DEFAULT_RATELIMIT_INTERVAL (5 s) (include/linux/ratelimit_types.h).
#pragma once

#include <chrono>
#include <mutex>

namespace adreno::virt {

class RateLimit {
 public:
  /// Whether one more message may be printed now (__ratelimit).
  bool allow() {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (printed_ == 0 || now - begin_ >= kInterval) {
      begin_ = now;
      printed_ = 0;
    }
    if (printed_ >= kBurst) return false;
    ++printed_;
    return true;
  }

 private:
  static constexpr std::chrono::seconds kInterval{5};
  static constexpr int kBurst = 10;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point begin_;
  int printed_ = 0;
};

}  // namespace adreno::virt
