// [virtual-gpu] Kernels written in ir3 assembly, loaded with Program::from_ir3_assembly and run
// through Queue::dispatch on both virtual kernels: multi-group indexing, local memory with a
// barrier, and dependent dispatches ordered by Queue::barrier. Expected values come from a host
// loop over the same definition; inputs are seeded random.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "../core/virtual_device.h"
#include "core/ir3_assembly.h"
#include "ir3/assembler.h"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

using namespace adreno;

// The default a630 and each supported a7xx part on both virtual kernels: the a730, a740 and a750
// each run the a7xx stream with a per-chip block of their own (gpu_part.cpp).
#define EACH_VIRTUAL_BACKEND_AND_A7XX_PART()                                                                     \
  GENERATE(as<std::string>{}, "virtual-kgsl", "virtual-msm", "virtual-kgsl:a730", "virtual-msm:a730",          \
           "virtual-kgsl:a740", "virtual-msm:a740", "virtual-kgsl:a750", "virtual-msm:a750")

namespace {

// The example kernels (examples/kernels/*.s): the same text the demo runs.
std::string kernel_source(const std::string& name) {
  std::ifstream in(std::filesystem::path(ADRENO_SOURCE_DIR) / "examples" / "kernels" / (name + ".s"));
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::uint32_t> random_words(std::mt19937& rng, std::size_t count, std::uint32_t mask = ~0u) {
  std::vector<std::uint32_t> words(count);
  for (auto& w : words) w = rng() & mask;
  return words;
}

Buffer upload(Device& device, const std::vector<std::uint32_t>& words) {
  Buffer buffer = device.allocate({.size = words.size() * 4});
  std::memcpy(buffer.cpu_view().data(), words.data(), words.size() * 4);
  return buffer;
}

}  // namespace

TEST_CASE("an assembly kernel indexes by work group and local id across random grid sizes", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_A7XX_PART());
  {
    Program program = Program::from_ir3_assembly(*device, kernel_source("mul_add"));
    std::mt19937 rng(11);
    for (std::uint32_t groups : {1u, 3u, 17u, 64u}) {
      INFO(groups << " groups");
      const std::size_t count = std::size_t{groups} * 64;
      const auto a = random_words(rng, count, 0xffffff), b = random_words(rng, count);
      Buffer out = device->allocate({.size = 16384 * 4}), in_a = upload(*device, a), in_b = upload(*device, b);
      std::memset(out.cpu_view().data(), 0, 16384 * 4);
      Arguments arguments(program);
      arguments.set_buffer(0, out).set_buffer(1, in_a).set_buffer(2, in_b);
      Queue queue(*device);
      queue.dispatch(program, arguments, Launch{.groups = {groups, 1, 1}, .local_size = {64, 1, 1}, .wave_size = std::nullopt});
      queue.finish(std::chrono::seconds(60));
      auto result = out.cpu_view().as<std::uint32_t>();
      for (std::size_t i = 0; i < count; ++i) {
        INFO("element " << i);
        REQUIRE(result[i] == a[i] * 3 + b[i]);
      }
      REQUIRE(result[count] == 0);  // nothing beyond the grid
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("local memory and a barrier reverse each work group, in 64- and 128-wide waves", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_A7XX_PART());
  {
    Program program = Program::from_ir3_assembly(*device, kernel_source("reverse"));
    std::mt19937 rng(12);
    for (WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
      const std::uint32_t groups = 8;
      const auto in = random_words(rng, groups * 128);
      Buffer out = device->allocate({.size = in.size() * 4}), input = upload(*device, in);
      Arguments arguments(program);
      arguments.set_buffer(0, out).set_buffer(1, input);
      Queue queue(*device);
      queue.dispatch(program, arguments, Launch{.groups = {groups, 1, 1}, .local_size = {128, 1, 1}, .wave_size = wave});
      queue.finish(std::chrono::seconds(60));
      auto result = out.cpu_view().as<std::uint32_t>();
      for (std::size_t g = 0; g < groups; ++g) {
        for (std::size_t i = 0; i < 128; ++i) REQUIRE(result[g * 128 + i] == in[g * 128 + 127 - i]);
      }
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a barrier orders dependent dispatches on one queue", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_A7XX_PART());
  {
    Program program = Program::from_ir3_assembly(*device, kernel_source("mul_add"));
    std::mt19937 rng(13);
    const std::size_t count = 4 * 64;
    const auto x = random_words(rng, count, 0xfff), y = random_words(rng, count, 0xfff);
    Buffer in_x = upload(*device, x), in_y = upload(*device, y);
    Buffer middle = device->allocate({.size = 16384 * 4}), out = device->allocate({.size = 16384 * 4});
    Arguments first(program), second(program);
    first.set_buffer(0, middle).set_buffer(1, in_x).set_buffer(2, in_y);   // middle = 3x + y
    second.set_buffer(0, out).set_buffer(1, middle).set_buffer(2, in_x);   // out = 3·middle + x
    Queue queue(*device);
    const Launch launch{.groups = {4, 1, 1}, .local_size = {64, 1, 1}, .wave_size = std::nullopt};
    queue.dispatch(program, first, launch);
    queue.barrier();
    queue.dispatch(program, second, launch);
    queue.finish(std::chrono::seconds(60));
    auto result = out.cpu_view().as<std::uint32_t>();
    for (std::size_t i = 0; i < count; ++i) REQUIRE(result[i] == (x[i] * 3 + y[i]) * 3 + x[i]);
  }
  device.close_and_check_ledger();
}

TEST_CASE("bad assembly is refused with its line and column", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  try {
    Program::from_ir3_assembly(*device, "mov.u32u32 r0.x, c0.x\n  frobnicate r0.x\n");
    FAIL("assembled");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::malformed);
    CHECK(std::string(error.what()).find("2:3") != std::string::npos);
  }
  device.close_and_check_ledger();
}

namespace {

// A grid-stride loop (the shape of every kernel library's elementwise kernels): fiber
// i = linear group × 64 + local id handles elements i, i + stride, … below n, where stride is the
// whole grid's fiber count, which the kernel computes from @numwg. out[i] = 3·in[i] + the loop
// iteration that reached i (i / stride): a wrong count gives a wrong stride, caught either way.
constexpr std::uint32_t kStrideElements = 1000;
constexpr const char* kGridStride = R"(
@localsize 64, 1, 1
@buf 1024 (c0.x)
@buf 1024 (c0.z)
@const(c1.x) 1000, 3, 0, 0
@numwg(c2.x)
@invocationid(r0.x)
@wgid(r48.x)
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r1.z, c0.z
    mov.u32u32 r1.w, c0.w
    mov.u32u32 r2.x, c2.x
    mov.u32u32 r2.y, c2.y
    mov.u32u32 r2.z, c2.z
    mov.u32u32 r2.w, c1.x
    mov.u32u32 r6.x, c1.y
    (rpt2)nop
    ; linear group = x + nx·(y + ny·z); groups = nx·ny·nz
    mad.u24 r3.x, r48.z, r2.y, r48.y
    mul.u24 r3.y, r2.x, r2.y
    (rpt2)nop
    mad.u24 r3.x, r3.x, r2.x, r48.x
    mul.u24 r3.y, r3.y, r2.z
    (rpt2)nop
    shl.b r3.x, r3.x, 6
    shl.b r3.w, r3.y, 6
    (rpt2)nop
    add.u r4.x, r3.x, r0.x
    mov.u32u32 r4.y, 0
    (rpt2)nop
loop:
    (jp)cmps.u.ge p0.x, r4.x, r2.w
    (rpt5)nop
    br p0.x, #done
    ldg.a.u32 r5.x, g[r1.z+r4.x], 1
    (sy)mad.u24 r5.y, r5.x, r6.x, r4.y
    (rpt5)nop
    stg.a.u32 g[r1.x+r4.x], r5.y, 1
    (ss)add.u r4.x, r4.x, r3.w
    add.u r4.y, r4.y, 1
    (rpt2)nop
    jump #loop
done:
    (jp)nop
    end
)";

void check_grid_stride(const Buffer& out, const std::vector<std::uint32_t>& in, const std::array<std::uint32_t, 3>& grid) {
  const std::uint32_t stride = grid[0] * grid[1] * grid[2] * 64;
  const auto result = out.cpu_view().as<std::uint32_t>();
  for (std::uint32_t i = 0; i < kStrideElements; ++i) {
    INFO("element " << i);
    REQUIRE(result[i] == in[i] * 3 + i / stride);
  }
  REQUIRE(result[kStrideElements] == 0);  // the loop stops at n
}

}  // namespace

TEST_CASE("a grid-stride kernel reads the work-group count from @numwg for grids of several shapes", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = Program::from_ir3_assembly(*device, kGridStride);
    std::mt19937 rng(14);
    for (WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
      for (const std::array<std::uint32_t, 3> grid :
           {std::array<std::uint32_t, 3>{1, 1, 1}, {3, 1, 1}, {2, 3, 1}, {2, 2, 3}, {4, 2, 2}, {1, 1, 5}}) {
        INFO("grid " << grid[0] << "x" << grid[1] << "x" << grid[2] << ", wave " << (wave == WaveSize::thread128 ? 128 : 64));
        const auto in = random_words(rng, 1024, 0xffffff);
        Buffer out = device->allocate({.size = 1024 * 4}), input = upload(*device, in);
        std::memset(out.cpu_view().data(), 0, 1024 * 4);
        Arguments arguments(program);
        arguments.set_buffer(0, out).set_buffer(1, input);
        Queue queue(*device);
        queue.dispatch(program, arguments,
                       Launch{.groups = {grid[0], grid[1], grid[2]}, .local_size = {64, 1, 1}, .wave_size = wave});
        queue.finish(std::chrono::seconds(60));
        check_grid_stride(out, in, grid);
      }
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a replayed graph whose grid changes gives a grid-stride kernel the new work-group count", "[virtual-gpu][e2e][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = Program::from_ir3_assembly(*device, kGridStride);
    std::mt19937 rng(15);
    const auto in = random_words(rng, 1024, 0xffffff);
    Buffer out = device->allocate({.size = 1024 * 4}), input = upload(*device, in);
    Arguments arguments(program);
    arguments.set_buffer(0, out).set_buffer(1, input);
    Graph graph(*device);
    const GraphDispatch id = graph.dispatch(program, arguments, Launch{.groups = {1, 1, 1}, .local_size = {64, 1, 1}, .wave_size = std::nullopt});
    graph.build();
    try {
      graph.set_launch(id, Launch{.groups = {2, 0, 1}, .local_size = {64, 1, 1}, .wave_size = std::nullopt});
      FAIL("set a launch with no groups");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::invalid_argument);
      CHECK(std::string(error.what()).find("groups.y is 0") != std::string::npos);
    }
    Queue queue(*device);
    for (WaveSize wave : {WaveSize::thread64, WaveSize::thread128}) {
      for (const std::array<std::uint32_t, 3> grid :
           {std::array<std::uint32_t, 3>{1, 1, 1}, {5, 1, 1}, {2, 3, 1}, {3, 1, 2}, {2, 2, 4}}) {
        INFO("grid " << grid[0] << "x" << grid[1] << "x" << grid[2] << ", wave " << (wave == WaveSize::thread128 ? 128 : 64));
        std::memset(out.cpu_view().data(), 0, 1024 * 4);
        graph.set_launch(id, Launch{.groups = {grid[0], grid[1], grid[2]}, .local_size = {64, 1, 1}, .wave_size = wave});
        graph.replay(queue);
        queue.finish(std::chrono::seconds(60));
        check_grid_stride(out, in, grid);
      }
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a program whose metadata places Mesa's driver-param block reads every launch value from it", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    // Fiber 0 copies c2..c5 — where the metadata puts struct ir3_driver_params_cs, as Mesa's
    // const allocation would (DRIVER_PARAMS at offset_vec4 2) — to out[0..16).
    const ir3::Program assembled = ir3::assemble(R"(
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r0.y, 0
    mov.u32u32 r0.z, 4
    mov.u32u32 r0.w, 8
    mov.u32u32 r6.x, 12
    mov.u32u32 r2.x, c2.x
    mov.u32u32 r2.y, c2.y
    mov.u32u32 r2.z, c2.z
    mov.u32u32 r2.w, c2.w
    mov.u32u32 r3.x, c3.x
    mov.u32u32 r3.y, c3.y
    mov.u32u32 r3.z, c3.z
    mov.u32u32 r3.w, c3.w
    mov.u32u32 r4.x, c4.x
    mov.u32u32 r4.y, c4.y
    mov.u32u32 r4.z, c4.z
    mov.u32u32 r4.w, c4.w
    mov.u32u32 r5.x, c5.x
    mov.u32u32 r5.y, c5.y
    mov.u32u32 r5.z, c5.z
    mov.u32u32 r5.w, c5.w
    (rpt5)nop
    stg.a.u32 g[r1.x+(r0.y<<2)], r2.x, 4
    stg.a.u32 g[r1.x+(r0.z<<2)], r3.x, 4
    stg.a.u32 g[r1.x+(r0.w<<2)], r4.x, 4
    stg.a.u32 g[r1.x+(r6.x<<2)], r5.x, 4
    end
  )");
    std::vector<std::uint32_t> code = ir3_code_dwords(assembled);
    code.resize(std::size_t{assembled.info.instrlen} * 32, 0);
    Ir3Metadata metadata;
    metadata.name = "driver_params";
    metadata.instrlen = assembled.info.instrlen;
    metadata.constlen_vec4 = 8;
    metadata.max_reg = assembled.info.max_reg;
    metadata.max_half_reg = assembled.info.max_half_reg;
    metadata.buffers = {{"out", 0}};
    metadata.driver_params = Ir3Metadata::DriverParams{8, 16};
    Program program = Program::from_ir3(*device, code, metadata);
    Buffer out = device->allocate({.size = 64});
    Arguments arguments(program);
    arguments.set_buffer(0, out);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{3, 4, 5}, {1, 1, 1}, WaveSize::thread128, {7, 8, 9}});
    queue.finish(std::chrono::seconds(60));
    const auto result = out.cpu_view().as<std::uint32_t>();
    // Groups, work_dim, base group, subgroup size, local size, subgroup-id shift, work-group id.
    CHECK(std::vector<std::uint32_t>(result.begin(), result.begin() + 16) ==
          std::vector<std::uint32_t>{3, 4, 5, 3, 7, 8, 9, 128, 1, 1, 1, 7, 0, 0, 0, 0});
  }
  device.close_and_check_ledger();
}

namespace {

// counts[i] = in[i] + 1 for i < 4, through UAV slots 0 (counts) and 1 (in): the dispatch that
// computes an indirect dispatch's group counts.
constexpr const char* kCountWriter = R"(
@localsize 4, 1, 1
@buf 4
@buf 4
@invocationid(r0.x)
ldib.b.untyped.1d.u32.1.imm r1.x, r0.x, 1
(sy)add.u r1.x, r1.x, 1
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r1.x, r0.x, 0
end
)";

}  // namespace

TEST_CASE("an indirect dispatch runs the grid an earlier dispatch computed, and its kernel reads those counts",
          "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program writer = Program::from_ir3_assembly(*device, kCountWriter);
    Program program = Program::from_ir3_assembly(*device, kGridStride);
    std::mt19937 rng(16);
    const auto in = random_words(rng, 1024, 0xffffff);
    Buffer out = device->allocate({.size = 1024 * 4}), input = upload(*device, in);
    Arguments arguments(program);
    arguments.set_buffer(0, out).set_buffer(1, input);
    for (const std::array<std::uint32_t, 3> grid : {std::array<std::uint32_t, 3>{3, 2, 1}, {1, 1, 1}, {2, 2, 2}}) {
      INFO("grid " << grid[0] << "x" << grid[1] << "x" << grid[2]);
      std::memset(out.cpu_view().data(), 0, 1024 * 4);
      Buffer counts = device->allocate({.size = 16});
      Buffer minus_one = upload(*device, {grid[0] - 1, grid[1] - 1, grid[2] - 1, 0});
      Arguments writer_arguments(writer);
      writer_arguments.set_buffer(0, counts).set_buffer(1, minus_one);
      Queue queue(*device);
      queue.dispatch(writer, writer_arguments, Launch{{1, 1, 1}, {4, 1, 1}, std::nullopt});
      queue.barrier();
      queue.dispatch_indirect(program, arguments, counts, IndirectLaunch{{64, 1, 1}, std::nullopt});
      queue.finish(std::chrono::seconds(60));
      check_grid_stride(out, in, grid);
    }
  }
  device.close_and_check_ledger();
}

// Kills: a graph could not record an indirect dispatch at all, so a replayed graph ran only the
// grid fixed at recording.
TEST_CASE("a replayed graph runs the indirect grid its count-writer computed, the counts changing between replays",
          "[virtual-gpu][e2e][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program writer = Program::from_ir3_assembly(*device, kCountWriter);
    Program program = Program::from_ir3_assembly(*device, kGridStride);
    std::mt19937 rng(17);
    const auto in = random_words(rng, 1024, 0xffffff);
    Buffer out = device->allocate({.size = 1024 * 4}), input = upload(*device, in);
    Buffer counts = device->allocate({.size = 16}), minus_one = device->allocate({.size = 16});
    Arguments writer_arguments(writer), arguments(program);
    writer_arguments.set_buffer(0, counts).set_buffer(1, minus_one);
    arguments.set_buffer(0, out).set_buffer(1, input);
    Graph graph(*device);
    graph.dispatch(writer, writer_arguments, Launch{{1, 1, 1}, {4, 1, 1}, std::nullopt}, {Access::write, Access::read});
    const GraphDispatch indirect =
        graph.dispatch_indirect(program, arguments, counts, IndirectLaunch{{64, 1, 1}, std::nullopt}, {Access::write, Access::read});
    graph.build();
    CHECK(graph.barriers() == 1);  // the counts are written before they are read
    try {
      graph.set_launch(indirect, Launch{{2, 1, 1}, {64, 1, 1}, std::nullopt});
      FAIL("set a launch on an indirect dispatch");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::invalid_argument);
      CHECK(std::string(error.what()).find("is indirect") != std::string::npos);
    }
    Queue queue(*device);
    for (const std::array<std::uint32_t, 3> grid :
         {std::array<std::uint32_t, 3>{3, 2, 1}, {1, 1, 1}, {2, 2, 2}, {5, 1, 1}}) {
      INFO("grid " << grid[0] << "x" << grid[1] << "x" << grid[2]);
      std::memset(out.cpu_view().data(), 0, 1024 * 4);
      const std::uint32_t minus[] = {grid[0] - 1, grid[1] - 1, grid[2] - 1, 0};
      std::memcpy(minus_one.cpu_view().data(), minus, sizeof minus);
      graph.replay(queue);
      queue.finish(std::chrono::seconds(60));
      check_grid_stride(out, in, grid);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("a graph refuses an indirect dispatch from a short view and records nothing", "[virtual-kernel][graph]") {
  VirtualDevice device("virtual-kgsl");
  {
    Program program = Program::from_ir3_assembly(*device, kGridStride);
    Buffer out = device->allocate({.size = 1024 * 4}), counts = device->allocate({.size = 16});
    Arguments arguments(program);
    arguments.set_buffer(0, out).set_buffer(1, out);
    Graph graph(*device);
    try {
      graph.dispatch_indirect(program, arguments, counts.view(0, 8), IndirectLaunch{{64, 1, 1}, std::nullopt});
      FAIL("recorded from 8 bytes");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::invalid_argument);
      CHECK(std::string(error.what()).find("groups: a view of 8 bytes") != std::string::npos);
    }
    graph.build();
    CHECK(graph.dispatch_count() == 0);  // nothing half-recorded
  }
  device.close_and_check_ledger();
}

TEST_CASE("indirect dispatches with bad counts fault on the GPU and bad views are refused naming them",
          "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = Program::from_ir3_assembly(*device, kGridStride);
    Buffer out = device->allocate({.size = 1024 * 4}), input = device->allocate({.size = 1024 * 4});
    Arguments arguments(program);
    arguments.set_buffer(0, out).set_buffer(1, input);
    // 0x04000000 groups × 64 fibers leaves the 32-bit global size: a fault, not a hang.
    Buffer counts = upload(*device, {0x04000000u, 1, 1, 0});
    {
      Queue queue(*device);
      queue.dispatch_indirect(program, arguments, counts, IndirectLaunch{{64, 1, 1}, std::nullopt});
      try {
        queue.finish(std::chrono::seconds(60));
        FAIL("the dispatch ran");
      } catch (const Error& error) {
        CHECK(error.code() == Errc::device_lost);
      }
    }
    Queue queue(*device);
    try {
      queue.dispatch_indirect(program, arguments, counts.view(0, 8), IndirectLaunch{{64, 1, 1}, std::nullopt});
      FAIL("dispatched from 8 bytes");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::invalid_argument);
      CHECK(std::string(error.what()).find("groups: a view of 8 bytes") != std::string::npos);
    }
    try {
      queue.dispatch_indirect(program, arguments, counts, IndirectLaunch{{32, 1, 1}, std::nullopt});
      FAIL("dispatched with the wrong local size");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::invalid_argument);
      CHECK(std::string(error.what()).find("compiled for 64") != std::string::npos);
    }
  }
  device.close_and_check_ledger();
}

namespace {

// Each work group (of one fiber) writes the group counts it reads from @numwg, and its linear
// group id x + nx·(y + ny·z), to out[4·id .. 4·id + 4).
constexpr const char* kCountReader = R"(
@localsize 1, 1, 1
@buf 1024 (c0.x)
@numwg(c1.x)
@wgid(r48.x)
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r2.x, c1.x
    mov.u32u32 r2.y, c1.y
    mov.u32u32 r2.z, c1.z
    (rpt2)nop
    mad.u24 r3.x, r48.z, r2.y, r48.y
    (rpt2)nop
    mad.u24 r2.w, r3.x, r2.x, r48.x
    (rpt2)nop
    shl.b r3.y, r2.w, 2
    (rpt5)nop
    stg.a.u32 g[r1.x+r3.y], r2.x, 4
    end
)";
constexpr std::uint32_t kCountReaderGroups = 256;  // out holds 4 dwords for each of this many

using Grid = std::array<std::uint32_t, 3>;

// Seeded random grids of 1-4 groups per axis, each differing from the one before: a dispatch that
// read its predecessor's counts would show.
std::vector<Grid> random_grids(std::mt19937& rng, std::size_t count) {
  std::vector<Grid> grids;
  while (grids.size() < count) {
    const Grid grid{static_cast<std::uint32_t>(rng() % 4 + 1), static_cast<std::uint32_t>(rng() % 4 + 1),
                    static_cast<std::uint32_t>(rng() % 4 + 1)};
    if (grids.empty() || grid != grids.back()) grids.push_back(grid);
  }
  return grids;
}

std::uint32_t groups_of(const Grid& grid) { return grid[0] * grid[1] * grid[2]; }

/// One indirect launch of kCountReader per grid: its counts buffer, and the arguments binding its
/// own zeroed output.
class CountReaderRuns {
 public:
  CountReaderRuns(Device& device, const Program& program, std::vector<Grid> grids) : grids_(std::move(grids)) {
    for (const Grid& grid : grids_) {
      outs_.push_back(upload(device, std::vector<std::uint32_t>(4 * kCountReaderGroups, 0)));
      counts_.push_back(upload(device, {grid[0], grid[1], grid[2], 0}));
      arguments_.emplace_back(program);
      arguments_.back().set_buffer(0, outs_.back());
    }
  }
  std::size_t size() const { return grids_.size(); }
  const Arguments& arguments(std::size_t i) const { return arguments_[i]; }
  const Buffer& counts(std::size_t i) const { return counts_[i]; }

  /// Every output in full: each group of run i wrote grid i's counts and its id, nothing else.
  void check() const {
    for (std::size_t i = 0; i < grids_.size(); ++i) {
      const Grid& grid = grids_[i];
      INFO("dispatch " << i << ": grid " << grid[0] << "x" << grid[1] << "x" << grid[2]);
      std::vector<std::uint32_t> expected(4 * kCountReaderGroups, 0);
      for (std::uint32_t id = 0; id < groups_of(grid); ++id) {
        expected[4 * id] = grid[0];
        expected[4 * id + 1] = grid[1];
        expected[4 * id + 2] = grid[2];
        expected[4 * id + 3] = id;
      }
      const auto words = outs_[i].cpu_view().as<std::uint32_t>();
      CHECK(std::vector<std::uint32_t>(words.begin(), words.end()) == expected);
    }
  }

 private:
  std::vector<Grid> grids_;
  std::vector<Buffer> outs_, counts_;
  std::vector<Arguments> arguments_;
};

constexpr IndirectLaunch kCountReaderLaunch{{1, 1, 1}, std::nullopt};

}  // namespace

// Kills: the CP's copy of the counts loaded into the constants without an invalidate in between
// (Turnip's tu_emit_compute_driver_params emits CP_WAIT_MEM_WRITES, FD_CACHE_INVALIDATE, WFI
// before that CP_LOAD_STATE6): every indirect dispatch of a submission copies its counts to the
// same scratch vec4, so the second one's load hit the line the first one's had filled in UCHE
// and its program read the first grid's counts.
TEST_CASE("indirect dispatches in one submission each read their own group counts as driver params", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = Program::from_ir3_assembly(*device, kCountReader);
    std::mt19937 rng(18);
    const CountReaderRuns runs(*device, program, random_grids(rng, 4));
    Queue queue(*device);
    for (std::size_t i = 0; i < runs.size(); ++i)
      queue.dispatch_indirect(program, runs.arguments(i), runs.counts(i), kCountReaderLaunch);
    queue.finish(std::chrono::seconds(60));  // the one submission
    runs.check();
  }
  device.close_and_check_ledger();
}

// Kills the same missing invalidate for a graph: its indirect dispatches copy their counts to the
// graph's one scratch vec4, so every load after the submission's first hit the line that one
// filled and read dispatch 0's counts.
TEST_CASE("a graph replayed twice in one submission gives each of its indirect dispatches its own counts as driver params",
          "[virtual-gpu][e2e][graph]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Program program = Program::from_ir3_assembly(*device, kCountReader);
    std::mt19937 rng(19);
    const CountReaderRuns runs(*device, program, random_grids(rng, 3));
    Graph graph(*device);
    for (std::size_t i = 0; i < runs.size(); ++i)
      graph.dispatch_indirect(program, runs.arguments(i), runs.counts(i), kCountReaderLaunch, {Access::write});
    graph.build();
    CHECK(graph.barriers() == 0);  // independent dispatches: nothing invalidates between them
    Queue queue(*device);
    graph.replay(queue);
    graph.replay(queue);  // the same dispatches again, after the first replay's loads
    queue.finish(std::chrono::seconds(60));  // the one submission
    runs.check();
  }
  device.close_and_check_ledger();
}
