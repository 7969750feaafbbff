// [virtual-gpu] Kernels written in ir3 assembly, loaded with Program::from_ir3_assembly and run
// through Queue::dispatch on both virtual kernels: multi-group indexing, local memory with a
// barrier, and dependent dispatches ordered by Queue::barrier. Expected values come from a host
// loop over the same definition; inputs are seeded random.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "../core/virtual_device.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

using namespace adreno;

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
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
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
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
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
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
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
