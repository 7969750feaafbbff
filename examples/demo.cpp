// The adreno demo. On each device — the one ADRENO_DEVICE names, or else the virtual KGSL device
// and the virtual MSM render node in turn — it dispatches two kernels written in ir3 assembly
// through the public API, checks every result on the host, and prints what it saw:
//  1. out[i] = 3·a[i] + b[i] over a grid of work groups (global loads and stores, 24-bit mad);
//  2. each work group of 128 reverses its slice through local memory behind a barrier,
//     in 64-wide and then 128-wide waves;
// then it signals a timeline and reads the GPU's always-on clock around the work;
//  3. a graph of both kernels (3a+b, then its reverse) recorded once and replayed on new inputs
//     by patching their addresses in place;
//  4. a tiled SGEMM written without delay slots and legalized by the assembler (gemm.h).
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "gemm.h"
#include "kernels.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::uint32_t kGroups = 256;  // 16384 elements, the size of mul_add.s and reverse.s buffers

adreno::Buffer random_buffer(adreno::Device& device, std::mt19937& rng, std::size_t count, std::uint32_t mask) {
  adreno::Buffer buffer = device.allocate({.size = count * 4});
  for (auto& v : buffer.cpu_view().as<std::uint32_t>()) v = rng() & mask;
  return buffer;
}

// 3. Records out = 3a + b followed by reversed = reverse(out) once, then replays it on fresh
// inputs each time: only the two input addresses are patched.
bool run_graph(adreno::Device& device, adreno::Queue& queue, std::mt19937& rng) {
  const std::size_t count = std::size_t{kGroups} * 64;
  adreno::Program mul_add = adreno::Program::from_ir3_assembly(device, kernels::mul_add);
  adreno::Program reverse = adreno::Program::from_ir3_assembly(device, kernels::reverse);
  adreno::Buffer out = device.allocate({.size = count * 4}), reversed = device.allocate({.size = count * 4});
  adreno::Buffer a = random_buffer(device, rng, count, 0xffffff), b = random_buffer(device, rng, count, ~0u);
  adreno::Arguments mul_add_args(mul_add), reverse_args(reverse);
  mul_add_args.set_buffer(0, out).set_buffer(1, a).set_buffer(2, b);
  reverse_args.set_buffer(0, reversed).set_buffer(1, out);
  using adreno::Access;
  adreno::Graph graph(device);
  const adreno::GraphDispatch first = graph.dispatch(mul_add, mul_add_args, {.groups = {kGroups, 1, 1}, .local_size = {64, 1, 1}, .wave_size = {}},
                                                     {Access::write, Access::read, Access::read});
  graph.dispatch(reverse, reverse_args, {.groups = {kGroups / 2, 1, 1}, .local_size = {128, 1, 1}, .wave_size = {}},
                 {Access::write, Access::read});
  graph.build();
  bool ok = true;
  for (int replay = 0; replay < 3; ++replay) {
    a = random_buffer(device, rng, count, 0xffffff);
    b = random_buffer(device, rng, count, ~0u);
    graph.set_buffer(first, 1, a);
    graph.set_buffer(first, 2, b);
    graph.replay(queue);
    queue.finish();
    auto av = a.cpu_view().as<std::uint32_t>(), bv = b.cpu_view().as<std::uint32_t>();
    auto rv = reversed.cpu_view().as<std::uint32_t>();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t j = (i / 128) * 128 + 127 - i % 128;
      wrong += rv[i] != av[j] * 3 + bv[j];
    }
    std::printf("  graph replay %d on new inputs (%zu levels, %zu barrier, 2 addresses patched): %zu/%zu correct\n", replay + 1,
                graph.levels(), graph.barriers(), count - wrong, count);
    ok = ok && wrong == 0;
  }
  return ok;
}

bool run(adreno::Device& device) {
  const adreno::DeviceInfo& info = device.info();
  std::printf("%s: %s (chip id 0x%08x) through %s%s\n", info.node.c_str(), info.name.c_str(), info.chip_id,
              info.backend == "kgsl" ? "KGSL" : "MSM", info.is_virtual ? ", virtual" : "");
  std::mt19937 rng(2026);  // random inputs, the same on every run
  adreno::Queue queue(device);
  adreno::Signal done(device);
  adreno::Buffer clock = device.allocate({.size = 16});
  bool ok = true;

  // 1. out = 3a + b over kGroups work groups of 64.
  const std::size_t count = std::size_t{kGroups} * 64;
  adreno::Program mul_add = adreno::Program::from_ir3_assembly(device, kernels::mul_add);
  adreno::Buffer a = random_buffer(device, rng, count, 0xffffff), b = random_buffer(device, rng, count, ~0u);
  adreno::Buffer out = device.allocate({.size = count * 4});
  adreno::Arguments mul_add_args(mul_add);
  mul_add_args.set_buffer(0, out).set_buffer(1, a).set_buffer(2, b);
  queue.write_timestamp(clock.view(0, 8));
  queue.dispatch(mul_add, mul_add_args, {.groups = {kGroups, 1, 1}, .local_size = {64, 1, 1}, .wave_size = {}});

  // 2. reverse each group of 128 through local memory, once per wave size.
  adreno::Program reverse = adreno::Program::from_ir3_assembly(device, kernels::reverse);
  adreno::Buffer reversed64 = device.allocate({.size = count * 4}), reversed128 = device.allocate({.size = count * 4});
  adreno::Arguments reverse64_args(reverse), reverse128_args(reverse);
  reverse64_args.set_buffer(0, reversed64).set_buffer(1, b);
  reverse128_args.set_buffer(0, reversed128).set_buffer(1, b);
  const std::uint32_t reverse_groups = static_cast<std::uint32_t>(count / 128);
  queue.dispatch(reverse, reverse64_args,
                 {.groups = {reverse_groups, 1, 1}, .local_size = {128, 1, 1}, .wave_size = adreno::WaveSize::thread64});
  queue.dispatch(reverse, reverse128_args,
                 {.groups = {reverse_groups, 1, 1}, .local_size = {128, 1, 1}, .wave_size = adreno::WaveSize::thread128});
  queue.write_timestamp(clock.view(8, 8));
  queue.signal(done, 1);
  const auto start = std::chrono::steady_clock::now();
  queue.submit();
  if (!done.wait(1, std::chrono::seconds(60))) {
    std::printf("  the work did not finish within 60 s\n");
    return false;
  }
  const auto host_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();

  auto av = a.cpu_view().as<std::uint32_t>(), bv = b.cpu_view().as<std::uint32_t>();
  auto ov = out.cpu_view().as<std::uint32_t>();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) wrong += ov[i] != av[i] * 3 + bv[i];
  std::printf("  3a+b over %u groups of 64: %zu/%zu correct, e.g. 3*%u + %u = %u\n", kGroups, count - wrong, count, av[1],
              bv[1], ov[1]);
  ok = ok && wrong == 0;
  for (auto [name, buffer] : {std::pair{"64", &reversed64}, std::pair{"128", &reversed128}}) {
    auto rv = buffer->cpu_view().as<std::uint32_t>();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i) bad += rv[i] != bv[(i / 128) * 128 + 127 - i % 128];
    std::printf("  reverse through local memory, %s-wide waves: %zu/%zu correct\n", name, count - bad, count);
    ok = ok && bad == 0;
  }
  auto ticks = clock.cpu_view().as<std::uint64_t>();
  std::printf("  GPU clock: %.1f us for the three dispatches; host saw the signal after %lld us\n",
              static_cast<double>(ticks[1] - ticks[0]) / 19.2, static_cast<long long>(host_us));
  ok = run_graph(device, queue, rng) && ok;
  // 4. the tiled SGEMM, written without delay slots and legalized by the assembler.
  return gemm::run(device, rng) && ok;
}

}  // namespace

int main() {
  std::vector<std::string> specs;
  if (const char* chosen = std::getenv("ADRENO_DEVICE"); chosen != nullptr && *chosen != '\0') {
    specs.emplace_back(chosen);
  } else {
    std::printf("ADRENO_DEVICE is not set: using the virtual Adreno (virtual-kgsl, then virtual-msm).\n");
    specs = {"virtual-kgsl", "virtual-msm"};
  }
  bool ok = true;
  for (const std::string& spec : specs) {
    try {
      adreno::Device device = adreno::Device::open(spec);
      ok = run(device) && ok;
    } catch (const adreno::Error& error) {
      std::printf("%s: %s\n", spec.c_str(), error.what());
      ok = false;
    }
  }
  std::printf(ok ? "demo: OK\n" : "demo: FAILED\n");
  return ok ? 0 : 1;
}
