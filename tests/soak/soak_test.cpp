// [virtual-kernel] The soak: both virtual kernels at once, for ADRENO_SOAK_SECONDS (default 10;
// scripts/soak runs it for 30 minutes) from the seed ADRENO_SOAK_SEED (default: a fresh one,
// printed first), several threads each driving queues of their own with random work —
// dispatches, graph replays, signals from one queue waited on by another, allocations of every
// size and memory type, dma-buf imports — and checking every result.
//
// The kit's fault plan belongs to a device, so each kernel gets two devices: a healthy one, on
// which nothing may fail (no error, no GPU fault, every result exact), and a faulty one, whose
// kernel fails a seeded fraction of allocations (ENOMEM), submissions (EAGAIN: the seam asks
// again), waits (EINTR: asked again, KGSL's with the time left) and dma-buf imports (ENOMEM),
// and whose submissions now and then hang or page-fault. There,
// every error must be one those faults explain — an injected errno, or device_lost after a GPU
// fault the device recorded — and a wrong result is allowed only when the device recorded a GPU
// fault meanwhile (a page fault the driver lets pass). At the end every device's ledger is empty.
#include <adreno/adreno.hpp>
#include <adreno/graph.hpp>
#include <adreno/testing.hpp>

#include "../graph/graph_programs.h"

#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace adreno;
using namespace std::chrono_literals;
namespace kit = adreno::testing;

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::seconds soak_duration() {
  const char* text = std::getenv("ADRENO_SOAK_SECONDS");
  return std::chrono::seconds(text != nullptr ? std::strtoul(text, nullptr, 10) : 10);
}

// The seed every worker's, conductor's and fault plan's generator derives from: ADRENO_SOAK_SEED,
// or a fresh one, so each run explores other work. It is printed first: given again, each thread
// repeats its sequence of steps (the interleaving of the threads is the scheduler's).
std::uint32_t soak_seed() {
  const char* text = std::getenv("ADRENO_SOAK_SEED");
  return text != nullptr ? static_cast<std::uint32_t>(std::strtoul(text, nullptr, 0)) : std::random_device{}();
}

enum class Step { dispatch, graph, cross_queue, allocation, dmabuf, count };
constexpr std::array<const char*, static_cast<std::size_t>(Step::count)> kStepNames = {
    "dispatch", "graph replay", "cross-queue signal", "allocation", "dma-buf import"};

// The errnos the faulty devices' kernels inject, per operation.
struct PlannedFailure {
  kit::Operation operation;
  int error;
};
constexpr PlannedFailure kPlannedFailures[] = {{kit::Operation::alloc, ENOMEM},
                                               {kit::Operation::submit, EAGAIN},
                                               {kit::Operation::wait, EINTR},
                                               {kit::Operation::import_dmabuf, ENOMEM}};
constexpr double kFailureFraction = 0.02;

// What one device's workers did and saw.
struct Tally {
  std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(Step::count)> steps{};
  std::atomic<std::uint64_t> errors{0}, faulted_results{0};
  std::mutex mutex;
  std::map<std::string, std::uint64_t> error_kinds;  // "device_lost", "kernel_error EAGAIN", ...
  std::vector<std::string> problems;

  void problem(const std::string& what) {
    std::lock_guard lock(mutex);
    if (problems.size() < 20) problems.push_back(what);
  }
  void error(const Error& e) {
    ++errors;
    std::lock_guard lock(mutex);
    ++error_kinds[std::string(to_string(e.code())) + (e.sys_errno() != 0 ? " errno " + std::to_string(e.sys_errno()) : "")];
  }
};

std::vector<std::uint32_t> random_words(std::mt19937& rng, std::size_t count) {
  std::vector<std::uint32_t> words(count);
  for (auto& word : words) word = static_cast<std::uint32_t>(rng());
  return words;
}
void put(const Buffer& buffer, const std::vector<std::uint32_t>& words) {
  std::memcpy(buffer.cpu_view().data(), words.data(), words.size() * 4);
}
std::vector<std::uint32_t> get(const BufferView& view, std::size_t count) {
  std::vector<std::uint32_t> words(count);
  std::memcpy(words.data(), view.cpu_view().data(), count * 4);
  return words;
}

// A result the step checks: wrong is a problem on a healthy device, and on a faulty one unless
// the device recorded a GPU fault during the step (a page fault that the driver let pass).
class Verdict {
 public:
  Verdict(kit::VirtualDevice& device, bool faulty, Tally& tally)
      : device_(device), faulty_(faulty), tally_(tally), faults_before_(device.faults().size()) {}
  void check(bool right, const std::string& what) {
    if (right) return;
    if (faulty_ && device_.faults().size() > faults_before_) {
      ++tally_.faulted_results;
      return;
    }
    tally_.problem(std::string(faulty_ ? "faulty" : "healthy") + " device: wrong result: " + what);
  }

 private:
  kit::VirtualDevice& device_;
  bool faulty_;
  Tally& tally_;
  std::size_t faults_before_;
};

// One thread's random work on one device. Every object it makes is its own; after an error it
// drops them all and starts again with new queues, as an application recovering would.
class Worker {
 public:
  Worker(kit::VirtualDevice& test, bool faulty, std::uint32_t seed, Tally& tally)
      : test_(test), device_(test.device()), faulty_(faulty), rng_(seed), tally_(tally) {}

  void run_until(Clock::time_point deadline) {
    while (Clock::now() < deadline) {
      try {
        if (!state_) state_ = std::make_unique<State>(device_, rng_);
        const auto step = static_cast<Step>(rng_() % static_cast<unsigned>(Step::count));
        Verdict verdict(test_, faulty_, tally_);
        run(step, verdict);
        ++tally_.steps[static_cast<std::size_t>(step)];
      } catch (const Error& error) {
        tally_.error(error);
        if (!faulty_) {
          tally_.problem(std::string("healthy device: ") + error.what());
        } else if (!explained(error)) {
          tally_.problem(std::string("faulty device: an error no injected fault explains: ") + error.what());
        }
        state_.reset();
      }
    }
    state_.reset();
  }

 private:
  static constexpr std::uint32_t kElements = 256;  // two work-groups of the add kernel

  // What a worker keeps between steps: its programs, two queues, a graph, recent allocations.
  struct State {
    State(Device& device, std::mt19937& rng)
        : add(load_add(device)), add_scalar(load_add_scalar(device)),
          priorities{static_cast<unsigned>(rng() % device.info().priority_levels),
                     rng() % 2 == 0 ? priorities[0] : static_cast<unsigned>(rng() % device.info().priority_levels)},
          queues{Queue(device, {.priority = priorities[0]}), Queue(device, {.priority = priorities[1]})} {}
    Program add, add_scalar;
    std::array<unsigned, 2> priorities;
    std::array<Queue, 2> queues;
    std::optional<Graph> graph;
    std::optional<GraphDispatch> graph_dispatch;
    Buffer graph_out, graph_in;
    std::vector<Buffer> kept;  // allocations that live across steps
  };

  bool explained(const Error& error) const {
    if (error.code() == Errc::device_lost) return !test_.faults().empty();
    for (const PlannedFailure& planned : kPlannedFailures) {
      if (error.sys_errno() == planned.error) return true;
    }
    return false;
  }

  Buffer buffer_of(const std::vector<std::uint32_t>& words) {
    Buffer buffer = device_.allocate({.size = words.size() * 4});
    put(buffer, words);
    return buffer;
  }

  void run(Step step, Verdict& verdict) {
    switch (step) {
      case Step::dispatch: return dispatch(verdict);
      case Step::graph: return replay(verdict);
      case Step::cross_queue: return cross_queue(verdict);
      case Step::allocation: return allocation(verdict);
      case Step::dmabuf: return dmabuf(verdict);
      case Step::count: break;
    }
  }

  // out = a + b on a random one of the queues, waited for through a signal.
  void dispatch(Verdict& verdict) {
    State& s = *state_;
    const auto a = random_words(rng_, kElements), b = random_words(rng_, kElements);
    Buffer in_a = buffer_of(a), in_b = buffer_of(b), out = device_.allocate({.size = kElements * 4});
    Arguments arguments(s.add);
    arguments.set_buffer(0, out).set_buffer(1, in_a).set_buffer(2, in_b);
    Queue& queue = s.queues[rng_() % 2];
    Signal done(device_);
    queue.dispatch(s.add, arguments, add_launch(kElements));
    queue.signal(done, 1);
    queue.submit();
    if (!done.wait(1, 60s)) throw Error(Errc::timeout, "soak", "a dispatch did not retire in 60 s");
    const auto sums = get(out, kElements);
    bool right = true;
    for (std::uint32_t i = 0; i < kElements; ++i) right = right && sums[i] == a[i] + b[i];
    verdict.check(right, "dispatch out = a + b");
  }

  // The worker's graph (out = in + k) replayed with a new k and, sometimes, a new input.
  void replay(Verdict& verdict) {
    State& s = *state_;
    if (!s.graph) {
      s.graph_out = device_.allocate({.size = 64 * 4});
      s.graph_in = buffer_of(random_words(rng_, 64));
      Arguments arguments(s.add_scalar);
      arguments.set_buffer(0, s.graph_out).set_buffer(1, s.graph_in).set_scalar(2, std::uint32_t{0});
      Graph graph(device_);
      s.graph_dispatch = graph.dispatch(s.add_scalar, arguments, Launch{{1, 1, 1}, {64, 1, 1}, std::nullopt});
      graph.build();
      s.graph.emplace(std::move(graph));
    }
    if (rng_() % 4 == 0) {
      s.graph_in = buffer_of(random_words(rng_, 64));
      s.graph->set_buffer(*s.graph_dispatch, 1, s.graph_in);
    }
    const auto k = static_cast<std::uint32_t>(rng_());
    s.graph->set_scalar(*s.graph_dispatch, 2, k);
    Queue& queue = s.queues[rng_() % 2];
    s.graph->replay(queue);
    queue.finish(60s);
    const auto in = get(s.graph_in, 64), out = get(s.graph_out, 64);
    bool right = true;
    for (std::size_t i = 0; i < 64; ++i) right = right && out[i] == in[i] + k;
    verdict.check(right, "graph replay out = in + k");
  }

  // One queue writes data and a signal; the other waits for it and adds the data to b.
  void cross_queue(Verdict& verdict) {
    State& s = *state_;
    const std::size_t producer = rng_() % 2;
    Queue& first = s.queues[producer];
    Queue& second = s.queues[1 - producer];
    const auto data = random_words(rng_, kElements), b = random_words(rng_, kElements);
    Buffer shared = device_.allocate({.size = kElements * 4}), in_b = buffer_of(b), out = device_.allocate({.size = kElements * 4});
    Signal ready(device_), done(device_);
    first.write(shared, data);
    first.signal(ready, 1);
    Arguments arguments(s.add);
    arguments.set_buffer(0, out).set_buffer(1, shared).set_buffer(2, in_b);
    // The wait recorded after the producer submitted becomes a kernel dependency; recorded
    // before, the command processor polls it — so the producer submits first either way, or a
    // poll on the producer's own band would hold it (queue.hpp). A polled wait only between
    // queues of one priority: across bands, two threads' polls can each hold the band the
    // other's producer is queued on, and both hang (as they would on hardware).
    const bool kernel_dependency = s.priorities[0] != s.priorities[1] || rng_() % 2 == 0;
    if (kernel_dependency) first.submit();
    second.wait(ready, 1);
    if (!kernel_dependency) first.submit();
    second.dispatch(s.add, arguments, add_launch(kElements));
    second.signal(done, 1);
    second.submit();
    if (!done.wait(1, 60s)) throw Error(Errc::timeout, "soak", "a cross-queue wait did not retire in 60 s");
    const auto sums = get(out, kElements);
    bool right = true;
    for (std::uint32_t i = 0; i < kElements; ++i) right = right && sums[i] == data[i] + b[i];
    verdict.check(right, "cross-queue out = data + b");
  }

  // A buffer of a random size (1 B to 4 MiB, log-uniform), alignment and memory type: a CPU
  // pattern survives, and a GPU write into it lands. Some buffers are kept for later steps.
  void allocation(Verdict& verdict) {
    State& s = *state_;
    constexpr MemoryType kTypes[] = {MemoryType::write_combined, MemoryType::cached, MemoryType::cached_coherent,
                                     MemoryType::uncached};
    BufferDesc desc;
    desc.size = std::max<std::uint64_t>(1, (std::uint64_t{1} << (rng_() % 23)) + rng_() % 4096);
    desc.alignment = std::uint64_t{1} << (rng_() % 17);
    desc.memory = kTypes[rng_() % 4];
    desc.gpu_read_only = rng_() % 4 == 0;
    desc.exportable = rng_() % 8 == 0;
    std::optional<Buffer> buffer;
    try {
      buffer = device_.allocate(desc);
    } catch (const Error& error) {
      // Where the kernel has no IO-coherent memory that is the answer, on every device.
      if (desc.memory == MemoryType::cached_coherent && error.code() == Errc::unsupported) return;
      throw;
    }
    const bool aligned = buffer->gpu_address().value() % desc.alignment == 0;
    verdict.check(aligned && buffer->size() >= desc.size, "allocation of " + std::to_string(desc.size) + " bytes aligned to " +
                                                              std::to_string(desc.alignment));
    const std::size_t words = desc.size / 4;
    if (words > 0) {
      const auto pattern = random_words(rng_, std::min<std::size_t>(words, 1024));
      std::memcpy(buffer->cpu_view().data(), pattern.data(), pattern.size() * 4);
      buffer->flush_for_gpu();
      if (!desc.gpu_read_only) {
        const std::size_t at = rng_() % words, count = std::min<std::size_t>(words - at, 1 + rng_() % 64);
        const auto written = random_words(rng_, count);
        Queue& queue = s.queues[rng_() % 2];
        queue.write(buffer->view(at * 4, count * 4), written);
        queue.finish(60s);
        buffer->invalidate_for_cpu();
        verdict.check(get(buffer->view(at * 4, count * 4), count) == written, "GPU write into an allocation");
      } else {
        verdict.check(get(*buffer, pattern.size()) == pattern, "CPU pattern in a GPU-read-only allocation");
      }
    }
    s.kept.push_back(std::move(*buffer));
    if (s.kept.size() > 8) s.kept.erase(s.kept.begin() + static_cast<std::ptrdiff_t>(rng_() % s.kept.size()));
  }

  // A dma-buf from elsewhere (a memfd), imported, written by the GPU, read through the memfd.
  void dmabuf(Verdict& verdict) {
    State& s = *state_;
    const std::size_t bytes = (1 + rng_() % 16) * 4096;
    const int fd = ::memfd_create("soak-dmabuf", MFD_CLOEXEC);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) throw Error(Errc::out_of_memory, "soak", "memfd");
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    const std::size_t words = bytes / 4, at = rng_() % words, count = std::min<std::size_t>(words - at, 1 + rng_() % 256);
    const auto written = random_words(rng_, count);
    {
      Buffer imported = device_.import_dmabuf(fd);
      Queue& queue = s.queues[rng_() % 2];
      queue.write(imported.view(at * 4, count * 4), written);
      queue.finish(60s);
    }
    void* mapping = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (mapping == MAP_FAILED) throw Error(Errc::out_of_memory, "soak", "mmap of the dma-buf");
    std::vector<std::uint32_t> seen(count);
    std::memcpy(seen.data(), static_cast<const std::byte*>(mapping) + at * 4, count * 4);
    ::munmap(mapping, bytes);
    verdict.check(seen == written, "GPU write into an imported dma-buf");
  }

  kit::VirtualDevice& test_;
  Device& device_;
  bool faulty_;
  std::mt19937 rng_;
  Tally& tally_;
  std::unique_ptr<State> state_;
};

struct SoakDevice {
  std::string name;
  bool faulty;
  kit::VirtualDevice test;
  Tally tally;
};

void print_summary(const std::vector<std::unique_ptr<SoakDevice>>& devices, std::chrono::seconds duration) {
  std::printf("soak: %lld s on both virtual kernels\n", static_cast<long long>(duration.count()));
  for (const auto& d : devices) {
    std::printf("  %-12s", d->name.c_str());
    for (std::size_t i = 0; i < kStepNames.size(); ++i) {
      std::printf(" %s %llu,", kStepNames[i], static_cast<unsigned long long>(d->tally.steps[i].load()));
    }
    std::printf(" GPU faults %zu, errors %llu", d->test.faults().size(), static_cast<unsigned long long>(d->tally.errors.load()));
    for (const auto& [kind, count] : d->tally.error_kinds) std::printf(" [%s: %llu]", kind.c_str(), static_cast<unsigned long long>(count));
    std::printf(", results changed by a recorded fault %llu\n", static_cast<unsigned long long>(d->tally.faulted_results.load()));
  }
  std::fflush(stdout);
}

}  // namespace

TEST_CASE("random work on several queues of both virtual kernels for a set time: healthy devices see no error, faulty ones only the faults injected, every ledger ends empty",
          "[.][soak][virtual-kernel]") {
  const std::chrono::seconds duration = soak_duration();
  constexpr int kHealthyWorkers = 3, kFaultyWorkers = 2;
  std::vector<std::unique_ptr<SoakDevice>> devices;
  for (const kit::Driver driver : {kit::Driver::kgsl, kit::Driver::msm}) {
    const std::string name = driver == kit::Driver::kgsl ? "kgsl" : "msm";
    for (const bool faulty : {false, true}) {
      devices.push_back(std::unique_ptr<SoakDevice>(
          new SoakDevice{name + (faulty ? " faulty" : " healthy"), faulty, kit::VirtualDevice({.driver = driver, .hang_timeout = 50ms}), {}}));
    }
  }
  const std::uint32_t first_seed = soak_seed();
  std::printf("soak: seed %#x (ADRENO_SOAK_SEED=%#x repeats each thread's work)\n", first_seed, first_seed);
  std::fflush(stdout);
  INFO("seed " << first_seed);
  std::uint32_t seed = first_seed;
  for (const auto& d : devices) {
    if (!d->faulty) continue;
    for (const PlannedFailure& planned : kPlannedFailures) d->test.fail_random_calls(planned.operation, kFailureFraction, ++seed, planned.error);
  }

  const auto deadline = Clock::now() + duration;
  std::vector<std::thread> threads;
  for (const auto& d : devices) {
    for (int w = 0; w < (d->faulty ? kFaultyWorkers : kHealthyWorkers); ++w) {
      threads.emplace_back([&d, s = ++seed, deadline] { Worker(d->test, d->faulty, s, d->tally).run_until(deadline); });
    }
    if (!d->faulty) continue;
    // The conductor: now and then one of the next submissions hangs or page-faults.
    threads.emplace_back([&d, s = ++seed, deadline] {
      std::mt19937 rng(s);
      while (Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 800));
        if (rng() % 2 == 0) {
          d->test.hang_submission(1 + rng() % 8);
        } else {
          d->test.page_fault_submission(0xdead0000ull + (rng() % 256) * 4096, 1 + rng() % 8);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  print_summary(devices, duration);

  for (const auto& d : devices) {
    INFO(d->name);
    for (const auto& problem : d->tally.problems) UNSCOPED_INFO(problem);
    CHECK(d->tally.problems.empty());
    std::uint64_t steps = 0;
    for (const auto& count : d->tally.steps) steps += count;
    CHECK(steps > 0);
    if (!d->faulty) CHECK(d->test.faults().empty());
    const auto leaks = d->test.close();
    for (const auto& leak : leaks) UNSCOPED_INFO("leak: " << leak);
    CHECK(leaks.empty());
  }
}
