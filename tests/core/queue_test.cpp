// [virtual-kernel] Queues and signals through the public API on both virtual kernels: ordering,
// 64-bit signals, cross-queue waits, timeouts, timestamps, faults, and many queues on threads.
#include <adreno/adreno.hpp>
#include <adreno/queue.hpp>
#include <adreno/testing.hpp>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "../testing/kit_support.h"
#include "virtual_device.h"

using namespace adreno;
using namespace std::chrono_literals;

TEST_CASE("work on one queue runs in order and signals reach the host with 64-bit values", "[virtual-kernel][queue]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Queue queue(*device);
    Signal signal(*device);
    Buffer buffer = device->allocate({.size = 4096});
    std::mt19937 rng(77);
    std::vector<std::uint32_t> expected(1024);
    // Overlapping writes: the later one must win everywhere.
    for (int round = 0; round < 4; ++round) {
      const std::size_t first = rng() % 512, count = 1 + rng() % 512;
      std::vector<std::uint32_t> values(count);
      for (auto& v : values) v = rng();
      queue.write(buffer.view(first * 4, count * 4), values);
      std::copy(values.begin(), values.end(), expected.begin() + static_cast<long>(first));
    }
    const std::uint64_t value = (std::uint64_t{0x1234} << 32) | rng();
    queue.signal(signal, value);
    queue.submit();
    REQUIRE(signal.wait(value, 10s));
    CHECK(signal.value() == value);
    auto words = buffer.cpu_view().as<std::uint32_t>();
    for (std::size_t i = 0; i < expected.size(); ++i) REQUIRE(words[i] == expected[i]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a wait for another queue's submitted signal holds the consumer in the kernel", "[virtual-kernel][queue]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Queue producer(*device), consumer(*device);
    Signal ready(*device), done(*device);
    Buffer data = device->allocate({.size = 64});
    std::mt19937 rng(5);
    const std::uint32_t produced[] = {static_cast<std::uint32_t>(rng())};
    const std::uint32_t consumed[] = {static_cast<std::uint32_t>(rng())};
    producer.write(data, produced);
    producer.signal(ready, 1);
    producer.submit();
    consumer.wait(ready, 1);
    consumer.write(data.view(4, 4), consumed);
    consumer.signal(done, 1);
    consumer.submit();
    REQUIRE(done.wait(1, 10s));
    CHECK(data.cpu_view().as<std::uint32_t>()[0] == produced[0]);
    CHECK(data.cpu_view().as<std::uint32_t>()[1] == consumed[0]);
  }
  device.close_and_check_ledger();
}

namespace {

/// A device whose producer band and consumer band differ: KGSL's library priority 0 is KGSL
/// priority 1 (ringbuffer 0) and levels-2, levels-1 are 14 and 15 (ringbuffer 3; adreno_dispatch.c
/// dispatch_get_rb); the MSM node gets two rings (6 levels, 3 per ring, msm_gpu_convert_priority),
/// so 0 runs on ring 0 and 4, 5 on ring 1 — in two scheduler entities, as a same-priority
/// bystander would share the consumer's entity and wait behind it (msm_submitqueue.c
/// get_sched_entity). The hang detector waits longer than any of the test's host waits.
testing::VirtualDevice two_band_device(bool msm) {
  return testing::VirtualDevice({.driver = msm ? testing::Driver::msm : testing::Driver::kgsl,
                                 .priority_levels = msm ? std::optional<unsigned>(6) : std::nullopt,
                                 .hang_timeout = 30s});
}

/// Ends the kit's stalls if stop() is not called within 10 s: a submit that blocks the only
/// thread until the stalled producer retired would otherwise never return.
class GateRescue {
 public:
  explicit GateRescue(testing::VirtualDevice& kit)
      : thread_([this, &kit] {
          std::unique_lock lock(mutex_);
          if (!changed_.wait_for(lock, 10s, [&] { return done_; })) {
            rescued_ = true;
            kit.end_stalls();
          }
        }) {}
  ~GateRescue() { stop(); }
  /// Ends the watch; true when the gate had to be set.
  bool stop() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
    return rescued_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool done_ = false, rescued_ = false;
  std::thread thread_;
};

}  // namespace

TEST_CASE("a consumer held for another band's producer leaves its own band running", "[virtual-kernel][queue]") {
  // The producer stays busy on the GPU (a kit stall) until the consumer and the bystander were
  // submitted, from the one thread. A CP wait in the consumer would hold its
  // band and the bystander queued behind it until the hang detector killed the consumer; a
  // consumer held on the host (submit blocking until the producer retired) never lets the
  // thread reach the gate. Both: KGSL (sync points) and MSM (syncobj in-fences).
  const bool msm = GENERATE(false, true);
  const bool graph_replay = GENERATE(false, true);
  CAPTURE(msm, graph_replay);
  testing::VirtualDevice kit = two_band_device(msm);
  {
    Device& device = kit.device();
    const unsigned levels = device.info().priority_levels;
    Queue producer(device, {.priority = 0}), consumer(device, {.priority = levels - 2}),
        bystander(device, {.priority = levels - 1});
    Signal ready(device), done(device), fine(device);
    std::optional<Graph> graph;
    if (graph_replay) {
      graph.emplace(device);
      graph->wait(ready, 7);
      graph->signal(done, 1);
      graph->build();
    }
    GateRescue rescue(kit);
    kit.stall_submission();  // ended below: holds the producer's band only
    producer.signal(ready, 7);
    producer.submit();
    if (graph) {
      graph->replay(consumer);
    } else {
      consumer.wait(ready, 7);
      consumer.signal(done, 1);
    }
    const std::uint64_t consumer_fence = consumer.submit();
    CHECK_FALSE(rescue.stop());  // the submit returned while the producer still waited
    bystander.signal(fine, 1);
    bystander.submit();
    REQUIRE(fine.wait(1, 10s));  // the bystander ran while the consumer was held
    CHECK_FALSE(consumer.wait_fence(consumer_fence, 0ns));
    CHECK(done.value() == 0);
    kit.end_stalls();
    REQUIRE(done.wait(1, 10s));
    CHECK(ready.value() == 7);
  }
  CHECK(kit.close().empty());
}

TEST_CASE("host waits time out without error and a later signal still arrives", "[virtual-kernel][queue]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Queue queue(*device);
    Signal gate(*device), out(*device);
    queue.wait(gate, 5);
    queue.signal(out, 9);
    const std::uint64_t fence = queue.submit();
    CHECK_FALSE(out.wait(9, 20ms));
    CHECK_FALSE(queue.wait_fence(fence, 0ns));
    CHECK_THROWS_AS(queue.finish(10ms), Error);
    gate.set(5);
    CHECK(out.wait(9, 10s));
    CHECK(queue.wait_fence(fence, 0ns));
  }
  device.close_and_check_ledger();
}

TEST_CASE("GPU timestamps are 64-bit and increase across the carry into the high dword", "[virtual-kernel][queue]") {
  // The always-on counter starts one tick below 2^32 when the device opens, so the first stamp
  // is at least 0xffffffff and the second, later, at least 2^32: a stamp that kept only the low
  // dword (a 32-bit CP_REG_TO_MEM, or a 4-byte write) reads as a small number.
  // Each driver, on the a630 and on the a740 (whose command processor runs the a7xx stream).
  testing::VirtualDevice test({.driver = EACH_DRIVER(),
                               .model = EACH_MODEL(),
                               .always_on_counter_start = 0xffffffffull});
  {
    Device& device = test.device();
    Queue queue(device);
    Buffer stamps = device.allocate({.size = 16});
    std::memset(stamps.cpu_view().data(), 0xa5, 16);  // neither dword of a stamp may keep this
    queue.write_timestamp(stamps.view(0, 8));
    queue.barrier();
    queue.write_timestamp(stamps.view(8, 8));
    queue.finish();
    auto ticks = stamps.cpu_view().as<std::uint64_t>();
    CHECK(ticks[0] >= 0xffffffffull);
    CHECK(ticks[1] > ticks[0]);
    CHECK(ticks[1] >= 0x100000000ull);
    // Both high dwords were written, not left as they were.
    CHECK(ticks[0] >> 32 < 0xa5a5a5a5u);
    CHECK(ticks[1] >> 32 < 0xa5a5a5a5u);
    CHECK_THROWS_AS(queue.write_timestamp(stamps.view(0, 4)), Error);
  }
  const auto leaks = test.close();
  CHECK(leaks.empty());
}

TEST_CASE("a hung queue reports device_lost and the device's other queues keep working", "[virtual-kernel][queue]") {
  testing::VirtualDevice kit({.driver = EACH_DRIVER(), .model = EACH_MODEL()});
  {
    Device& device = kit.device();
    Queue hung(device), healthy(device);
    Signal never(device), fine(device);
    kit.hang_submission();  // the hang detector ends it after the kit's 100 ms
    hung.signal(never, 1);
    hung.submit();
    healthy.signal(fine, 3);
    healthy.submit();
    CHECK(fine.wait(3, 10s));
    try {
      hung.finish(30s);
      FAIL("a hung submission retired");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
    }
    CHECK(never.value() == 0);
    healthy.signal(fine, 4);
    healthy.finish(10s);
    CHECK(fine.value() == 4);
  }
  CHECK(kit.close().empty());
}

TEST_CASE("many queues on several threads each see their own results", "[virtual-kernel][queue]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    constexpr int kThreads = 6;
    std::vector<Buffer> buffers;
    for (int t = 0; t < kThreads; ++t) buffers.push_back(device->allocate({.size = 256 * 4}));
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        Queue queue(*device);
        Signal signal(*device);
        std::mt19937 rng(static_cast<unsigned>(t));
        for (int round = 1; round <= 10; ++round) {
          std::vector<std::uint32_t> values(256);
          for (auto& v : values) v = rng();
          queue.write(buffers[static_cast<std::size_t>(t)], values);
          queue.signal(signal, static_cast<std::uint64_t>(round));
          queue.submit();
          if (!signal.wait(static_cast<std::uint64_t>(round), 10s)) ++failures;
          auto words = buffers[static_cast<std::size_t>(t)].cpu_view().as<std::uint32_t>();
          if (!std::equal(values.begin(), values.end(), words.begin())) ++failures;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CHECK(failures == 0);
    buffers.clear();
  }
  device.close_and_check_ledger();
}

TEST_CASE("queue priorities outside the device's range are refused", "[virtual-kernel][queue]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const unsigned levels = device->info().priority_levels;
    for (unsigned p = 0; p < levels; ++p) Queue queue(*device, {.priority = p});
    CHECK_THROWS_AS(Queue(*device, {.priority = levels}), Error);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a submission touching hundreds of kernel objects lists every one for the kernel", "[virtual-kernel][queue]") {
  // The virtual msm node faults a submission that touches an object missing from its table, and
  // refuses one listed twice (EALREADY, as drm_exec does); either would lose the queue.
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Queue queue(*device);
    std::mt19937 rng(31337);
    std::vector<Buffer> buffers;
    std::vector<std::uint32_t> expected;
    for (int i = 0; i < 300; ++i) buffers.push_back(device->allocate({.size = 64, .exportable = true}));  // one object each
    for (int pass = 0; pass < 2; ++pass) {  // every object referenced twice
      expected.clear();
      for (const Buffer& buffer : buffers) {
        const std::uint32_t value = static_cast<std::uint32_t>(rng());
        queue.write(buffer.view(0, 4), std::span<const std::uint32_t>(&value, 1));
        expected.push_back(value);
      }
    }
    queue.finish();
    for (std::size_t i = 0; i < buffers.size(); ++i) REQUIRE(buffers[i].cpu_view().as<std::uint32_t>()[0] == expected[i]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a GPU wait whose target straddles 2^32 holds until the 64-bit value is reached", "[virtual-kernel][queue]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    std::mt19937_64 rng(31);
    // The case first, then random targets near the wrap of the low dword and in its middle.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> cases = {{0xFFFFFFF0ull, 0x100000005ull}};
    for (int i = 0; i < 3; ++i) {
      const std::uint64_t high = 1 + rng() % 0xFFFF;
      const std::uint64_t near_wrap = (high << 32) | (rng() % 0x1000);
      cases.emplace_back(near_wrap - 1 - rng() % (1u << 29), near_wrap);
      const std::uint64_t middle = (high << 32) | (0x80000000u + rng() % 0x1000);
      cases.emplace_back(middle - 1 - rng() % (1u << 29), middle);
    }
    for (const auto& [initial, target] : cases) {
      CAPTURE(initial, target);
      Queue queue(*device);
      Signal gate(*device, initial), out(*device);
      queue.wait(gate, target);
      queue.signal(out, 1);
      const std::uint64_t fence = queue.submit();
      CHECK_FALSE(out.wait(1, 20ms));
      gate.set(target - 1);
      CHECK_FALSE(queue.wait_fence(fence, 20ms));
      gate.set(target);
      REQUIRE(out.wait(1, 10s));
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("memory a destroyed queue used is released after a new queue took its kernel context id", "[virtual-kernel][queue]") {
  // Both drivers hand a destroyed context's id to the next context created (KGSL: idr_alloc of
  // the lowest free id in kgsl_context_init; MSM: the lowest free submitqueue id), so the fences
  // recorded for the old context must not be asked of the new one (-EINVAL: never queued).
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    std::mt19937 rng(77);
    std::vector<std::uint32_t> values(64);
    std::optional<Buffer> used = device->allocate({.size = values.size() * 4});
    {
      Queue first(*device);
      for (int round = 0; round < 3; ++round) {
        for (auto& v : values) v = rng();
        first.write(*used, values);
        first.submit();
      }
      first.finish(10s);
    }
    Queue second(*device);
    used.reset();  // asks whether the first queue's last submission retired
    Buffer fresh = device->allocate({.size = values.size() * 4});
    for (auto& v : values) v = rng();
    second.write(fresh, values);
    second.submit();
    second.finish(10s);
    const auto words = fresh.cpu_view().as<std::uint32_t>();
    CHECK(std::equal(values.begin(), values.end(), words.begin()));
  }
  device.close_and_check_ledger();
}
