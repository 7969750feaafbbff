// A mutex whose uncountended lock and unlock are one atomic instruction each, inline: what a small
// buffer's allocate and free take once each (issue 19), where std::mutex costs two calls into
// libc's general pthread_mutex code per section. A waiter sleeps in the kernel (a futex, through
// std::atomic::wait), so the holder may make kernel calls under it.
//
// The protocol is the three-state mutex of Ulrich Drepper, "Futexes Are Tricky" (2011), section 6
// ("mutex3"): 0 free, 1 locked, 2 locked with possible waiters; only an unlock that finds 2 wakes
// anyone.
#pragma once

#include <atomic>
#include <cstdint>

namespace adreno {

class Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() noexcept {
    std::uint32_t state = kFree;
    if (state_.compare_exchange_strong(state, kLocked, std::memory_order_acquire)) [[likely]]
      return;
    wait_for_unlock(state);
  }
  void unlock() noexcept {
    if (state_.exchange(kFree, std::memory_order_release) == kContended) [[unlikely]]
      state_.notify_one();
  }

 private:
  static constexpr std::uint32_t kFree = 0, kLocked = 1, kContended = 2;

  void wait_for_unlock(std::uint32_t state) noexcept {
    // Whoever leaves kContended behind may have left a sleeper: marking it before sleeping makes
    // the holder's unlock wake one; a woken waiter takes the lock as contended, to pass it on.
    if (state != kContended) state = state_.exchange(kContended, std::memory_order_acquire);
    while (state != kFree) {
      state_.wait(kContended, std::memory_order_relaxed);
      state = state_.exchange(kContended, std::memory_order_acquire);
    }
  }

  std::atomic<std::uint32_t> state_{kFree};
};

}  // namespace adreno
