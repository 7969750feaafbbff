// An application's unit test written with the test kit (<adreno/testing.hpp>), without a test
// framework: the application function add_vectors() runs on a virtual Adreno in-process, and the
// test makes the kernel fail under it — an allocation out of memory, a GPU hang — to check that
// the function recovers, computes the right sums and leaves no kernel object behind. Run by CTest
// on both virtual kernels (`app_test kgsl`, `app_test msm`).
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>
#include <adreno/testing.hpp>

#include "kernels.h"  // examples/kernels/vector_add.s

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>
#include <vector>

// ---- the application's code under test ----

struct Sums {
  std::vector<std::uint32_t> values;
  int attempts = 0;  // GPU attempts it took
};

/// c[i] = a[i] + b[i] for 1024 integers on the GPU. Memory running out and a lost GPU context
/// are transient for this application: it tries again from scratch, up to three times.
Sums add_vectors(adreno::Device& device, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  constexpr std::size_t kCount = 1024;  // the @buf size of vector_add.s
  for (int attempt = 1;; ++attempt) {
    try {
      adreno::Buffer out = device.allocate({.size = kCount * 4});
      adreno::Buffer in_a = device.allocate({.size = kCount * 4});
      adreno::Buffer in_b = device.allocate({.size = kCount * 4});
      std::memcpy(in_a.cpu_view().data(), a.data(), kCount * 4);
      std::memcpy(in_b.cpu_view().data(), b.data(), kCount * 4);
      adreno::Program program = adreno::Program::from_ir3_assembly(device, kernels::vector_add);
      adreno::Arguments arguments(program);
      arguments.set_buffer(0, out).set_buffer(1, in_a).set_buffer(2, in_b);
      adreno::Queue queue(device);
      queue.dispatch(program, arguments, {.groups = {kCount / 64, 1, 1}, .local_size = {64, 1, 1}, .wave_size = {}});
      queue.finish();
      const auto* sums = reinterpret_cast<const std::uint32_t*>(out.cpu_view().data());
      return Sums{std::vector<std::uint32_t>(sums, sums + kCount), attempt};
    } catch (const adreno::Error& error) {
      const bool transient = error.code() == adreno::Errc::out_of_memory || error.code() == adreno::Errc::device_lost;
      if (!transient || attempt == 3) throw;
    }
  }
}

// ---- its test ----

namespace {

int failures = 0;

void check(bool ok, const char* what, int line) {
  if (ok) return;
  std::fprintf(stderr, "app_test.cpp:%d: FAILED: %s\n", line, what);
  ++failures;
}
#define CHECK(expression) check((expression), #expression, __LINE__)

struct Inputs {
  std::vector<std::uint32_t> a, b, sums;
};

Inputs random_inputs(std::uint32_t seed) {
  std::mt19937 random(seed);
  Inputs inputs;
  for (int i = 0; i < 1024; ++i) {
    inputs.a.push_back(random());
    inputs.b.push_back(random());
    inputs.sums.push_back(inputs.a.back() + inputs.b.back());
  }
  return inputs;
}

void check_no_leaks(adreno::testing::VirtualDevice& test) {
  for (const auto& leak : test.close()) {
    std::fprintf(stderr, "leak: %s\n", leak.c_str());
    check(false, "no kernel object left behind", __LINE__);
  }
}

void adds_in_one_submission(adreno::testing::Driver driver) {
  adreno::testing::VirtualDevice test({.driver = driver});
  const Inputs inputs = random_inputs(1);
  const Sums sums = add_vectors(test.device(), inputs.a, inputs.b);
  CHECK(sums.values == inputs.sums);
  CHECK(sums.attempts == 1);
  CHECK(test.submissions().size() == 1);
  CHECK(test.faults().empty());
  check_no_leaks(test);
}

void recovers_from_memory_running_out(adreno::testing::Driver driver) {
  adreno::testing::VirtualDevice test({.driver = driver});
  const Inputs inputs = random_inputs(2);
  test.fail_call(adreno::testing::Operation::alloc, ENOMEM);  // the first kernel allocation
  const Sums sums = add_vectors(test.device(), inputs.a, inputs.b);
  CHECK(sums.values == inputs.sums);
  CHECK(sums.attempts == 2);
  const auto allocs = test.calls(adreno::testing::Operation::alloc);
  CHECK(!allocs.empty() && allocs.front().injected && allocs.front().error == ENOMEM);
  check_no_leaks(test);
}

void recovers_from_a_gpu_hang(adreno::testing::Driver driver) {
  using namespace std::chrono_literals;
  adreno::testing::VirtualDevice test({.driver = driver, .hang_timeout = 50ms});
  const Inputs inputs = random_inputs(3);
  test.hang_submission(1);
  const Sums sums = add_vectors(test.device(), inputs.a, inputs.b);
  CHECK(sums.values == inputs.sums);
  CHECK(sums.attempts == 2);
  const auto faults = test.faults();
  CHECK(faults.size() == 1 && faults[0].kind == adreno::testing::GpuFault::Kind::hang);
  CHECK(test.submissions().size() == 2);
  check_no_leaks(test);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "kgsl") != 0 && std::strcmp(argv[1], "msm") != 0)) {
    std::fprintf(stderr, "usage: app_test kgsl|msm\n");
    return 2;
  }
  const auto driver = std::strcmp(argv[1], "kgsl") == 0 ? adreno::testing::Driver::kgsl : adreno::testing::Driver::msm;
  try {
    adds_in_one_submission(driver);
    recovers_from_memory_running_out(driver);
    recovers_from_a_gpu_hang(driver);
  } catch (const adreno::Error& error) {
    std::fprintf(stderr, "app_test: %s\n", error.what());
    return 1;
  }
  std::printf("app_test on virtual %s: %s\n", argv[1], failures == 0 ? "passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
