// [virtual-kernel] Many contexts driven from several threads at once through one KgslKernel:
// every context keeps its own timeline and every result lands.
#include "kgsl_test_support.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <random>
#include <set>
#include <thread>

using namespace kgsl_test;
using namespace std::chrono_literals;

TEST_CASE("contexts created, fed and destroyed on several threads each retire their own work",
          "[virtual-kernel][kgsl]") {
  VirtualKgsl v;
  Kernel& k = *v.kernel;
  constexpr int kThreads = 4, kContextsPerThread = 3, kSubmissions = 8, kWords = 16;
  std::mutex ids_mutex;
  std::set<Kernel::ContextId> live_ids;
  std::atomic<int> duplicate_ids{0}, mismatches{0}, failed_waits{0};

  auto worker = [&](int thread) {
    std::mt19937 rng(1000 + thread);
    for (int round = 0; round < kContextsPerThread; ++round) {
      const auto ctx = k.create_context(static_cast<unsigned>(rng() % k.info().priority_levels));
      {
        std::lock_guard lock(ids_mutex);
        if (!live_ids.insert(ctx).second) ++duplicate_ids;
      }
      const Bo cmd = k.alloc(kSubmissions * 256, {});
      const Bo data = k.alloc(kSubmissions * kWords * 4, {});
      CpuView cmd_view = k.map(cmd);
      CpuView data_view = k.map(data);
      std::vector<std::uint32_t> expected;
      std::uint64_t last = 0;
      for (int s = 0; s < kSubmissions; ++s) {
        std::vector<std::uint32_t> values(kWords);
        for (auto& word : values) word = static_cast<std::uint32_t>(rng());
        expected.insert(expected.end(), values.begin(), values.end());
        const IbRef ib = write_ib(cmd, cmd_view, s * 256, mem_write(data.gpu + s * kWords * 4, values));
        const std::uint64_t fence = k.submit(ctx, std::span(&ib, 1), {});
        if (fence != last + 1) ++mismatches;  // per-context timestamps count 1, 2, 3, ...
        last = fence;
      }
      if (!k.wait(ctx, last, 10s)) ++failed_waits;
      for (std::size_t i = 0; i < expected.size(); ++i) {
        if (read32(data_view, i) != expected[i]) ++mismatches;
      }
      k.unmap(cmd, cmd_view);
      k.unmap(data, data_view);
      k.free(cmd);
      k.free(data);
      {
        std::lock_guard lock(ids_mutex);
        live_ids.erase(ctx);
      }
      k.destroy_context(ctx);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& thread : threads) thread.join();
  CHECK(duplicate_ids == 0);
  CHECK(mismatches == 0);
  CHECK(failed_waits == 0);
  CHECK(v.close_and_list_leaks().empty());
}
