// [virtual-kernel] The library used from several threads at once, on both virtual kernels: host
// waits on other threads than the one submitting, and memory released on one thread while
// another thread's submission still reads it. The ThreadSanitizer tree (ADRENO_TSAN) runs these
// with the virtual kernels' ring threads and the shader processor's helper threads.
#include <adreno/adreno.hpp>
#include <adreno/queue.hpp>

#include "../graph/graph_programs.h"
#include "virtual_device.h"

#include <atomic>
#include <cstring>
#include <optional>
#include <random>
#include <thread>
#include <vector>

using namespace adreno;
using namespace std::chrono_literals;

namespace {

std::vector<std::uint32_t> random_words(std::mt19937& rng, std::size_t count) {
  std::vector<std::uint32_t> words(count);
  for (auto& word : words) word = static_cast<std::uint32_t>(rng());
  return words;
}

std::vector<std::uint32_t> read_words(const BufferView& view) {
  std::vector<std::uint32_t> words(view.size() / 4);
  std::memcpy(words.data(), view.cpu_view().data(), view.size());
  return words;
}

}  // namespace

TEST_CASE("signals waited on from other threads return once the GPU wrote them, with the work before them visible",
          "[virtual-kernel][queue]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    constexpr int kRounds = 8, kWaiters = 3;
    constexpr std::size_t kWords = 64;
    Queue queue(*device);
    Signal gate(*device), done(*device);
    Buffer data = device->allocate({.size = kRounds * kWords * 4});
    std::mt19937 rng(1803);
    std::vector<std::vector<std::uint32_t>> written;
    for (int round = 0; round < kRounds; ++round) written.push_back(random_words(rng, kWords));

    // Each waiter waits for every round in turn and reads what that round wrote before its
    // signal: the first round is held by a host-set gate the command processor polls, the later
    // ones by the kernel's wait on the submission that writes them.
    std::atomic<int> wrong{0}, timed_out{0};
    std::vector<std::thread> waiters;
    for (int w = 0; w < kWaiters; ++w) {
      waiters.emplace_back([&] {
        for (int round = 1; round <= kRounds; ++round) {
          if (!done.wait(static_cast<std::uint64_t>(round), 60s)) {
            ++timed_out;
            return;
          }
          const auto index = static_cast<std::size_t>(round - 1);
          if (read_words(data.view(index * kWords * 4, kWords * 4)) != written[index]) ++wrong;
        }
      });
    }
    queue.wait(gate, 1);
    for (int round = 1; round <= kRounds; ++round) {
      const auto index = static_cast<std::size_t>(round - 1);
      queue.write(data.view(index * kWords * 4, kWords * 4), written[index]);
      queue.signal(done, static_cast<std::uint64_t>(round));
      queue.submit();
      if (round == 1) {
        CHECK_FALSE(done.wait(1, 20ms));  // held by the gate until the host opens it
        gate.set(1);
      }
    }
    for (auto& waiter : waiters) waiter.join();
    CHECK(timed_out == 0);
    CHECK(wrong == 0);
    CHECK(done.value() == kRounds);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a buffer released on another thread while a submission reads it keeps its contents until that submission retired",
          "[virtual-kernel][queue]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    constexpr std::uint32_t kElements = 256;  // two work-groups of the add kernel
    const Program add = load_add(*device);
    std::mt19937 rng(4242);
    const std::vector<std::uint32_t> a_words = random_words(rng, kElements), b_words = random_words(rng, kElements);
    std::optional<Buffer> a = device->allocate({.size = kElements * 4});
    Buffer b = device->allocate({.size = kElements * 4}), out = device->allocate({.size = kElements * 4});
    std::memcpy(a->cpu_view().data(), a_words.data(), kElements * 4);
    std::memcpy(b.cpu_view().data(), b_words.data(), kElements * 4);
    std::optional<Arguments> arguments(std::in_place, add);
    arguments->set_buffer(0, out).set_buffer(1, *a).set_buffer(2, b);

    // The dispatch waits for a host-set gate, so it reads `a` only after the other thread let go
    // of it and filled every buffer it could get from the allocator with a pattern: memory
    // handed out again before the submission retired would show up in the sums.
    Queue queue(*device);
    Signal gate(*device), done(*device);
    queue.wait(gate, 1);
    queue.dispatch(add, *arguments, add_launch(kElements));
    queue.signal(done, 1);
    queue.submit();
    std::thread releaser([&] {
      a.reset();
      arguments.reset();
      std::vector<Buffer> reused;
      for (int i = 0; i < 32; ++i) {
        reused.push_back(device->allocate({.size = kElements * 4}));
        std::memset(reused.back().cpu_view().data(), 0xa5, kElements * 4);
      }
      gate.set(1);
    });
    const bool retired = done.wait(1, 60s);
    releaser.join();
    REQUIRE(retired);
    const std::vector<std::uint32_t> sums = read_words(out);
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(sums[i] == a_words[i] + b_words[i]);
  }
  device.close_and_check_ledger();
}
