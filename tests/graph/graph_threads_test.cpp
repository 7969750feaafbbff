// [virtual-gpu] One graph replayed on two queues by two threads. A graph is used by one thread
// at a time (graph.hpp), so the threads hand it over under a mutex; the replays they submit are
// in flight on both queues at once, each thread waiting for its own and checking the results.
// And buffers a graph binds, released by another thread while the graph is patched and replayed.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "graph_programs.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

using namespace adreno;
using namespace std::chrono_literals;

TEST_CASE("one graph replayed from two threads on two queues gives every replay's results", "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    constexpr std::uint32_t kElements = 256;
    constexpr int kRounds = 6;
    const Program add = load_add(*device);
    std::mt19937 rng(630);
    std::vector<Buffer> inputs;
    std::vector<std::vector<std::uint32_t>> values;
    for (int i = 0; i < 3; ++i) {  // a, b, and the b of odd rounds
      values.emplace_back(kElements);
      for (auto& v : values.back()) v = static_cast<std::uint32_t>(rng());
      inputs.push_back(device->allocate({.size = kElements * 4}));
      std::memcpy(inputs.back().cpu_view().data(), values.back().data(), kElements * 4);
    }
    std::vector<Buffer> outputs;
    for (int t = 0; t < 2; ++t) outputs.push_back(device->allocate({.size = kElements * 4}));

    Graph graph(*device);
    Arguments arguments(add);
    arguments.set_buffer(0, outputs[0]).set_buffer(1, inputs[0]).set_buffer(2, inputs[1]);
    const GraphDispatch sum = graph.dispatch(add, arguments, add_launch(kElements), {Access::write, Access::read, Access::read});
    graph.build();

    // Each thread binds its own output (a patch, which waits for the other thread's replay to
    // finish), and in odd rounds another second input; in even rounds it replays twice without
    // patching, so two replays of the graph are in flight on its queue.
    std::mutex graph_owner;
    std::atomic<int> wrong{0}, timed_out{0};
    auto replayer = [&](int t) {
      Queue queue(*device);
      for (int round = 0; round < kRounds; ++round) {
        const std::size_t b = round % 2 == 0 ? 1 : 2;
        std::uint64_t fence = 0;
        {
          std::lock_guard lock(graph_owner);
          graph.set_buffer(sum, 0, outputs[static_cast<std::size_t>(t)]);
          graph.set_buffer(sum, 2, inputs[b]);
          graph.replay(queue);
          if (round % 2 == 0) graph.replay(queue);
          fence = queue.submit();
        }
        if (!queue.wait_fence(fence, 60s)) {
          ++timed_out;
          return;
        }
        std::vector<std::uint32_t> got(kElements);
        std::memcpy(got.data(), outputs[static_cast<std::size_t>(t)].cpu_view().data(), kElements * 4);
        for (std::uint32_t i = 0; i < kElements; ++i) {
          if (got[i] != values[0][i] + values[b][i]) ++wrong;
        }
      }
    };
    std::thread first(replayer, 0), second(replayer, 1);
    first.join();
    second.join();
    CHECK(timed_out == 0);
    CHECK(wrong == 0);
  }
  device.close_and_check_ledger();
}

TEST_CASE("inputs a graph binds, released on another thread while their replay may run, are held until rebound",
          "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    constexpr std::uint32_t kElements = 256;
    constexpr int kRounds = 8;
    const Program add = load_add(*device);
    std::mt19937 rng(631);
    struct Input {
      Buffer buffer;
      std::vector<std::uint32_t> values;
    };
    const auto input = [&] {
      Input made{device->allocate({.size = kElements * 4}), std::vector<std::uint32_t>(kElements)};
      for (auto& v : made.values) v = static_cast<std::uint32_t>(rng());
      std::memcpy(made.buffer.cpu_view().data(), made.values.data(), kElements * 4);
      return made;
    };
    Buffer out = device->allocate({.size = kElements * 4});
    Input a = input(), b = input();
    Graph graph(*device);
    Arguments arguments(add);
    arguments.set_buffer(0, out).set_buffer(1, a.buffer).set_buffer(2, b.buffer);
    const GraphDispatch sum = graph.dispatch(add, arguments, add_launch(kElements), {Access::write, Access::read, Access::read});
    graph.build();

    // The releasing thread destroys the inputs it is handed: the graph still binds them, the GPU
    // may still read them, and this thread meanwhile allocates, patches and replays.
    std::mutex handed_mutex;
    std::condition_variable handed_ready;
    std::vector<Buffer> handed;
    bool finished = false;
    std::thread releaser([&] {
      std::unique_lock lock(handed_mutex);
      while (true) {
        handed_ready.wait(lock, [&] { return finished || !handed.empty(); });
        if (handed.empty()) return;
        std::vector<Buffer> releasing = std::move(handed);
        handed.clear();
        lock.unlock();
        releasing.clear();
        lock.lock();
      }
    });
    Queue queue(*device);
    int wrong = 0;
    for (int round = 0; round < kRounds; ++round) {
      graph.set_buffer(sum, 1, a.buffer);
      graph.set_buffer(sum, 2, b.buffer);
      graph.replay(queue);
      queue.submit();
      {
        std::lock_guard lock(handed_mutex);
        handed.push_back(std::move(a.buffer));
        handed.push_back(std::move(b.buffer));
      }
      handed_ready.notify_one();
      // The next round's inputs, allocated (and written) while the released ones may be in use.
      Input next_a = input(), next_b = input();
      queue.finish();
      const auto got = out.cpu_view().as<std::uint32_t>();
      for (std::uint32_t i = 0; i < kElements; ++i) wrong += got[i] != a.values[i] + b.values[i] ? 1 : 0;
      a = std::move(next_a);
      b = std::move(next_b);
    }
    {
      std::lock_guard lock(handed_mutex);
      finished = true;
    }
    handed_ready.notify_one();
    releaser.join();
    CHECK(wrong == 0);
  }
  device.close_and_check_ledger();
}
