// [virtual-gpu] What orders work and makes it visible, observed through results on the virtual
// GPU's ordering and cache model (src/virt/gpu/execution_model.h, uche.h): dependent
// dispatches need Queue::barrier, a signal makes a queue's results visible to the host and to
// other queues, and each submission and each wait start from an invalidated cache, so memory
// the host or another queue wrote is read fresh. Each test also shows the wrong result the
// missing command gives, so it cannot pass vacuously. Inputs are seeded random.
#include <adreno/adreno.hpp>
#include <adreno/testing.hpp>

#include "../core/virtual_device.h"
#include "../graph/graph_programs.h"

#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

using namespace adreno;
using namespace std::chrono_literals;

namespace {

constexpr std::uint32_t kElements = 64;  // one work group of add_scalar
const Launch kLaunch{{1, 1, 1}, {kElements, 1, 1}, std::nullopt};

std::vector<std::uint32_t> random_words(std::mt19937& rng) {
  std::vector<std::uint32_t> words(kElements);
  for (auto& w : words) w = rng() >> 1;
  return words;
}

void fill(Buffer& buffer, const std::vector<std::uint32_t>& words) {
  std::memcpy(buffer.cpu_view().data(), words.data(), words.size() * 4);
}

std::vector<std::uint32_t> contents(Buffer& buffer) {
  auto view = buffer.cpu_view().as<std::uint32_t>();
  return {view.begin(), view.begin() + kElements};
}

std::vector<std::uint32_t> plus(std::vector<std::uint32_t> words, std::uint32_t k) {
  for (auto& w : words) w += k;
  return words;
}

/// out = in + k on `queue`.
void add(Queue& queue, Program& program, Buffer& out, Buffer& in, std::uint32_t k) {
  Arguments arguments(program);
  arguments.set_buffer("out", out).set_buffer("in", in).set_scalar(2, k);
  queue.dispatch(program, arguments, kLaunch);
}

/// Runs `in → mid = in + 1 → out = mid + 2` on one queue, with or without a barrier between.
std::vector<std::uint32_t> chain(Device& device, const std::vector<std::uint32_t>& input, bool with_barrier) {
  Program program = load_add_scalar(device);
  Buffer in = device.allocate({.size = 4096}), mid = device.allocate({.size = 4096}), out = device.allocate({.size = 4096});
  fill(in, input);
  std::memset(mid.cpu_view().data(), 0, 4096);
  Queue queue(device);
  add(queue, program, mid, in, 1);
  if (with_barrier) queue.barrier();
  add(queue, program, out, mid, 2);
  queue.finish(10s);
  return contents(out);
}

/// Sets an environment variable for one scope (the virtual GPU reads it when a device opens).
struct ScopedEnvironment {
  ScopedEnvironment(const char* name, const char* value) : name(name) { ::setenv(name, value, 1); }
  ~ScopedEnvironment() { ::unsetenv(name); }
  const char* name;
};

}  // namespace

TEST_CASE("a barrier orders dependent dispatches, and without one the second reads the first's input", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    std::mt19937 rng(21);
    const auto input = random_words(rng);
    CHECK(chain(*device, input, true) == plus(input, 3));
    // No barrier: the second dispatch may run first and read mid before the first wrote it.
    CHECK(chain(*device, input, false) == plus(std::vector<std::uint32_t>(kElements, 0), 2));
  }
  device.close_and_check_ledger();
}

TEST_CASE("ADRENO_VIRTUAL_ORDER=strict runs dispatches in issue order with no cache", "[virtual-gpu][e2e]") {
  ScopedEnvironment strict("ADRENO_VIRTUAL_ORDER", "strict");
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    std::mt19937 rng(22);
    const auto input = random_words(rng);
    CHECK(chain(*device, input, false) == plus(input, 3));
  }
  device.close_and_check_ledger();
}

TEST_CASE("a buffer the host rewrote between submissions is read fresh, not from the GPU cache", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = load_add_scalar(*device);
    Buffer in = device->allocate({.size = 4096}), out = device->allocate({.size = 4096});
    Queue queue(*device);
    std::mt19937 rng(23);
    for (int round = 0; round < 3; ++round) {
      INFO("round " << round);
      const auto input = random_words(rng);
      const std::uint32_t k = rng() & 0xff;
      fill(in, input);
      add(queue, program, out, in, k);
      queue.finish(10s);
      REQUIRE(contents(out) == plus(input, k));
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a queue that waited for another queue's signal reads what that queue wrote before it", "[virtual-gpu][e2e]") {
  // The two queues run at once only on different rings: KGSL's priority bands have a ringbuffer
  // each, and the MSM node gets two rings (6 levels, 3 per ring) as an a650+ would have.
  const bool msm = GENERATE(false, true);
  testing::VirtualDevice kit({.driver = msm ? testing::Driver::msm : testing::Driver::kgsl,
                              .priority_levels = msm ? std::optional<unsigned>(6) : std::nullopt,
                              .hang_timeout = 2000ms});
  {
    Device& device = kit.device();
    Program program = load_add_scalar(device);
    const unsigned levels = device.info().priority_levels;
    Queue consumer(device, QueueDesc{.priority = 0}), producer(device, QueueDesc{.priority = levels - 1});
    Signal read(device), go(device), produced(device), consumed(device), release(device);
    Buffer source = device.allocate({.size = 4096}), shared = device.allocate({.size = 4096});
    Buffer before = device.allocate({.size = 4096}), after = device.allocate({.size = 4096});
    std::mt19937 rng(24);
    const auto old_words = random_words(rng), new_words = random_words(rng);
    fill(shared, old_words);
    fill(source, new_words);

    // The consumer reads `shared` (its cache now holds it), says so, waits on the GPU for a
    // signal the producer has not submitted yet, and reads it again.
    add(consumer, program, before, shared, 0);
    consumer.signal(read, 1);
    consumer.wait(produced, 1);
    add(consumer, program, after, shared, 0);
    consumer.signal(consumed, 1);
    consumer.submit();
    // The producer runs on another ring, at the same time: it starts only once the host saw the
    // consumer's first read (else it could overwrite `shared` before that read). It overwrites
    // `shared` and signals; it then holds its submission open on a signal the host sets only once
    // the consumer is done, so only the signal's flush can have made its results visible (not the
    // end of its submission).
    producer.wait(go, 1);
    add(producer, program, shared, source, 0);
    producer.signal(produced, 1);
    producer.wait(release, 1);
    producer.submit();

    // Polled, not Signal::wait: a host wait sleeps on the fence of the whole submission, and this
    // one ends only after the producer ran.
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (read.value() < 1 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(100us);
    REQUIRE(read.value() == 1);
    go.set(1);
    REQUIRE(consumed.wait(1, 10s));
    release.set(1);
    producer.finish(10s);
    CHECK(contents(before) == old_words);
    CHECK(contents(after) == new_words);
    CHECK(contents(shared) == new_words);
  }
  CHECK(kit.close().empty());
}
