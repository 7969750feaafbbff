// [pure] The allocator's mutex (src/alloc/mutex.h): it excludes, and a waiter put to sleep is
// woken by the unlock. A lock that lets two holders in loses increments or sees an overlap here
// (and is reported by ThreadSanitizer); an unlock that fails to wake a sleeper hangs the test,
// which CTest's timeout fails.
#include "alloc/mutex.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

using adreno::Mutex;

TEST_CASE("threads contending for the mutex lose no increment and never hold it together", "[pure][alloc]") {
  constexpr int kThreads = 4, kRounds = 1000000;
  Mutex mutex;
  std::atomic<int> holders{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> ready{0};
  long counter = 0;  // plain: only the mutex orders the threads' increments
  std::vector<std::thread> threads;
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&] {
      // All start together, so that they contend from the first round.
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int round = 0; round < kRounds; ++round) {
        std::lock_guard lock(mutex);
        const long seen = counter;
        if (holders.fetch_add(1) != 0) overlaps.fetch_add(1);
        counter = seen + 1;
        holders.fetch_sub(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(overlaps.load() == 0);
  CHECK(counter == long{kThreads} * kRounds);
}

TEST_CASE("a thread waiting for the mutex gets it once the holder unlocks, not before", "[pure][alloc]") {
  Mutex mutex;
  std::atomic<bool> started{false};
  std::atomic<bool> acquired{false};
  mutex.lock();
  std::thread waiter([&] {
    started.store(true);
    std::lock_guard lock(mutex);
    acquired.store(true);
  });
  while (!started.load()) std::this_thread::yield();
  // Held here: whether the waiter is still spinning, asleep or not yet at lock(), it is outside.
  CHECK_FALSE(acquired.load());
  mutex.unlock();
  waiter.join();
  CHECK(acquired.load());
}
