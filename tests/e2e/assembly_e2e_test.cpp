// [virtual-gpu] Kernels written in ir3 assembly, loaded with Program::from_ir3_assembly and run
// through Queue::dispatch on both virtual kernels: multi-group indexing, local memory with a
// barrier, and dependent dispatches ordered by Queue::barrier. Expected values come from a host
// loop over the same definition; inputs are seeded random.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "../core/virtual_device.h"

#include <cstring>
#include <random>

using namespace adreno;

namespace {

// out[i] = in_a[i] * 3 + in_b[i] (24-bit multiply), i = work-group id * 64 + local id.
constexpr const char* kMulAdd = R"(
@localsize 64, 1, 1
@buf 16384 (c0.x)
@buf 16384 (c0.z)
@buf 16384 (c1.x)
@invocationid(r0.x)
@wgid(r48.x)
    shl.b r0.y, r48.x, 6
    (rpt2)nop
    add.u r0.y, r0.y, r0.x
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r1.z, c0.z
    mov.u32u32 r1.w, c0.w
    mov.u32u32 r2.z, c1.x
    mov.u32u32 r2.w, c1.y
    mov.u32u32 r3.x, 3
    (rpt2)nop
    ldg.a.u32 r2.x, g[r1.z+(r0.y<<2)], 1
    ldg.a.u32 r2.y, g[r2.z+(r0.y<<2)], 1
    (sy)mad.u24 r3.y, r2.x, r3.x, r2.y
    (rpt2)nop
    stg.a.u32 g[r1.x+(r0.y<<2)], r3.y, 1
    end
)";

// Within each work group of 128, out[g*128 + i] = in[g*128 + 127 - i], through local memory.
constexpr const char* kReverse = R"(
@localsize 128, 1, 1
@buf 8192 (c0.x)
@buf 8192 (c0.z)
@invocationid(r0.x)
@wgid(r48.x)
    shl.b r0.y, r48.x, 7
    shl.b r0.z, r0.x, 2
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r1.z, c0.z
    mov.u32u32 r1.w, c0.w
    mov.u32u32 r3.x, 508
    (rpt2)nop
    add.u r0.y, r0.y, r0.x
    sub.u r0.w, r3.x, r0.z
    (rpt2)nop
    ldg.a.u32 r2.x, g[r1.z+(r0.y<<2)], 1
    (sy)stl.u32 l[r0.z], r2.x, 1
    bar
    ldl.u32 r2.y, l[r0.w], 1
    (sy)stg.a.u32 g[r1.x+(r0.y<<2)], r2.y, 1
    end
)";

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
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Program program = Program::from_ir3_assembly(*device, kMulAdd);
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
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Program program = Program::from_ir3_assembly(*device, kReverse);
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
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Program program = Program::from_ir3_assembly(*device, kMulAdd);
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
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  try {
    Program::from_ir3_assembly(*device, "mov.u32u32 r0.x, c0.x\n  frobnicate r0.x\n");
    FAIL("assembled");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::malformed);
    CHECK(std::string(error.what()).find("2:3") != std::string::npos);
  }
  device.close_and_check_ledger();
}
