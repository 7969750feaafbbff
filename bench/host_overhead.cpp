// Host overhead of getting work to the GPU, on the virtual KGSL device (the library's own cost:
// the virtual kernel's ioctls are in-process, and the kernels' execution is kept out of the
// timings): encoding one dispatch into a queue; recording and submitting N; replaying recorded
// graphs of 100 and 1000 dispatches with every buffer argument changed (the case where
// tinygrad's QCOM graph costs ~2.9 ms for 100 dispatches); and the barriers a model-like DAG
// needs. Each iteration times only its measured region (manual time, steady clock); executing
// the work in between is not timed. Counters: time per dispatch and per patched value (seconds,
// shown with SI prefixes), dwords_per_dispatch, levels, barriers.
#include <adreno/adreno.hpp>

#include "core/ir3_assembly.h"
#include "ir3/assembler.h"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace adreno;

// One invocation: c[0] = a[0] + b[0]; arguments c, a, b (3 buffer pointers, like tinygrad's
// elementwise kernels). Its execution on the virtual GPU is kept short and out of the timings.
Program load_add(Device& device) {
  const ir3::Program assembled = ir3::assemble(R"(
    mov.u32u32 r0.x, c0.z
    mov.u32u32 r0.y, c0.w
    mov.u32u32 r0.z, c1.x
    mov.u32u32 r0.w, c1.y
    (rpt3)nop
    ldg.u32 r1.x, g[r0.x], 1
    (rpt1)nop
    ldg.u32 r1.y, g[r0.z], 1
    mov.u32u32 r2.x, c0.x
    mov.u32u32 r2.y, c0.y
    (sy)(nop3) add.u r1.x, r1.x, r1.y
    (rpt2)nop
    stg.u32 g[r2.x], r1.x, 1
    end
  )");
  std::vector<std::uint32_t> code = adreno::ir3_code_dwords(assembled);
  code.resize(std::size_t{assembled.info.instrlen} * 32, 0);  // whole 16-instruction groups
  Ir3Metadata m;
  m.name = "add";
  m.instrlen = assembled.info.instrlen;
  m.constlen_vec4 = 4;
  m.max_reg = assembled.info.max_reg;
  m.max_half_reg = assembled.info.max_half_reg;
  m.buffers = {{"c", 0}, {"a", 2}, {"b", 4}};
  return Program::from_ir3(device, code, m);
}

constexpr Launch kLaunch{{1, 1, 1}, {1, 1, 1}, std::nullopt};
constexpr const char* kBackend = "virtual-kgsl";

std::vector<Buffer> make_buffers(Device& device, std::size_t count) {
  std::vector<Buffer> buffers;
  buffers.reserve(count);
  for (std::size_t i = 0; i < count; ++i) buffers.push_back(device.allocate({.size = 64}));
  return buffers;
}

// Arguments of `add` bound to buffers[first], [first + 1], [first + 2] (c, a, b).
Arguments add_arguments(const Program& add, const std::vector<Buffer>& buffers, std::size_t first = 0) {
  Arguments arguments(add);
  arguments.set_buffer(0, buffers[first]).set_buffer(1, buffers[first + 1]).set_buffer(2, buffers[first + 2]);
  return arguments;
}

// Per-unit time counter: seconds of the timed region divided by `units` per iteration.
benchmark::Counter per_unit(double units) {
  return benchmark::Counter(units, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Runs `measured` under the clock and reports its time as the iteration's.
template <typename F>
void timed(benchmark::State& state, F&& measured) {
  const auto start = std::chrono::steady_clock::now();
  measured();
  state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void encode_dispatch(benchmark::State& state) {
  constexpr int kBatch = 1000;
  Device device = Device::open(kBackend);
  const Program add = load_add(device);
  std::vector<Buffer> buffers = make_buffers(device, 3);
  const Arguments arguments = add_arguments(add, buffers);
  Queue queue(device);
  for (auto _ : state) {
    queue.barrier();  // opens the command chunk outside the timing
    timed(state, [&] {
      for (int i = 0; i < kBatch; ++i) queue.dispatch(add, arguments, kLaunch);
    });
    queue.finish();
  }
  state.counters["per_dispatch"] = per_unit(kBatch);
}
BENCHMARK(encode_dispatch)->UseManualTime()->Iterations(200);

// As encode_dispatch, with each dispatch's Arguments another object than the last one's, as
// front ends that build Arguments per call (tinygrad's QCOM runtime) dispatch: they take turns
// among 8 Arguments, each bound to three buffers of its own (24 buffers in all).
void encode_dispatch_new_arguments(benchmark::State& state) {
  constexpr int kBatch = 1000;
  constexpr std::size_t kArguments = 8;
  Device device = Device::open(kBackend);
  const Program add = load_add(device);
  std::vector<Buffer> buffers = make_buffers(device, 3 * kArguments);
  std::vector<Arguments> arguments;
  for (std::size_t i = 0; i < kArguments; ++i) arguments.push_back(add_arguments(add, buffers, 3 * i));
  Queue queue(device);
  for (auto _ : state) {
    queue.barrier();  // opens the command chunk outside the timing
    timed(state, [&] {
      for (int i = 0; i < kBatch; ++i) queue.dispatch(add, arguments[static_cast<std::size_t>(i) % kArguments], kLaunch);
    });
    queue.finish();
  }
  state.counters["per_dispatch"] = per_unit(kBatch);
}
BENCHMARK(encode_dispatch_new_arguments)->UseManualTime()->Iterations(200);

// Times recording `count` dispatches of the add kernel and submitting them, per iteration.
void record_and_submit(benchmark::State& state, Device& device, int count) {
  const Program add = load_add(device);
  std::vector<Buffer> buffers = make_buffers(device, 3);
  const Arguments arguments = add_arguments(add, buffers);
  Queue queue(device);
  for (auto _ : state) {
    timed(state, [&] {
      for (int i = 0; i < count; ++i) queue.dispatch(add, arguments, kLaunch);
      queue.submit();
    });
    queue.finish();
  }
  state.counters["per_dispatch"] = per_unit(count);
}

void submit_dispatches(benchmark::State& state) {
  Device device = Device::open(kBackend);
  record_and_submit(state, device, static_cast<int>(state.range(0)));
}
BENCHMARK(submit_dispatches)->Arg(1)->Arg(100)->Arg(1000)->UseManualTime()->Iterations(100);

// What the timeline costs: 100 dispatches recorded and submitted with ADRENO_TRACE unset (the
// queue tests one pointer and records nothing more) and set (two always-on-counter reads around
// each dispatch, its spans written to a file when the device closes).
void traced_submit(benchmark::State& state) {
  constexpr int kCount = 100;
  const bool traced = state.range(0) != 0;
  const std::string trace_file = "/tmp/adreno-bench-trace-" + std::to_string(::getpid()) + ".json";
  if (traced) ::setenv("ADRENO_TRACE", trace_file.c_str(), 1);
  {
    Device device = Device::open(kBackend);
    if (traced) ::unsetenv("ADRENO_TRACE");  // read when the device opened
    record_and_submit(state, device, kCount);
  }
  if (traced) std::remove(trace_file.c_str());
}
BENCHMARK(traced_submit)->ArgName("trace")->Arg(0)->Arg(1)->UseManualTime()->Iterations(100);

// A graph of `count` independent dispatches, each with its own three buffers, replayed with all
// 3·count pointers moved to the next of `sets` buffer sets: with 2, an application alternating
// between two sets of buffers (double-buffered inputs and outputs); with 3, every replay binds
// buffers neither of the two before it bound.
void replay_all_changed(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  const auto set_count = static_cast<std::size_t>(state.range(1));
  Device device = Device::open(kBackend);
  const Program add = load_add(device);
  std::vector<std::vector<Buffer>> sets;
  for (std::size_t i = 0; i < set_count; ++i) sets.push_back(make_buffers(device, 3 * count));
  Graph graph(device);
  std::vector<GraphDispatch> ids;
  for (std::size_t i = 0; i < count; ++i) {
    ids.push_back(graph.dispatch(add, add_arguments(add, sets[0], 3 * i), kLaunch, {Access::write, Access::read, Access::read}));
  }
  graph.build();
  Queue queue(device);
  std::size_t set = 0;
  for (auto _ : state) {
    set = (set + 1) % set_count;
    const std::vector<Buffer>& buffers = sets[set];
    queue.barrier();  // opens the command chunk outside the timing
    timed(state, [&] {
      for (std::size_t i = 0; i < count; ++i)
        for (std::size_t argument = 0; argument < 3; ++argument) graph.set_buffer(ids[i], argument, buffers[3 * i + argument]);
      graph.replay(queue);
    });
    queue.finish();
  }
  state.counters["per_dispatch"] = per_unit(static_cast<double>(count));
  state.counters["per_patched_value"] = per_unit(static_cast<double>(3 * count));
  state.counters["dwords_per_dispatch"] = static_cast<double>(graph.command_dwords()) / static_cast<double>(count);
  state.counters["barriers"] = static_cast<double>(graph.barriers());
}
BENCHMARK(replay_all_changed)->ArgNames({"dispatches", "buffer_sets"})->ArgsProduct({{100, 1000}, {2, 3}})->UseManualTime()->Iterations(100);

// A model-like DAG: two independent sub-networks (say, two heads), each `kLayers` layers of
// `kWidth` dispatches that read two outputs of the layer before. A front end records one
// sub-network after the other; ordering by level interleaves them so both share each barrier.
void model_dag(benchmark::State& state) {
  constexpr std::size_t kNetworks = 2, kLayers = 25, kWidth = 2;
  const bool order_by_level = state.range(0) != 0;
  Device device = Device::open(kBackend);
  const Program add = load_add(device);
  std::vector<Buffer> outputs = make_buffers(device, kNetworks * (kLayers + 1) * kWidth);
  auto out = [&](std::size_t network, std::size_t layer, std::size_t column) -> const Buffer& {
    return outputs[(network * (kLayers + 1) + layer) * kWidth + column];
  };
  Graph graph(device);
  for (std::size_t network = 0; network < kNetworks; ++network)
    for (std::size_t layer = 0; layer < kLayers; ++layer)
      for (std::size_t column = 0; column < kWidth; ++column) {
        Arguments arguments(add);
        arguments.set_buffer(0, out(network, layer + 1, column))
            .set_buffer(1, out(network, layer, column))
            .set_buffer(2, out(network, layer, (column + 1) % kWidth));
        graph.dispatch(add, arguments, kLaunch, {Access::write, Access::read, Access::read});
      }
  graph.build({.order_by_level = order_by_level});
  Queue queue(device);
  for (auto _ : state) {
    queue.barrier();  // opens the command chunk outside the timing
    timed(state, [&] { graph.replay(queue); });
    queue.finish();
  }
  state.counters["dispatches"] = static_cast<double>(graph.dispatch_count());
  state.counters["levels"] = static_cast<double>(graph.levels());
  state.counters["barriers"] = static_cast<double>(graph.barriers());
  state.counters["dwords_per_dispatch"] = static_cast<double>(graph.command_dwords()) / static_cast<double>(graph.dispatch_count());
}
BENCHMARK(model_dag)->Arg(0)->Arg(1)->UseManualTime()->Iterations(50);

}  // namespace
