// [virtual-gpu] Graphs run real kernels on the virtual GPU: replays equal eager dispatches over
// random DAGs, with and without the optional passes; patched buffers, scalars and signal values
// and image descriptors take effect; a replay with a freed buffer is refused; bound memory is
// not reused while a replay may run; the ledger is empty at the end.
#include <adreno/adreno.hpp>
#include <adreno/testing.hpp>

#include "../core/virtual_device.h"
#include "../dispatch/recorded_stream.h"
#include "core/buffer_impl.h"
#include "core/command_memory.h"
#include "core/program_impl.h"
#include "core/queue_impl.h"
#include "../dispatch/qualcomm_binary_builder.h"
#include "graph_programs.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

using namespace adreno;

namespace {

constexpr std::uint32_t kElements = 256;  // two work-groups of the add kernel

std::vector<std::uint32_t> read(const Buffer& buffer) {
  std::vector<std::uint32_t> out(kElements);
  std::memcpy(out.data(), buffer.cpu_view().data(), kElements * 4);
  return out;
}

void fill(const Buffer& buffer, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto* at = reinterpret_cast<std::uint32_t*>(buffer.cpu_view().data());
  for (std::uint32_t i = 0; i < kElements; ++i) at[i] = static_cast<std::uint32_t>(rng());
}

// One dispatch of the add kernel: buffers[out] = buffers[a] + buffers[b] (any may coincide).
struct AddNode {
  std::size_t out, a, b;
};

std::vector<AddNode> random_dag(std::mt19937& rng, std::size_t buffers, std::size_t dispatches) {
  std::vector<AddNode> nodes;
  std::uniform_int_distribution<std::size_t> pick(0, buffers - 1);
  for (std::size_t i = 0; i < dispatches; ++i) nodes.push_back({pick(rng), pick(rng), pick(rng)});
  return nodes;
}

std::vector<Buffer> make_buffers(Device& device, std::size_t count, std::uint32_t seed) {
  std::vector<Buffer> buffers;
  for (std::size_t i = 0; i < count; ++i) {
    buffers.push_back(device.allocate({.size = kElements * 4}));
    fill(buffers.back(), seed + static_cast<std::uint32_t>(i));
  }
  return buffers;
}

Arguments add_arguments(const Program& add, const std::vector<Buffer>& buffers, const AddNode& node) {
  Arguments arguments(add);
  arguments.set_buffer(0, buffers[node.out]).set_buffer(1, buffers[node.a]).set_buffer(2, buffers[node.b]);
  return arguments;
}

// The reference: every dispatch eagerly, a barrier after each.
std::vector<std::vector<std::uint32_t>> run_eagerly(Device& device, const Program& add, const std::vector<AddNode>& dag,
                                                    std::size_t buffer_count, std::uint32_t seed) {
  std::vector<Buffer> buffers = make_buffers(device, buffer_count, seed);
  Queue queue(device);
  for (const AddNode& node : dag) {
    queue.dispatch(add, add_arguments(add, buffers, node), add_launch(kElements));
    queue.barrier();
  }
  queue.finish();
  std::vector<std::vector<std::uint32_t>> results;
  for (const Buffer& buffer : buffers) results.push_back(read(buffer));
  return results;
}

std::vector<std::vector<std::uint32_t>> contents(const std::vector<Buffer>& buffers) {
  std::vector<std::vector<std::uint32_t>> results;
  for (const Buffer& buffer : buffers) results.push_back(read(buffer));
  return results;
}

template <typename F>
void require_error(F&& f, Errc code, const std::string& fragment) {
  try {
    f();
  } catch (const Error& error) {
    CHECK(error.code() == code);
    CHECK_THAT(error.what(), Catch::Contains(fragment));
    return;
  }
  FAIL("no adreno::Error thrown");
}

}  // namespace

TEST_CASE("replayed random DAGs give the eager results, patched onto other buffers too", "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::mt19937 rng(20261202);
    for (int trial = 0; trial < 8; ++trial) {
      const std::size_t buffer_count = 3 + rng() % 5;
      const std::vector<AddNode> dag = random_dag(rng, buffer_count, 4 + rng() % 12);
      const GraphOptions options{.drop_duplicates = (trial & 1) != 0, .order_by_level = (trial & 2) != 0};
      const bool declare_access = (trial & 4) != 0;
      INFO("trial " << trial << ": " << dag.size() << " dispatches over " << buffer_count << " buffers");

      // Recorded on one set of buffers...
      std::vector<Buffer> recorded = make_buffers(*device, buffer_count, 100);
      Graph graph(*device);
      std::vector<GraphDispatch> ids;
      for (const AddNode& node : dag) {
        const Arguments arguments = add_arguments(add, recorded, node);
        ids.push_back(declare_access ? graph.dispatch(add, arguments, add_launch(kElements), {Access::write, Access::read, Access::read})
                                     : graph.dispatch(add, arguments, add_launch(kElements)));
      }
      graph.build(options);
      Queue queue(*device);
      graph.replay(queue);
      queue.finish();
      CHECK(contents(recorded) == run_eagerly(*device, add, dag, buffer_count, 100));

      // ...then patched onto another set, then back onto the first with new contents.
      std::vector<Buffer> other = make_buffers(*device, buffer_count, 200);
      for (std::size_t i = 0; i < dag.size(); ++i) {
        graph.set_buffer(ids[i], 0, other[dag[i].out]);
        graph.set_buffer(ids[i], 1, other[dag[i].a]);
        graph.set_buffer(ids[i], 2, other[dag[i].b]);
      }
      graph.replay(queue);
      queue.finish();
      CHECK(contents(other) == run_eagerly(*device, add, dag, buffer_count, 200));

      for (std::size_t i = 0; i < buffer_count; ++i) fill(recorded[i], 300 + static_cast<std::uint32_t>(i));
      for (std::size_t i = 0; i < dag.size(); ++i) {
        graph.set_buffer(ids[i], 0, recorded[dag[i].out]);
        graph.set_buffer(ids[i], 1, recorded[dag[i].a]);
        graph.set_buffer(ids[i], 2, recorded[dag[i].b]);
      }
      graph.replay(queue);
      queue.finish();
      CHECK(contents(recorded) == run_eagerly(*device, add, dag, buffer_count, 300));
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("random rounds of patches, some restaged or left alone, over buffers of shared and of own kernel objects, give every expected sum",
          "[virtual-gpu][graph]") {
  // Each round moves the three pointers of a random half of the dispatches onto buffers drawn at
  // random from a pool (sub-allocations sharing kernel objects, and exportable buffers with one
  // each: the virtual msm node faults a submission missing one), some first onto a decoy and
  // some onto the buffer they already bind. Every buffer of the pool is checked in full: a
  // patch written to the wrong site, a binding swapped at the wrong index or a kernel object
  // left off the list shows as a wrong sum, a clobbered buffer or a fault.
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    constexpr std::size_t kDispatches = 10, kPool = 48, kRounds = 6;
    std::mt19937 rng(20261205);
    std::vector<Buffer> pool;
    for (std::size_t i = 0; i < kPool; ++i) pool.push_back(device->allocate({.size = kElements * 4, .exportable = i % 2 == 1}));
    // bound[d][k]: the pool index argument k of dispatch d binds; all distinct, as recorded.
    std::vector<std::size_t> order(kPool);
    for (std::size_t i = 0; i < kPool; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::array<std::size_t, 3>> bound(kDispatches);
    for (std::size_t d = 0; d < kDispatches; ++d) bound[d] = {order[3 * d], order[3 * d + 1], order[3 * d + 2]};
    Graph graph(*device);
    std::vector<GraphDispatch> ids;
    for (const auto& [out, a, b] : bound)
      ids.push_back(graph.dispatch(add, add_arguments(add, pool, {out, a, b}), add_launch(kElements),
                                   {Access::write, Access::read, Access::read}));
    graph.build();
    Queue queue(*device);
    for (std::size_t round = 0; round < kRounds; ++round) {
      INFO("round " << round);
      for (std::size_t i = 0; i < kPool; ++i) fill(pool[i], static_cast<std::uint32_t>(1000 * round + i));
      if (round > 0) {
        // The dispatches left alone keep their buffers; the moved ones draw theirs from the rest
        // (a buffer may come back to the argument that binds it).
        std::vector<bool> moved(kDispatches);
        std::vector<bool> taken(kPool);
        for (std::size_t d = 0; d < kDispatches; ++d) {
          moved[d] = rng() % 2 == 0;
          if (!moved[d]) for (const std::size_t i : bound[d]) taken[i] = true;
        }
        std::vector<std::size_t> unused;
        for (std::size_t i = 0; i < kPool; ++i)
          if (!taken[i]) unused.push_back(i);
        std::shuffle(unused.begin(), unused.end(), rng);
        std::size_t next = 0;
        for (std::size_t d = 0; d < kDispatches; ++d) {
          if (!moved[d]) continue;
          for (std::size_t k = 0; k < 3; ++k) {
            if (rng() % 3 == 0) graph.set_buffer(ids[d], k, pool[rng() % kPool]);  // a decoy: the last set_buffer counts
            bound[d][k] = unused[next++];
            graph.set_buffer(ids[d], k, pool[bound[d][k]]);
          }
        }
      }
      const auto before = contents(pool);
      auto expected = before;
      for (const auto& [out, a, b] : bound)
        for (std::uint32_t i = 0; i < kElements; ++i) expected[out][i] = before[a][i] + before[b][i];
      graph.replay(queue);
      queue.finish();
      for (std::size_t i = 0; i < kPool; ++i) {
        INFO("pool buffer " << i);
        REQUIRE(read(pool[i]) == expected[i]);
      }
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a patch made while the previous replay is recorded but unsubmitted waits for it", "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> buffers = make_buffers(*device, 4, 7);
    const auto before = contents(buffers);
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements));
    graph.build();
    Queue queue(*device);
    graph.replay(queue);             // buffers[0] = buffers[1] + buffers[2]
    graph.set_buffer(id, 0, buffers[3]);
    graph.replay(queue);             // must not rewrite the first replay's arguments before it ran
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) {
      const std::uint32_t sum = before[1][i] + before[2][i];
      REQUIRE(read(buffers[0])[i] == sum);
      REQUIRE(read(buffers[3])[i] == sum);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a buffer argument patched several times before a replay binds the last buffer, round after round",
          "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> buffers = make_buffers(*device, 7, 11);  // 0..2 recorded, 3..6 patched in
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements),
                                            {Access::write, Access::read, Access::read});
    graph.build();
    Queue queue(*device);
    // Round 1: the output moves twice; only the second buffer is written.
    graph.set_buffer(id, 0, buffers[3]);
    graph.set_buffer(id, 0, buffers[4]);
    const auto before = contents(buffers);
    graph.replay(queue);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[4])[i] == before[1][i] + before[2][i]);
    CHECK(read(buffers[3]) == before[3]);
    CHECK(read(buffers[0]) == before[0]);
    // Round 2: an input moves first, then the output twice: the patches of round 1 are gone.
    graph.set_buffer(id, 1, buffers[5]);
    graph.set_buffer(id, 0, buffers[3]);
    graph.set_buffer(id, 0, buffers[6]);
    graph.replay(queue);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[6])[i] == before[5][i] + before[2][i]);
    CHECK(read(buffers[3]) == before[3]);
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[4])[i] == before[1][i] + before[2][i]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("set_buffer and set_scalar on one buffer argument before a replay: the replay reads the last one's address, round after round",
          "[virtual-gpu][graph]") {
  // A buffer argument's address can also be written as 8 bytes (set_scalar); both wait for the
  // next replay in one place. The raw address used is b's, which the dispatch binds already (so
  // the submission lists its memory).
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> buffers = make_buffers(*device, 5, 12);  // 0..2 recorded (c, a, b), 3 and 4 patched in
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements),
                                            {Access::write, Access::read, Access::read});
    graph.build();
    Queue queue(*device);
    const auto before = contents(buffers);
    const std::uint64_t b_address = buffers[2].gpu_address().value();
    // Round 1: a moves to buffer 3, then its address is overwritten with b's: c = b + b.
    graph.set_buffer(id, 1, buffers[3]);
    graph.set_scalar(id, 1, b_address);
    graph.replay(queue);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[2][i] + before[2][i]);
    // Round 2: the other order: c = buffer 4 + b.
    graph.set_scalar(id, 1, b_address);
    graph.set_buffer(id, 1, buffers[4]);
    graph.replay(queue);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[4][i] + before[2][i]);
    // Round 3: the address alone: c = b + b again.
    graph.set_scalar(id, 1, b_address);
    graph.replay(queue);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[2][i] + before[2][i]);
    for (std::size_t i = 1; i < buffers.size(); ++i) CHECK(read(buffers[i]) == before[i]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("patched scalar arguments and signal values take effect at the next replay", "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add_scalar = load_add_scalar(*device);
    Buffer in = device->allocate({.size = 64 * 4});
    Buffer out = device->allocate({.size = 64 * 4});
    auto* input = reinterpret_cast<std::uint32_t*>(in.cpu_view().data());
    for (std::uint32_t i = 0; i < 64; ++i) input[i] = i * 1000;
    Arguments arguments(add_scalar);
    arguments.set_buffer(0, out).set_buffer(1, in).set_scalar(2, 5u);
    Signal done(*device);
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(add_scalar, arguments, Launch{{1, 1, 1}, {64, 1, 1}, std::nullopt},
                                            {Access::write, Access::read});
    const GraphSync signal = graph.signal(done, 1);
    graph.build();
    Queue queue(*device);
    std::mt19937 rng(99);
    for (std::uint64_t replay = 1; replay <= 4; ++replay) {
      const std::uint32_t k = static_cast<std::uint32_t>(rng());
      const std::uint64_t value = replay << 33 | replay;  // exercises both halves
      graph.set_scalar(id, 2, k);
      graph.set_value(signal, value);
      graph.replay(queue);
      queue.submit();
      REQUIRE(done.wait(value, std::chrono::seconds(10)));
      CHECK(done.value() == value);
      const auto* result = reinterpret_cast<const std::uint32_t*>(out.cpu_view().data());
      for (std::uint32_t i = 0; i < 64; ++i) REQUIRE(result[i] == i * 1000 + k);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a graph's wait holds its dispatches until the signal arrives", "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> buffers = make_buffers(*device, 3, 11);
    const auto before = contents(buffers);
    Signal go(*device);
    Graph graph(*device);
    const GraphSync wait = graph.wait(go, 1);
    graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements));
    graph.build();
    graph.set_value(wait, 2);
    Queue queue(*device);
    graph.replay(queue);
    const std::uint64_t fence = queue.submit();
    CHECK_FALSE(queue.wait_fence(fence, std::chrono::milliseconds(50)));
    CHECK(read(buffers[0]) == before[0]);
    go.set(2);
    CHECK(queue.wait_fence(fence, std::chrono::seconds(10)));
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[1][i] + before[2][i]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("replaying a graph whose bound buffer was freed is refused, naming it", "[virtual-kernel][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> buffers = make_buffers(*device, 3, 1);
    Graph graph(*device);
    graph.dispatch(add, add_arguments(add, buffers, {0, 1, 1}), add_launch(kElements));
    const GraphDispatch second = graph.dispatch(add, add_arguments(add, buffers, {1, 2, 0}), add_launch(kElements));
    graph.build();
    buffers[2] = Buffer();
    Queue queue(*device);
    require_error([&] { graph.replay(queue); }, Errc::invalid_argument,
                  "dispatch 1 (program 'vector32') argument 1 ('a'): its buffer was freed");
    // Binding a live buffer makes it replayable again.
    Buffer fresh = device->allocate({.size = kElements * 4});
    graph.set_buffer(second, 1, fresh);
    graph.replay(queue);
    queue.finish();
  }
  device.close_and_check_ledger();
}

TEST_CASE("memory the application released goes back once the graph replayed with another buffer bound there",
          "[virtual-kernel][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    constexpr std::uint64_t kBytes = 64 * 1024;  // the allocator's object cache hands back the latest freed first
    std::vector<Buffer> buffers;
    for (int i = 0; i < 4; ++i) buffers.push_back(device->allocate({.size = kBytes}));
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements));
    graph.build();
    Queue queue(*device);
    graph.replay(queue);
    queue.finish();
    const GpuAddress released = buffers[2].gpu_address();
    buffers[2] = Buffer();
    graph.set_buffer(id, 2, buffers[3]);
    graph.replay(queue);
    queue.finish();
    Buffer next = device->allocate({.size = kBytes});
    CHECK(next.gpu_address() == released);
  }
  device.close_and_check_ledger();
}

TEST_CASE("only releasing a buffer some graph bound makes replays look at their bindings again", "[virtual-kernel][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> buffers = make_buffers(*device, 4, 3);
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements));
    graph.build();
    const auto released = [&] { return device->impl().graph_buffers_released(); };
    const std::uint64_t start = released();
    Buffer temporary = device->allocate({.size = 4096});
    temporary = Buffer();  // never bound by a graph
    buffers[3] = std::move(make_buffers(*device, 1, 9)[0]);  // the recorded-but-unbound one goes: no graph bound it
    CHECK(released() == start);
    graph.set_buffer(id, 2, buffers[3]);
    buffers[3] = Buffer();  // staged for the next replay, then released
    CHECK(released() == start + 1);
    Queue queue(*device);
    require_error([&] { graph.replay(queue); }, Errc::invalid_argument, "dispatch 0 (program 'vector32') argument 2 ('b')");
    buffers[1] = Buffer();  // bound since recording
    CHECK(released() == start + 2);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a graph whose replay hung one queue replays on another once rebound", "[virtual-gpu][graph]") {
  const testing::Driver driver = GENERATE(testing::Driver::kgsl, testing::Driver::msm);
  testing::VirtualDevice test({.driver = driver, .hang_timeout = std::chrono::milliseconds(50)});
  Device& device = test.device();
  {
    const Program add = load_add(device);
    std::vector<Buffer> buffers = make_buffers(device, 4, 21);
    const auto before = contents(buffers);
    Graph graph(device);
    const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {3, 1, 2}), add_launch(kElements));
    graph.build();
    Queue doomed(device);
    test.hang_submission(1);
    graph.replay(doomed);
    doomed.submit();  // the GPU hangs in it: the context is reset, guilty
    const bool waited = GENERATE(true, false);
    INFO((waited ? "the hung queue was waited for" : "nobody waited for the hung queue") << " before the patch");
    if (waited) require_error([&] { doomed.finish(); }, Errc::device_lost, "guilty");
    graph.set_buffer(id, 0, buffers[0]);  // the patch waits for the hung replay, which ended
    Queue healthy(device);
    graph.replay(healthy);
    healthy.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[1][i] + before[2][i]);
    REQUIRE(test.faults().size() == 1);
    CHECK(test.faults()[0].kind == testing::GpuFault::Kind::hang);
  }
  CHECK(test.close().empty());
}

TEST_CASE("graphs report levels and barriers of known DAGs and refuse misuse", "[virtual-kernel][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    std::vector<Buffer> b = make_buffers(*device, 6, 1);
    const std::initializer_list<Access> access = {Access::write, Access::read, Access::read};
    // Level 0: b3 = b0+b1, b4 = b1+b2; level 1: b5 = b3+b4; level 0 again, recorded last: b2 = b0+b0 (WAR on b2 → level 1).
    Graph graph(*device);
    graph.dispatch(add, add_arguments(add, b, {3, 0, 1}), add_launch(kElements), access);
    graph.dispatch(add, add_arguments(add, b, {4, 1, 2}), add_launch(kElements), access);
    graph.dispatch(add, add_arguments(add, b, {5, 3, 4}), add_launch(kElements), access);
    graph.dispatch(add, add_arguments(add, b, {2, 0, 0}), add_launch(kElements), access);
    require_error([&] { graph.levels(); }, Errc::invalid_argument, "not built");
    graph.build();
    CHECK(graph.dispatch_count() == 4);
    CHECK(graph.levels() == 2);
    CHECK(graph.barriers() == 1);
    CHECK(graph.command_dwords() > 0);
    require_error([&] { graph.dispatch(add, add_arguments(add, b, {0, 1, 2}), add_launch(kElements)); },
                  Errc::invalid_argument, "already built");
    require_error([&] { graph.set_buffer(GraphDispatch{9}, 0, b[0]); }, Errc::invalid_argument, "dispatch 9 does not exist");
    require_error([&] { graph.set_scalar(GraphDispatch{0}, 0, std::array<std::uint32_t, 3>{}); }, Errc::invalid_argument,
                  "holds 8 bytes; got 12");

    // Without declared access every buffer is read_write: each dispatch depends on the previous.
    Graph safe(*device);
    safe.dispatch(add, add_arguments(add, b, {3, 0, 1}), add_launch(kElements));
    safe.dispatch(add, add_arguments(add, b, {4, 1, 2}), add_launch(kElements));
    safe.build();
    CHECK(safe.levels() == 2);
    CHECK(safe.barriers() == 1);

    // Duplicates dropped: the dropped dispatch's id names the one kept.
    Graph deduped(*device);
    deduped.dispatch(add, add_arguments(add, b, {3, 0, 1}), add_launch(kElements), access);
    deduped.dispatch(add, add_arguments(add, b, {4, 0, 1}), add_launch(kElements), access);
    const GraphDispatch again = deduped.dispatch(add, add_arguments(add, b, {3, 0, 1}), add_launch(kElements), access);
    deduped.build({.drop_duplicates = true});
    CHECK(deduped.dispatch_count() == 2);
    deduped.set_buffer(again, 0, b[5]);  // patches the first dispatch
    Queue queue(*device);
    const auto before = contents(b);
    deduped.replay(queue);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) {
      REQUIRE(read(b[5])[i] == before[0][i] + before[1][i]);
      REQUIRE(read(b[4])[i] == before[0][i] + before[1][i]);
    }
    CHECK(read(b[3]) == before[3]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("set_buffer patches the dispatch and argument named, and refuses arguments a dispatch lacks, when the graph's programs differ in argument count",
          "[virtual-gpu][graph]") {
  // add takes 3 arguments (c, a, b); add_scalar here 4 (out, in, k, an unused scalar): set_buffer
  // finds an argument by dispatch and argument in a table as wide as the widest program, where an
  // add dispatch's fourth slot names no argument.
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    const Program add_scalar = load_add_scalar(*device, true);
    constexpr std::uint32_t kScalarElements = 64;
    const Launch scalar_launch{{1, 1, 1}, {kScalarElements, 1, 1}, std::nullopt};
    auto scalar_arguments = [&](const Buffer& out, const Buffer& in, std::uint32_t k) {
      Arguments arguments(add_scalar);
      arguments.set_buffer(0, out).set_buffer(1, in).set_scalar(2, k).set_scalar(3, 0u);
      return arguments;
    };
    // Per set: out0 = in1 + 7 (add_scalar), out2 = a3 + b4 (add), out5 = in6 + 9 (add_scalar), out7 = a1 + b8 (add).
    std::vector<Buffer> recorded = make_buffers(*device, 9, 10);
    std::vector<Buffer> other = make_buffers(*device, 9, 20);
    Graph graph(*device);
    const GraphDispatch s0 = graph.dispatch(add_scalar, scalar_arguments(recorded[0], recorded[1], 7), scalar_launch,
                                            {Access::write, Access::read});
    const GraphDispatch a1 = graph.dispatch(add, add_arguments(add, recorded, {2, 3, 4}), add_launch(kElements),
                                            {Access::write, Access::read, Access::read});
    const GraphDispatch s2 = graph.dispatch(add_scalar, scalar_arguments(recorded[5], recorded[6], 9), scalar_launch,
                                            {Access::write, Access::read});
    const GraphDispatch a3 = graph.dispatch(add, add_arguments(add, recorded, {7, 1, 8}), add_launch(kElements),
                                            {Access::write, Access::read, Access::read});
    graph.build();

    require_error([&] { graph.set_buffer(a1, 3, other[0]); }, Errc::invalid_argument, "argument 3 does not exist; dispatch 1 has 3");
    require_error([&] { graph.set_buffer(s0, 4, other[0]); }, Errc::invalid_argument, "argument 4 does not exist; dispatch 0 has 4");
    require_error([&] { graph.set_buffer(a3, 4, other[0]); }, Errc::invalid_argument, "argument 4 does not exist; dispatch 3 has 3");
    require_error([&] { graph.set_buffer(s2, 3, other[0]); }, Errc::invalid_argument, "4-byte scalar, not a 64-bit buffer address");

    // Each set's expected outputs from its inputs as filled (no dispatch reads an output).
    auto check_set = [&](const std::vector<Buffer>& set, const std::vector<std::vector<std::uint32_t>>& before) {
      for (std::uint32_t i = 0; i < kScalarElements; ++i) {
        REQUIRE(read(set[0])[i] == before[1][i] + 7);
        REQUIRE(read(set[5])[i] == before[6][i] + 9);
      }
      for (std::uint32_t i = 0; i < kScalarElements; ++i) REQUIRE(read(set[0])[kScalarElements + i] == before[0][kScalarElements + i]);
      for (std::uint32_t i = 0; i < kElements; ++i) {
        REQUIRE(read(set[2])[i] == before[3][i] + before[4][i]);
        REQUIRE(read(set[7])[i] == before[1][i] + before[8][i]);
      }
    };
    Queue queue(*device);
    const auto recorded_before = contents(recorded);
    graph.replay(queue);  // the refused calls changed nothing
    queue.finish();
    check_set(recorded, recorded_before);

    const auto recorded_after = contents(recorded);
    const auto other_before = contents(other);
    graph.set_buffer(s0, 0, other[0]);
    graph.set_buffer(s0, 1, other[1]);
    graph.set_buffer(a1, 0, other[2]);
    graph.set_buffer(a1, 1, other[3]);
    graph.set_buffer(a1, 2, other[4]);
    graph.set_buffer(s2, 0, other[5]);
    graph.set_buffer(s2, 1, other[6]);
    graph.set_buffer(a3, 0, other[7]);
    graph.set_buffer(a3, 1, other[1]);
    graph.set_buffer(a3, 2, other[8]);
    graph.replay(queue);
    queue.finish();
    check_set(other, other_before);
    CHECK(contents(recorded) == recorded_after);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a replay lists the graph's memory, the program's code and every bound buffer for the kernel",
          "[virtual-gpu][graph]") {
  // The virtual msm node faults a submission that touches a kernel object missing from its
  // GEM_SUBMIT table; KGSL has no table, so there the results alone are checked.
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    // Separate kernel objects, so that each must be listed on its own.
    std::vector<Buffer> buffers;
    for (std::uint32_t i = 0; i < 4; ++i) {
      buffers.push_back(device->allocate({.size = kElements * 4, .exportable = true}));
      fill(buffers.back(), 40 + i);
    }
    const auto before = contents(buffers);
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements));
    graph.build();
    graph.set_buffer(id, 2, buffers[3]);
    Queue queue(*device);
    graph.replay(queue);
    const std::uint64_t fence = queue.submit();
    REQUIRE(fence != 0);
    bool code_used = false;
    for (const GpuUse& use : add.impl()->code()->allocation().uses.uses())
      code_used = code_used || (use.context == queue.impl().context() && use.fence == fence);
    CHECK(code_used);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[1][i] + before[3][i]);
    CHECK(read(buffers[2]) == before[2]);  // patched away before the replay
  }
  device.close_and_check_ledger();
}

TEST_CASE("memory a graph binds is not reused while a replay may still run, after the application and the graph let go",
          "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    for (const bool submitted : {true, false}) {
      INFO((submitted ? "replay submitted" : "replay still recorded") << " when the graph goes");
      // Large enough for the allocator's object cache, which hands back the latest freed object first.
      constexpr std::uint64_t kBytes = 64 * 1024;
      std::vector<Buffer> buffers;
      for (std::uint32_t i = 0; i < 3; ++i) {
        buffers.push_back(device->allocate({.size = kBytes}));
        fill(buffers.back(), 60 + i);
      }
      const auto before = contents(buffers);
      Signal go(*device);
      Queue queue(*device);
      {
        Graph graph(*device);
        graph.wait(go, 1);  // holds the replay on the GPU until the host says so
        graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements));
        graph.build();
        graph.replay(queue);
        if (submitted) queue.submit();
      }
      const GpuAddress a = buffers[1].gpu_address(), b = buffers[2].gpu_address();
      buffers.resize(1);  // the application lets the inputs go too
      // New buffers of that size must come from elsewhere, and scribbling on them changes nothing.
      std::vector<Buffer> fresh;
      for (int i = 0; i < 4; ++i) {
        fresh.push_back(device->allocate({.size = kBytes}));
        CHECK(fresh.back().gpu_address() != a);
        CHECK(fresh.back().gpu_address() != b);
        std::memset(fresh.back().cpu_view().data(), 0x5a, kBytes);
      }
      go.set(1);
      queue.finish();
      for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[1][i] + before[2][i]);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("memory bound or staged with set_buffer, then released, is not reused while the graph may use it",
          "[virtual-gpu][graph]") {
  // The graph holds no reference while the application's Buffers do: releasing the last one must
  // hand the graph one (Graph::Impl::hold_if_bound), or the allocator hands the memory out again.
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program add = load_add(*device);
    constexpr std::uint64_t kBytes = 64 * 1024;  // the allocator's object cache hands back the latest freed first
    std::vector<Buffer> buffers;  // 0..2 recorded; 3 and 4 bound with set_buffer; 5 staged
    for (std::uint32_t i = 0; i < 6; ++i) {
      buffers.push_back(device->allocate({.size = kBytes}));
      fill(buffers.back(), 80 + i);
    }
    const auto before = contents(buffers);
    Signal go(*device);
    Queue queue(*device);
    Graph graph(*device);
    graph.wait(go, 1);  // holds the replay on the GPU until the host says so
    const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements));
    graph.build();
    graph.set_buffer(id, 1, buffers[3]);
    graph.set_buffer(id, 2, buffers[4]);
    graph.replay(queue);
    queue.submit();
    graph.set_buffer(id, 2, buffers[5]);  // for the next replay
    const GpuAddress bound = buffers[3].gpu_address(), staged = buffers[5].gpu_address();
    buffers[3] = Buffer();
    buffers[5] = Buffer();
    std::vector<Buffer> fresh;
    for (int i = 0; i < 4; ++i) {
      fresh.push_back(device->allocate({.size = kBytes}));
      CHECK(fresh.back().gpu_address() != bound);
      CHECK(fresh.back().gpu_address() != staged);
      std::memset(fresh.back().cpu_view().data(), 0x5a, kBytes);
    }
    go.set(1);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[3][i] + before[4][i]);
    // Still bound and staged: refused; rebound, the memory goes back to the allocator.
    require_error([&] { graph.replay(queue); }, Errc::invalid_argument, "argument 1 ('a'): its buffer was freed");
    graph.set_buffer(id, 1, buffers[1]);
    require_error([&] { graph.replay(queue); }, Errc::invalid_argument, "argument 2 ('b'): its buffer was freed");
    graph.set_buffer(id, 2, buffers[2]);
    graph.replay(queue);
    queue.finish();
    for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[1][i] + before[2][i]);
    Buffer next = device->allocate({.size = kBytes});
    Buffer after = device->allocate({.size = kBytes});
    CHECK(std::set<std::uint64_t>{next.gpu_address().value(), after.gpu_address().value()} ==
          std::set<std::uint64_t>{bound.value(), staged.value()});
  }
  device.close_and_check_ledger();
}

namespace {

// A Qualcomm CL binary whose kernel copies storage image 0 to storage image 1, one 32-bit texel
// per invocation at (local id x, local id y); launch it as one work-group of width × height.
Program load_image_copy(Device& device) {
  const ir3::Program copy = ir3::assemble(
      "ldib.b.typed.2d.u32.1.imm r2.x, r0.x, 0\n"
      "(sy)stib.b.typed.2d.u32.1.imm r2.x, r0.x, 1\n"
      "end\n");
  ClBinaryBuilder binary;
  binary.name = "image_copy";
  binary.fregs = 3;
  binary.hregs = 0;
  binary.arguments = {{2, 0}, {2, 0}};  // two storage images
  binary.code = ir3_code_dwords(copy);
  binary.code.resize(64, 0);
  return Program::from_qualcomm_binary(device, binary.build());
}

}  // namespace

constexpr std::uint32_t kWidth = 16, kHeight = 8, kPitch = 128;  // of the images below; rows hold 64 bytes of texels

TEST_CASE("patched image descriptors take effect at the next replay, and bad images are refused", "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const Program copy = load_image_copy(*device);
    std::mt19937 rng(4242);
    std::vector<Buffer> images;  // two sources, two destinations
    for (int i = 0; i < 4; ++i) {
      images.push_back(device->allocate({.size = kPitch * kHeight}));
      auto* texels = reinterpret_cast<std::uint32_t*>(images.back().cpu_view().data());
      for (std::uint32_t t = 0; t < kPitch * kHeight / 4; ++t) texels[t] = static_cast<std::uint32_t>(rng());
    }
    const auto image = [&](const Buffer& buffer, std::uint32_t width = kWidth) {
      return ImageDesc{buffer.view(0, kPitch * kHeight), ImageFormat::r32_uint, width, kHeight, kPitch};
    };
    const auto rows = [&](const Buffer& buffer) {
      std::vector<std::uint32_t> texels;
      for (std::uint32_t y = 0; y < kHeight; ++y) {
        const auto* row = reinterpret_cast<const std::uint32_t*>(buffer.cpu_view().data() + y * kPitch);
        texels.insert(texels.end(), row, row + kWidth);
      }
      return texels;
    };
    const auto before = [&] {
      std::vector<std::vector<std::uint32_t>> all;
      for (const Buffer& buffer : images) all.push_back(rows(buffer));
      return all;
    }();

    Arguments arguments(copy);
    arguments.set_storage_image(0, image(images[0])).set_storage_image(1, image(images[2]));
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(copy, arguments, Launch{{1, 1, 1}, {kWidth, kHeight, 1}, std::nullopt},
                                            {Access::read, Access::write});
    graph.build();
    Queue queue(*device);
    graph.replay(queue);
    queue.finish();
    CHECK(rows(images[2]) == before[0]);

    require_error([&] { graph.set_texture(id, 0, image(images[1])); }, Errc::invalid_argument, "is a storage image, not a texture");
    require_error([&] { graph.set_storage_image(id, 1, image(images[3], 100000)); }, Errc::invalid_argument, "argument 1");
    require_error([&] { graph.set_storage_image(id, 2, image(images[3])); }, Errc::invalid_argument, "argument 2 does not exist");

    graph.set_storage_image(id, 0, image(images[1]));
    graph.set_storage_image(id, 1, image(images[3]));
    graph.replay(queue);
    queue.finish();
    CHECK(rows(images[3]) == before[1]);
    CHECK(rows(images[2]) == before[0]);  // the first destination is no longer written
    CHECK(rows(images[1]) == before[1]);
  }
  device.close_and_check_ledger();
}

namespace {

// buffer[i] = i for i < 32, through storage buffer 0's descriptor (no address in the constants).
Program load_store_index(Device& device) {
  return Program::from_ir3_assembly(device,
                                    "@localsize 32, 1, 1\n"
                                    "@buf 32\n"
                                    "@invocationid(r0.x)\n"
                                    "mov.u32u32 r0.y, r0.x\n"
                                    "(rpt5)nop\n"
                                    "stib.b.untyped.1d.u32.1.imm r0.x, r0.y, 0\n"
                                    "end\n");
}

}  // namespace

TEST_CASE("a buffer of another device is refused by set_buffer and set_image, and replays keep the old bindings",
          "[virtual-gpu][graph]") {
  // Its GPU address is in the other device's address space: bound, it would page-fault on
  // hardware (which by default is only logged) or hit whatever this device has there.
  const std::string spec = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  VirtualDevice device(spec);
  VirtualDevice other(spec);
  {
    const std::string refused = "belongs to another device";
    Queue queue(*device);
    {  // A buffer address in the constants (set_buffer's fast path).
      const Program add = load_add(*device);
      std::vector<Buffer> buffers = make_buffers(*device, 3, 71);
      Buffer foreign = other->allocate({.size = kElements * 4});
      fill(foreign, 72);
      Graph graph(*device);
      const GraphDispatch id = graph.dispatch(add, add_arguments(add, buffers, {0, 1, 2}), add_launch(kElements),
                                              {Access::write, Access::read, Access::read});
      graph.build();
      require_error([&] { graph.set_buffer(id, 1, foreign); }, Errc::invalid_argument, "argument 1 of dispatch 0: the buffer " + refused);
      require_error([&] { graph.set_buffer(id, 0, foreign.view(0, 64)); }, Errc::invalid_argument, refused);
      const auto before = contents(buffers);
      const auto foreign_before = read(foreign);
      graph.replay(queue);
      queue.finish();
      for (std::uint32_t i = 0; i < kElements; ++i) REQUIRE(read(buffers[0])[i] == before[1][i] + before[2][i]);
      CHECK(read(buffers[1]) == before[1]);
      CHECK(read(buffers[2]) == before[2]);
      CHECK(read(foreign) == foreign_before);
    }
    {  // A storage buffer descriptor.
      const Program store = load_store_index(*device);
      Buffer bound = device->allocate({.size = 32 * 4});
      Buffer foreign = other->allocate({.size = 32 * 4});
      Arguments arguments(store);
      arguments.set_buffer(0, bound);
      Graph graph(*device);
      const GraphDispatch id = graph.dispatch(store, arguments, Launch{{1, 1, 1}, {32, 1, 1}, std::nullopt});
      graph.build();
      require_error([&] { graph.set_buffer(id, 0, foreign); }, Errc::invalid_argument, "argument 0 of dispatch 0: the buffer " + refused);
      std::memset(bound.cpu_view().data(), 0xee, 32 * 4);
      std::memset(foreign.cpu_view().data(), 0xee, 32 * 4);
      graph.replay(queue);
      queue.finish();
      const auto written = bound.cpu_view().as<std::uint32_t>();
      for (std::uint32_t i = 0; i < 32; ++i) REQUIRE(written[i] == i);
      for (const std::uint32_t word : foreign.cpu_view().as<std::uint32_t>()) REQUIRE(word == 0xeeeeeeeeu);
    }
    {  // A storage image descriptor.
      const Program copy = load_image_copy(*device);
      std::mt19937 rng(4243);
      std::vector<Buffer> images;  // source, destination, and one on the other device
      for (int i = 0; i < 3; ++i) {
        images.push_back((i < 2 ? *device : *other).allocate({.size = kPitch * kHeight}));
        auto* texels = reinterpret_cast<std::uint32_t*>(images.back().cpu_view().data());
        for (std::uint32_t t = 0; t < kPitch * kHeight / 4; ++t) texels[t] = static_cast<std::uint32_t>(rng());
      }
      const auto image = [&](const Buffer& buffer) {
        return ImageDesc{buffer.view(0, kPitch * kHeight), ImageFormat::r32_uint, kWidth, kHeight, kPitch};
      };
      std::vector<std::vector<std::uint32_t>> before;
      for (const Buffer& buffer : images) before.push_back(std::vector<std::uint32_t>(buffer.cpu_view().as<std::uint32_t>().begin(),
                                                                                      buffer.cpu_view().as<std::uint32_t>().end()));
      Arguments arguments(copy);
      arguments.set_storage_image(0, image(images[0])).set_storage_image(1, image(images[1]));
      Graph graph(*device);
      const GraphDispatch id = graph.dispatch(copy, arguments, Launch{{1, 1, 1}, {kWidth, kHeight, 1}, std::nullopt},
                                              {Access::read, Access::write});
      graph.build();
      require_error([&] { graph.set_storage_image(id, 1, image(images[2])); }, Errc::invalid_argument,
                    "argument 1 of dispatch 0: the buffer " + refused);
      require_error([&] { graph.set_storage_image(id, 0, image(images[2])); }, Errc::invalid_argument, refused);
      graph.replay(queue);
      queue.finish();
      const auto* source = before[0].data();
      const auto destination = images[1].cpu_view().as<std::uint32_t>();
      for (std::uint32_t y = 0; y < kHeight; ++y)
        for (std::uint32_t x = 0; x < kPitch / 4; ++x) {
          const std::uint32_t at = y * kPitch / 4 + x;
          REQUIRE(destination[at] == (x < kWidth ? source[at] : before[1][at]));  // texels copied, the rest of each row kept
        }
      for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
        const auto now = images[i].cpu_view().as<std::uint32_t>();
        CHECK(std::vector<std::uint32_t>(now.begin(), now.end()) == before[i]);
      }
    }
  }
  other.close_and_check_ledger();
  device.close_and_check_ledger();
}

TEST_CASE("a replayed graph wait patched to targets straddling 2^32 holds until each is reached", "[virtual-kernel][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    std::mt19937_64 rng(37);
    Signal go(*device, 0xFFFFFFF0ull), done(*device);
    Graph graph(*device);
    const GraphSync wait = graph.wait(go, 1);
    const GraphSync signal = graph.signal(done, 1);
    graph.build();
    Queue queue(*device);
    // Each replay's target lies a random distance (under 2^29) past where `go` stands,
    // alternating targets just past a wrap of the low dword and in its middle.
    std::uint64_t target = 0x100000005ull;
    for (std::uint64_t replay = 1; replay <= 4; ++replay) {
      CAPTURE(replay, go.value(), target);
      graph.set_value(wait, target);
      graph.set_value(signal, replay);
      graph.replay(queue);
      const std::uint64_t fence = queue.submit();
      CHECK_FALSE(done.wait(replay, std::chrono::milliseconds(20)));
      go.set(target - 1);
      CHECK_FALSE(queue.wait_fence(fence, std::chrono::milliseconds(20)));
      go.set(target);
      REQUIRE(done.wait(replay, std::chrono::seconds(10)));
      const std::uint64_t next_high = (target >> 32) + 1 + rng() % 16;
      const std::uint64_t next_low = replay % 2 == 1 ? 0x80000000u + rng() % 0x1000 : rng() % 0x1000;
      target = (next_high << 32) | next_low;
      go.set(target - 1 - rng() % (1u << 29));
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a graph over 64 KiB of commands chains its command buffer, and every chained dispatch runs", "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    // 700 dependent dispatches, ping-ponging between two buffers: x ← y + k, then y ← x + k'...
    // each reads what the one before wrote, so a barrier sits between every two, and the
    // commands outgrow one 64 KiB chunk of command memory (command_memory.h) — about 30 dwords
    // a dispatch with its barrier, as all but the first carry the program state.
    constexpr std::size_t kDispatches = 700;
    const Program add_scalar = load_add_scalar(*device);
    std::array<Buffer, 2> buffers{device->allocate({.size = 64 * 4}), device->allocate({.size = 64 * 4})};
    std::array<std::vector<std::uint32_t>, 2> expected{std::vector<std::uint32_t>(64), std::vector<std::uint32_t>(64)};
    std::mt19937 rng(6464);
    for (std::size_t b = 0; b < 2; ++b) {
      auto* words = reinterpret_cast<std::uint32_t*>(buffers[b].cpu_view().data());
      for (std::uint32_t i = 0; i < 64; ++i) expected[b][i] = words[i] = static_cast<std::uint32_t>(rng());
    }
    Graph graph(*device);
    for (std::size_t d = 0; d < kDispatches; ++d) {
      const std::size_t out = (d + 1) % 2, in = d % 2;
      const auto k = static_cast<std::uint32_t>(rng());
      Arguments arguments(add_scalar);
      arguments.set_buffer(0, buffers[out]).set_buffer(1, buffers[in]).set_scalar(2, k);
      graph.dispatch(add_scalar, arguments, Launch{{1, 1, 1}, {64, 1, 1}, std::nullopt}, {Access::write, Access::read});
      for (std::uint32_t i = 0; i < 64; ++i) expected[out][i] = expected[in][i] + k;  // the host's reference
    }
    graph.build();
    CHECK(graph.dispatch_count() == kDispatches);
    CHECK(graph.barriers() == kDispatches - 1);
    REQUIRE(graph.command_dwords() * 4 > CommandMemory::kChunkBytes);

    Queue queue(*device);
    graph.replay(queue);
    // The queue calls the graph's first range only; the rest is reached through the
    // CP_INDIRECT_BUFFER_CHAIN packets that end each full chunk.
    const RecordedStream rec = record_of(queue);
    const auto calls = rec.all(pm4::Opcode::CP_INDIRECT_BUFFER);
    REQUIRE(calls.size() == 1);
    const std::uint32_t called_dwords = calls[0]->payload[2] & 0xfffff;  // CP_INDIRECT_BUFFER IB_SIZE
    CHECK(called_dwords > 0);
    CHECK(called_dwords <= CommandMemory::kChunkBytes / 4);
    CHECK(called_dwords < graph.command_dwords());
    queue.finish();
    for (std::size_t b = 0; b < 2; ++b) {
      CAPTURE(b);
      std::vector<std::uint32_t> got(64);
      std::memcpy(got.data(), buffers[b].cpu_view().data(), 64 * 4);
      CHECK(got == expected[b]);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("patching a graph while its replay is held on the GPU waits for that replay to retire", "[virtual-gpu][graph]") {
  // graph.hpp: a replay that has values to patch first waits until the GPU finished the previous
  // replay of this graph (one instance, not double-buffered). The first replay is kept on the GPU
  // by a kit stall; the second replay, on another thread, must enter its kernel wait before the
  // patch lands. That thread's wait ioctl is made to fail once with EINTR (both backends ask
  // again), which puts it in the call log: the sign, without any timing, that it is waiting.
  const testing::Driver driver = GENERATE(testing::Driver::kgsl, testing::Driver::msm);
  testing::VirtualDevice test({.driver = driver});
  {
    Device& device = test.device();
    const Program add_scalar = load_add_scalar(device);
    Buffer in = device.allocate({.size = 64 * 4}), first_out = device.allocate({.size = 64 * 4}),
           second_out = device.allocate({.size = 64 * 4});
    auto* input = reinterpret_cast<std::uint32_t*>(in.cpu_view().data());
    std::mt19937 rng(515);
    for (std::uint32_t i = 0; i < 64; ++i) input[i] = static_cast<std::uint32_t>(rng());
    std::memset(first_out.cpu_view().data(), 0, 64 * 4);
    std::memset(second_out.cpu_view().data(), 0, 64 * 4);
    const auto k1 = static_cast<std::uint32_t>(rng()), k2 = static_cast<std::uint32_t>(rng());

    Signal go(device, 1), done(device);  // the first replay's wait is met: the stall holds it
    Graph graph(device);
    const GraphSync wait = graph.wait(go, 1);
    Arguments arguments(add_scalar);
    arguments.set_buffer(0, first_out).set_buffer(1, in).set_scalar(2, k1);
    const GraphDispatch id = graph.dispatch(add_scalar, arguments, Launch{{1, 1, 1}, {64, 1, 1}, std::nullopt},
                                            {Access::write, Access::read});
    const GraphSync signal = graph.signal(done, 1);
    graph.build();
    Queue queue(device);
    graph.replay(queue);
    test.stall_submission();
    queue.submit();  // in the kernel, stalled

    // Recorded patches only: nothing the held replay reads may change yet.
    graph.set_buffer(id, 0, second_out);
    graph.set_scalar(id, 2, k2);
    graph.set_value(wait, 2);
    graph.set_value(signal, 2);
    test.clear_log();
    test.fail_call(testing::Operation::wait, EINTR);
    std::atomic<bool> replayed{false};
    std::thread second([&] {
      graph.replay(queue);
      replayed = true;
      queue.submit();
    });
    // Until the second replay either waits in the kernel or returned without waiting.
    const auto waiting = [&] {
      for (const testing::Call& call : test.calls(testing::Operation::wait))
        if (call.injected && call.error == EINTR) return true;
      return false;
    };
    while (!waiting() && !replayed) std::this_thread::yield();
    CHECK(waiting());
    CHECK_FALSE(replayed);
    test.end_stalls();  // the first replay runs with its own values; then the second may patch
    second.join();
    REQUIRE(done.wait(1, std::chrono::seconds(60)));
    go.set(2);
    queue.finish();
    CHECK(done.value() == 2);
    for (std::uint32_t i = 0; i < 64; ++i) {
      REQUIRE(reinterpret_cast<const std::uint32_t*>(first_out.cpu_view().data())[i] == input[i] + k1);
      REQUIRE(reinterpret_cast<const std::uint32_t*>(second_out.cpu_view().data())[i] == input[i] + k2);
    }
    CHECK(test.faults().empty());
  }
  const auto leaks = test.close();
  CHECK(leaks.empty());
}
