// The SGEMM showcase on the virtual shader processor (examples/kernels/sgemm.s, legalized): how
// many fiber instructions it spends per multiply-add, and how fast the virtual GPU runs it; at
// 512 the time of the 512x512 multiply that applications' CI runs should stay well under a second.
#include "virtual_gpu.h"

#include "kernels.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <ctime>
#include <random>

using namespace vgpu_test;

namespace {

// C = A·B with M = N = K = state.range(0), in 128-wide waves.
void sgemm(benchmark::State& state) {
  const auto size = static_cast<std::uint32_t>(state.range(0));
  const std::string source = "@const(c2.x) " + std::to_string(size) + ", " + std::to_string(size) + ", " +
                             std::to_string(size / 16) + ", 0\n" + kernels::sgemm;
  const ir3::Program program = ir3::assemble(source, ir3::RegisterFile::split, ir3::Scheduling::legalize);
  VirtualGpu gpu;
  const std::uint64_t a = VirtualGpu::kData, b = a + std::uint64_t{size} * size * 4, c = b + std::uint64_t{size} * size * 4;
  std::mt19937 rng(1);
  std::vector<float> values(std::size_t{size} * size);
  for (float& v : values) v = static_cast<float>(rng() % 1000) / 1000.0f;
  gpu.put(a, values);
  gpu.put(b, values);
  Launch launch = launch_for(program);
  launch.groups = {size / 8, size / 16, 1};
  launch.thread_size = pm4::ThreadSize::THREAD128;
  launch.shared_size_field = 1;  // 2 KiB: B's 512 bytes and A's 1 KiB
  launch.constants = {split(gpu.va(c))[0], split(gpu.va(c))[1], split(gpu.va(a))[0], split(gpu.va(a))[1],
                      split(gpu.va(b))[0], split(gpu.va(b))[1], 0, 0, size, size, size / 16, 0};
  const virt::IbSpan ib = gpu.record(program.words, launch);
  std::atomic<bool> stop{false};
  virt::CommandProcessor cp(*gpu.memory(), std::chrono::seconds(60), stop);
  timespec cpu_start{}, cpu_end{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu_start);
  for (auto _ : state) cp.execute(std::span(&ib, 1));
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu_end);
  const double cpu_seconds = static_cast<double>(cpu_end.tv_sec - cpu_start.tv_sec) + static_cast<double>(cpu_end.tv_nsec - cpu_start.tv_nsec) * 1e-9;
  // CPU seconds of all threads per multiply: the wall time on an idle 2-core host is about half.
  state.counters["cpu_seconds_per_multiply"] = cpu_seconds / static_cast<double>(state.iterations());
  const double mads = static_cast<double>(state.iterations()) * size * size * size;
  state.counters["fiber_instructions_per_mad"] = static_cast<double>(cp.fiber_instructions()) / mads;
  state.counters["mads/s"] = benchmark::Counter(mads, benchmark::Counter::kIsRate);
}
BENCHMARK(sgemm)->Arg(64)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
