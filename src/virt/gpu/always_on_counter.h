// CP_ALWAYS_ON_COUNTER, the GPU's free-running 64-bit count of the 19.2 MHz XO clock on a6xx
// (tinygrad's QCOM runtime converts its timestamps with the same rate: ops_qcom.py,
// timestamp_divider 19.2). Hardware counts from power-up; the virtual counter counts from the
// host's steady-clock epoch, or from a chosen value at a chosen time, so that a test can start
// it just below 2^32 and watch timestamps cross into the high dword. One counter is shared by
// every command processor of a device, as the register is.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace adreno::virt {

class AlwaysOnCounter {
 public:
  /// Counts from the steady clock's epoch.
  AlwaysOnCounter() = default;
  /// Reads `start` now, then counts on.
  explicit AlwaysOnCounter(std::uint64_t start) : origin_(std::chrono::steady_clock::now()), start_(start) {}

  /// The counter now, both dwords from the same instant. Each read is later than the one before
  /// it: on hardware two reads are at least a command apart, many 52 ns ticks.
  std::uint64_t read() {
    const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_);
    const std::uint64_t now = start_ + static_cast<std::uint64_t>(static_cast<double>(elapsed.count()) * kTicksPerNanosecond);
    std::uint64_t last = last_.load(std::memory_order_relaxed);
    std::uint64_t next = std::max(now, last + 1);
    while (!last_.compare_exchange_weak(last, next, std::memory_order_relaxed)) next = std::max(now, last + 1);
    return next;
  }

 private:
  static constexpr double kTicksPerNanosecond = 19.2e6 / 1e9;
  std::chrono::steady_clock::time_point origin_{};
  std::uint64_t start_ = 0;
  std::atomic<std::uint64_t> last_{0};
};

}  // namespace adreno::virt
