// The program state a command stream carries from one dispatch to the next (CarriedProgramState
// in src/core/dispatch_encoder.h): a second dispatch of the same program in one submission or
// one graph writes only its grid, data and launch — and still computes its own result with its
// own arguments and grid; another program, a new submission, or a queue after a graph replay
// writes the whole state again; and the virtual GPU refuses a submission that leaves its
// program state to an earlier one. Results are checked in full against values computed here.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "core/dispatch_encoder.h"
#include "core/queue_impl.h"
#include "pm4/a6xx_registers.h"
#include "program_fixtures.h"
#include "recorded_stream.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

using namespace adreno;
namespace r = adreno::pm4::a6xx;

namespace {

// The example kernels (examples/kernels/*.s): out[i] = 3·a[i] + b[i] and out[i] = a[i] + b[i],
// i = work-group id · 64 + local id.
std::string kernel_source(const std::string& name) {
  std::ifstream in(std::filesystem::path(ADRENO_SOURCE_DIR) / "examples" / "kernels" / (name + ".s"));
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

constexpr std::size_t kWords = 1024;  // vector_add's @buf size, in words (mul_add's are larger)

struct Operands {
  std::vector<std::uint32_t> a, b;
  Buffer out, in_a, in_b;
};

Operands operands(Device& device, std::mt19937& rng) {
  Operands o;
  for (auto* words : {&o.a, &o.b}) {
    words->resize(kWords);
    for (auto& w : *words) w = rng() & 0xffffff;  // mul_add multiplies 24 bits
  }
  o.out = device.allocate({.size = 16384 * 4});
  o.in_a = device.allocate({.size = 16384 * 4});
  o.in_b = device.allocate({.size = 16384 * 4});
  std::memset(o.out.cpu_view().data(), 0, 16384 * 4);
  std::memcpy(o.in_a.cpu_view().data(), o.a.data(), kWords * 4);
  std::memcpy(o.in_b.cpu_view().data(), o.b.data(), kWords * 4);
  return o;
}

Arguments arguments_for(const Program& program, const Operands& o) {
  Arguments arguments(program);
  arguments.set_buffer(0, o.out).set_buffer(1, o.in_a).set_buffer(2, o.in_b);
  return arguments;
}

Launch groups_of_64(std::uint32_t groups) { return Launch{.groups = {groups, 1, 1}, .local_size = {64, 1, 1}, .wave_size = std::nullopt}; }

// `groups`·64 results of a·multiplier + b, and zeros beyond them (the grid went no further).
void check_result(const Operands& o, std::uint32_t groups, std::uint32_t multiplier) {
  const auto result = o.out.cpu_view().as<std::uint32_t>();
  for (std::size_t i = 0; i < kWords; ++i) {
    INFO("element " << i << " of " << groups << " groups");
    REQUIRE(result[i] == (i < std::size_t{groups} * 64 ? o.a[i] * multiplier + o.b[i] : 0u));
  }
}

std::uint64_t dwords_of(Queue& queue) { return queue.impl().stream().dwords_written(); }

long writes_of(const RecordedStream& recorded, const pm4::Register& reg) {
  return std::count(recorded.write_order.begin(), recorded.write_order.end(), reg.offset);
}

}  // namespace

TEST_CASE("a second dispatch of the same program in one submission writes at most 32 dwords and computes its own result",
          "[virtual-gpu][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program mul_add = Program::from_ir3_assembly(*device, kernel_source("mul_add"));
    std::mt19937 rng(41);
    const Operands first = operands(*device, rng), second = operands(*device, rng), third = operands(*device, rng);
    Queue queue(*device);
    queue.dispatch(mul_add, arguments_for(mul_add, first), groups_of_64(3));
    const std::uint64_t after_first = dwords_of(queue);
    queue.dispatch(mul_add, arguments_for(mul_add, second), groups_of_64(16));
    const std::uint64_t after_second = dwords_of(queue);
    queue.barrier();  // events only: the state carries across it
    const std::uint64_t after_barrier = dwords_of(queue);
    queue.dispatch(mul_add, arguments_for(mul_add, third), groups_of_64(7));
    CHECK(after_second - after_first <= 32);
    CHECK(dwords_of(queue) - after_barrier <= 32);
    {
      const RecordedStream recorded = record_of(queue);
      INFO(recorded.text);
      // The program state once: its code address, size and compute configuration.
      CHECK(writes_of(recorded, r::SP_CS_BASE) == 1);
      CHECK(writes_of(recorded, r::SP_CS_INSTR_SIZE) == 1);
      CHECK(writes_of(recorded, r::SP_CS_CNTL_0) == 1);
      CHECK(writes_of(recorded, *r::compute_registers(queue.impl().generation()).update_cntl) == 1);
      // The grid and the launch three times.
      CHECK(writes_of(recorded, *r::compute_registers(queue.impl().generation()).ndrange[1]) == 3);
      CHECK(recorded.all(pm4::Opcode::CP_EXEC_CS).size() == 3);
    }
    queue.finish(std::chrono::seconds(60));
    check_result(first, 3, 3);
    check_result(second, 16, 3);
    check_result(third, 7, 3);
  }
  device.close_and_check_ledger();
}

TEST_CASE("switching programs in one submission writes the program state again", "[virtual-gpu][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program mul_add = Program::from_ir3_assembly(*device, kernel_source("mul_add"));
    Program vector_add = Program::from_ir3_assembly(*device, kernel_source("vector_add"));
    std::mt19937 rng(42);
    const Operands first = operands(*device, rng), second = operands(*device, rng), third = operands(*device, rng);
    Queue queue(*device);
    queue.dispatch(mul_add, arguments_for(mul_add, first), groups_of_64(2));
    std::uint64_t before = dwords_of(queue);
    queue.dispatch(vector_add, arguments_for(vector_add, second), groups_of_64(5));
    CHECK(dwords_of(queue) - before > 32);
    before = dwords_of(queue);
    queue.dispatch(mul_add, arguments_for(mul_add, third), groups_of_64(9));
    CHECK(dwords_of(queue) - before > 32);
    {
      const RecordedStream recorded = record_of(queue);
      INFO(recorded.text);
      CHECK(writes_of(recorded, r::SP_CS_BASE) == 3);
      CHECK(writes_of(recorded, r::SP_CS_INSTR_SIZE) == 3);
    }
    queue.finish(std::chrono::seconds(60));
    check_result(first, 2, 3);
    check_result(second, 5, 1);
    check_result(third, 9, 3);
  }
  device.close_and_check_ledger();
}

TEST_CASE("the first dispatch of each submission, and the first after a graph replay, writes the whole program state",
          "[virtual-gpu][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program mul_add = Program::from_ir3_assembly(*device, kernel_source("mul_add"));
    Program vector_add = Program::from_ir3_assembly(*device, kernel_source("vector_add"));
    std::mt19937 rng(43);
    const Operands first = operands(*device, rng), second = operands(*device, rng), third = operands(*device, rng);
    const Operands fourth = operands(*device, rng);
    Queue queue(*device);
    queue.dispatch(mul_add, arguments_for(mul_add, first), groups_of_64(4));
    queue.submit();
    queue.dispatch(mul_add, arguments_for(mul_add, second), groups_of_64(6));
    {
      const RecordedStream recorded = record_of(queue);
      INFO(recorded.text);
      CHECK(writes_of(recorded, r::SP_CS_BASE) == 1);
      CHECK(writes_of(recorded, r::SP_CS_CNTL_0) == 1);
    }
    queue.submit();
    // A graph of the other program, then the first program again in the same submission: the
    // graph's IB set its own state, so the queue's dispatch writes its own again.
    Graph graph(*device);
    graph.dispatch(vector_add, arguments_for(vector_add, third), groups_of_64(3), {Access::write, Access::read, Access::read});
    graph.build();
    queue.dispatch(mul_add, arguments_for(mul_add, fourth), groups_of_64(1));
    graph.replay(queue);
    const std::uint64_t before = dwords_of(queue);
    queue.dispatch(mul_add, arguments_for(mul_add, fourth), groups_of_64(5));
    CHECK(dwords_of(queue) - before > 32);
    {
      const RecordedStream recorded = record_of(queue);
      INFO(recorded.text);
      CHECK(writes_of(recorded, r::SP_CS_BASE) == 2);  // the graph's are in its own IB
    }
    queue.finish(std::chrono::seconds(60));
    check_result(first, 4, 3);
    check_result(second, 6, 3);
    check_result(third, 3, 1);
    check_result(fourth, 5, 3);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a graph's dispatches of one program carry its state, and replays with new buffers and grids compute theirs",
          "[virtual-gpu][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program mul_add = Program::from_ir3_assembly(*device, kernel_source("mul_add"));
    std::mt19937 rng(44);
    constexpr std::size_t kDispatches = 4;
    std::vector<Operands> recorded_with, replayed_with;
    for (std::size_t i = 0; i < kDispatches; ++i) recorded_with.push_back(operands(*device, rng));
    for (std::size_t i = 0; i < kDispatches; ++i) replayed_with.push_back(operands(*device, rng));
    const std::vector<Access> access{Access::write, Access::read, Access::read};
    Graph one(*device);
    one.dispatch(mul_add, arguments_for(mul_add, recorded_with[0]), groups_of_64(1), access);
    one.build();
    Graph graph(*device);
    std::vector<GraphDispatch> ids;
    for (std::size_t i = 0; i < kDispatches; ++i)
      ids.push_back(graph.dispatch(mul_add, arguments_for(mul_add, recorded_with[i]),
                                   groups_of_64(static_cast<std::uint32_t>(i + 1)), access));
    graph.build();
    CHECK(graph.barriers() == 0);
    // Each dispatch after the first: at most 32 dwords.
    CHECK(graph.command_dwords() - one.command_dwords() <= 32 * (kDispatches - 1));
    Queue queue(*device);
    graph.replay(queue);
    queue.finish(std::chrono::seconds(60));
    for (std::size_t i = 0; i < kDispatches; ++i) check_result(recorded_with[i], static_cast<std::uint32_t>(i + 1), 3);
    // New buffers and grids: the carried dispatches' grids are rewritten in place.
    for (std::size_t i = 0; i < kDispatches; ++i) {
      graph.set_buffer(ids[i], 0, replayed_with[i].out);
      graph.set_buffer(ids[i], 1, replayed_with[i].in_a);
      graph.set_buffer(ids[i], 2, replayed_with[i].in_b);
      graph.set_launch(ids[i], groups_of_64(static_cast<std::uint32_t>(16 - i)));
    }
    graph.replay(queue);
    queue.finish(std::chrono::seconds(60));
    for (std::size_t i = 0; i < kDispatches; ++i) check_result(replayed_with[i], static_cast<std::uint32_t>(16 - i), 3);
    // The wave size is part of the carried state.
    Launch wide = groups_of_64(1);
    wide.wave_size = WaveSize::thread128;
    try {
      graph.set_launch(ids[1], wide);
      FAIL("the wave size of a dispatch that carries its state changed");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::unsupported);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("the virtual GPU refuses a submission that leaves its program state to an earlier submission",
          "[virtual-gpu][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program mul_add = Program::from_ir3_assembly(*device, kernel_source("mul_add"));
    std::mt19937 rng(45);
    const Operands first = operands(*device, rng), second = operands(*device, rng);
    Queue queue(*device);
    queue.dispatch(mul_add, arguments_for(mul_add, first), groups_of_64(2));
    queue.finish(std::chrono::seconds(60));
    check_result(first, 2, 3);
    // The second dispatch as a stream that wrongly carried the state across the submit would
    // record it: data, grid and launch only.
    const Arguments arguments = arguments_for(mul_add, second);
    const Launch launch = groups_of_64(2);
    Queue::Impl& impl = queue.impl();
    const DispatchDataLayout& layout = mul_add.impl()->data_layout();
    const UploadArea::Space space = impl.uploads().allocate(impl, layout.bytes);
    write_dispatch_data(space.cpu, *mul_add.impl(), arguments.impl(), launch);
    impl.reference(mul_add.impl()->code(), false);
    for (const Buffer* buffer : {&second.out, &second.in_a, &second.in_b}) impl.reference(buffer->impl()->block_shared(), true);
    CarriedProgramState stale;
    stale.set(mul_add.impl(), false);
    REQUIRE(emit_dispatch(impl.stream(), mul_add.impl(), layout, space.gpu, launch, stale).state_carried);
    try {
      queue.finish(std::chrono::seconds(60));
      FAIL("the submission ran");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
    }
    check_result(second, 0, 3);  // nothing written
  }
  device.close_and_check_ledger();
}

namespace {

// One host chunk for emit_dispatch to write a fresh encoding into.
class HostChunk final : public pm4::ChunkSource {
 public:
  pm4::Chunk acquire(std::uint32_t min_dwords) override {
    REQUIRE(min_dwords <= dwords_.size());
    return pm4::Chunk{CpuView(dwords_.data(), dwords_.size() * 4), GpuAddress(0x10000), static_cast<std::uint32_t>(dwords_.size()), 0};
  }

 private:
  std::vector<std::uint32_t> dwords_ = std::vector<std::uint32_t>(4096);
};

}  // namespace

// Kills: a dispatch that repeats the latest launch of the carried program
// (CarriedProgramState::emit_repeat copies the packets encoded once) with an earlier dispatch's
// data address left in any place it goes (constants, textures, samplers and border colours,
// storage images, UBOs), or with the packets of the launch before. Each dispatch's data lies
// where the upload area puts it (a fresh queue's first block, one 64-byte aligned layout after
// another), and its packets must be the ones emit_dispatch encodes for it afresh.
TEST_CASE("dispatches that repeat the latest launch write what a fresh encoding writes at their own data",
          "[virtual-kernel][dispatch]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Buffer data = device->allocate({.size = 256 * 1024});
    // Textures, a storage image and a sampler (CP_RUN_OPENCL); and two UBOs (CP_EXEC_CS).
    Program images = Program::from_qualcomm_binary(*device, image_kernel_binary().build());
    Arguments image_arguments(images);
    const ImageDesc image{data.view(0, 64 * 64 * 16), ImageFormat::rgba32_float, 64, 64, 64 * 16};
    image_arguments.set_sampler(0, {}).set_buffer(1, data.view(0, 4096)).set_texture(2, image).set_storage_image(3, image);
    image_arguments.set_scalar(4, std::uint32_t{77});
    Program ubos = Program::from_ir3_assembly(*device, "@buf 4\n@ubo 4\n@ubo 64\nend\n");
    Arguments ubo_arguments(ubos);
    ubo_arguments.set_buffer(0, data.view(0, 64)).set_buffer(1, data.view(4096, 64)).set_buffer(2, data.view(8192, 1024));
    for (const auto& [program, arguments] : {std::pair{&images, &image_arguments}, std::pair{&ubos, &ubo_arguments}}) {
      INFO("program " << program->impl()->info().name);
      const auto& fixed = program->impl()->info().fixed_local_size;  // the assembled one is compiled for 1×1×1
      const Launch first{{5, 3, 2}, {fixed[0] != 0 ? fixed[0] : 16, fixed[1] != 0 ? fixed[1] : 4, fixed[2] != 0 ? fixed[2] : 2}, std::nullopt};
      Launch second = first;
      second.groups[0] = 7;
      Queue queue(*device);
      queue.barrier();  // events only: the stream has its chunk before the first dispatch
      const Launch* launches[] = {&first, &first, &first, &second, &second};
      std::vector<std::pair<GpuAddress, std::size_t>> written;  // each dispatch's packets in the stream
      for (const Launch* launch : launches) {
        const GpuAddress before = queue.impl().stream().gpu_address_here();
        queue.dispatch(*program, *arguments, *launch);
        written.emplace_back(before, (queue.impl().stream().gpu_address_here() - before) / 4);
      }
      const DispatchDataLayout& layout = program->impl()->data_layout();
      const GpuAddress uploads = queue.impl().uploads().block(0).allocation().gpu;
      const BlockReader memory = queue_memory(queue);
      for (std::size_t k = 0; k < std::size(launches); ++k) {
        INFO("dispatch " << k);
        const Launch& launch = *launches[k];
        HostChunk chunk;
        pm4::CommandStream fresh(chunk);
        CarriedProgramState carried;  // the first dispatch writes the program state, the others carry it
        if (k > 0) carried.set(program->impl(), runs_wave128(program->impl()->info(), launch));
        const GpuAddress at = uploads + k * ((layout.bytes + 63) / 64 * 64);
        const EmittedDispatch expected = emit_dispatch(fresh, program->impl(), layout, at, launch, carried);
        const std::vector<std::uint32_t> recorded = memory.dwords(written[k].first, written[k].second);
        CHECK(recorded == std::vector<std::uint32_t>(expected.packets.begin(), expected.packets.end()));
      }
      queue.finish(std::chrono::seconds(60));
    }
  }
  device.close_and_check_ledger();
}
