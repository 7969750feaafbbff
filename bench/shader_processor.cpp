// Throughput of the virtual shader processor: fiber-instructions per second (each instruction
// counted once per fiber that executed it), for an ALU-bound loop and for a memory-bound
// element-wise kernel, over grids large enough to occupy every host core; per_cpu_second divides
// by the CPU time of all threads instead (the goal per host core on a loaded machine).
#include "virtual_gpu.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <ctime>

using namespace vgpu_test;

namespace {

// CPU time of every thread of the process: the interpreter's throughput per host core, which the
// machine's other load does not change as much as the wall-clock rate.
double process_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}


void run(benchmark::State& state, const ir3::Program& program, Launch launch, VirtualGpu& gpu) {
  const virt::IbSpan ib = gpu.record(program.words, launch);
  std::atomic<bool> stop{false};
  virt::CommandProcessor cp(*gpu.memory(), std::chrono::seconds(60), stop);
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) cp.execute(std::span(&ib, 1));
  const auto executed = static_cast<double>(cp.fiber_instructions());
  state.counters["fiber_instructions/s"] = benchmark::Counter(executed, benchmark::Counter::kIsRate);
  state.counters["per_cpu_second"] = executed / (process_cpu_seconds() - cpu_start);
}

// 128 iterations of a mad/add/compare/branch loop per fiber, 64 groups of 128 fibers.
void alu_loop(benchmark::State& state) {
  const ir3::Program program = ir3::assemble(R"(
    mov.u32u32 r1.x, 0
    cov.u32f32 r1.y, r0.x
    (rpt2)nop
  loop:
    mad.f32 r1.y, r1.y, r1.y, r1.y
    (nop3) add.u r1.x, r1.x, 1
    (nop3) cmps.u.lt p0.x, r1.x, 128
    (rpt2)nop
    br p0.x, #loop
    (jp)end
  )");
  // The timing-hazard check's cost: the same loop with ADRENO_VIRTUAL_HAZARDS=off, on (the
  // static checker proves the loop free of hazards, so its waves run unchecked) and exhaustive
  // (every instruction checked as it runs); read when the command processor is made.
  constexpr const char* kModes[] = {"off", "on", "exhaustive"};
  ::setenv("ADRENO_VIRTUAL_HAZARDS", kModes[state.range(1)], 1);
  VirtualGpu gpu;
  Launch launch = launch_for(program);
  launch.local_size = {128, 1, 1};
  launch.groups = {64, 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.thread_size = state.range(0) == 128 ? pm4::ThreadSize::THREAD128 : pm4::ThreadSize::THREAD64;
  run(state, program, launch, gpu);
  ::unsetenv("ADRENO_VIRTUAL_HAZARDS");
}
BENCHMARK(alu_loop)
    ->ArgsProduct({{64, 128}, {0, 1, 2}})
    ->ArgNames({"wave", "hazard_check"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// c[i] = a[i] + b[i] over 1 Mi elements, four per fiber (the shape of the multigroup fixture).
void vector_add(benchmark::State& state) {
  const ir3::Program program = vector_add_vec4_program();
  constexpr std::uint32_t kElements = 1 << 20;
  VirtualGpu gpu;
  const std::uint64_t a = VirtualGpu::kData, b = a + kElements * 4, c = b + kElements * 4;
  run(state, program, vector_add_vec4_launch(program, gpu, c, a, b, kElements / 4 / 128), gpu);
}
BENCHMARK(vector_add)->Unit(benchmark::kMillisecond)->UseRealTime();

// The fixed cost of a dispatch, as applications with many small kernels pay it in CI: 1000
// dispatches of one 64-fiber work group per submission, each c[i] = a[i] + i for its fibers.
// per_dispatch: wall time per dispatch (seconds).
void tiny_dispatches(benchmark::State& state) {
  constexpr int kDispatches = 1000;
  constexpr std::uint32_t kFibers = 64;
  const ir3::Program program = ir3::assemble(R"(
    (nop3) shl.b r0.y, r0.x, 2
    add.u r1.x, c0.x, r0.y
    mov.u32u32 r1.y, c0.y
    add.u r1.z, c0.z, r0.y
    mov.u32u32 r1.w, c0.w
    (rpt5)nop
    ldg.u32 r2.x, g[r1.z], 1
    (sy)(nop3) add.u r2.x, r2.x, r0.x
    (rpt2)nop
    stg.u32 g[r1.x], r2.x, 1
    end
  )");
  VirtualGpu gpu;
  const std::uint64_t a = VirtualGpu::kData, c = a + kFibers * 4;
  std::vector<std::uint32_t> input(kFibers);
  for (std::uint32_t i = 0; i < kFibers; ++i) input[i] = 1000 * i;
  gpu.put(a, input);
  Launch launch = launch_for(program);
  launch.local_size = {kFibers, 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.constants = {split(gpu.va(c))[0], split(gpu.va(c))[1], split(gpu.va(a))[0], split(gpu.va(a))[1]};
  const virt::IbSpan ib = gpu.record(program.words, launch, [](pm4::CommandStream& cs) {
    for (int i = 1; i < kDispatches; ++i) pm4::exec_cs(cs, 1, 1, 1);
  });
  std::atomic<bool> stop{false};
  virt::CommandProcessor cp(*gpu.memory(), std::chrono::seconds(60), stop);
  for (auto _ : state) cp.execute(std::span(&ib, 1));
  for (std::uint32_t i = 0; i < kFibers; ++i) {
    if (gpu.get<std::uint32_t>(c, kFibers)[i] != 1001 * i) state.SkipWithError("the kernel computed a wrong c[i]");
  }
  state.counters["per_dispatch"] =
      benchmark::Counter(kDispatches, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(tiny_dispatches)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
