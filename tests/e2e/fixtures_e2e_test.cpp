// [virtual-gpu] End to end through the public API on both virtual kernels: Mesa-compiled a630
// kernels (../shared/fixtures/ir3-a630) are loaded with Program::from_ir3_fixture, their
// arguments bound, dispatched with Queue::dispatch with every launch profile their JSON records,
// executed by the virtual GPU, and checked against the kernels' definition (uint32 c = a + b).
// The a630 only: the code is Mesa's a6xx output, which the a740 refuses to load
// (tests/dispatch/fixture_test.cpp); the graph tests run the same kernel assembled for the a740.
#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "../core/virtual_device.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <cstring>
#include <random>

using namespace adreno;

namespace {

const std::filesystem::path kFixtures = ADRENO_IR3_FIXTURES_DIR;

nlohmann::json fixture_json(const std::string& name) {
  std::ifstream in(kFixtures / (name + ".json"));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

std::vector<std::uint32_t> hex_words(const std::string& hex) {
  std::vector<std::uint32_t> words;
  for (std::size_t i = 0; i + 8 <= hex.size(); i += 8) {
    std::uint32_t value = 0;
    for (int b = 3; b >= 0; --b) value = (value << 8) | std::stoul(hex.substr(i + 2 * static_cast<std::size_t>(b), 2), nullptr, 16);
    words.push_back(value);
  }
  return words;
}

// Runs c = a + b on one device and checks every element, and that nothing past `count` changed.
void check_add(Device& device, const Program& program, const std::vector<std::uint32_t>& a,
               const std::vector<std::uint32_t>& b, const Launch& launch) {
  const std::size_t count = a.size();
  const std::size_t slack = 64;  // elements past the end that must stay untouched
  Buffer buffer_a = device.allocate({.size = count * 4});
  Buffer buffer_b = device.allocate({.size = count * 4});
  Buffer buffer_c = device.allocate({.size = (count + slack) * 4});
  std::memcpy(buffer_a.cpu_view().data(), a.data(), count * 4);
  std::memcpy(buffer_b.cpu_view().data(), b.data(), count * 4);
  std::memset(buffer_c.cpu_view().data(), 0xaa, (count + slack) * 4);
  Arguments arguments(program);
  arguments.set_buffer(0, buffer_c).set_buffer(1, buffer_a).set_buffer(2, buffer_b);  // kernel order: c, a, b
  Queue queue(device);
  queue.dispatch(program, arguments, launch);
  queue.finish(std::chrono::seconds(60));
  auto c = buffer_c.cpu_view().as<std::uint32_t>();
  for (std::size_t i = 0; i < count; ++i) {
    INFO("element " << i);
    REQUIRE(c[i] == a[i] + b[i]);
  }
  for (std::size_t i = count; i < count + slack; ++i) REQUIRE(c[i] == 0xaaaaaaaau);
  CHECK(std::memcmp(buffer_a.cpu_view().data(), a.data(), count * 4) == 0);
}

}  // namespace

TEST_CASE("the Mesa-compiled grid kernels add every element for each recorded launch profile",
          "[virtual-gpu][e2e]") {
  const std::string backend = EACH_VIRTUAL_BACKEND();
  const std::string name = GENERATE(as<std::string>{}, "vector128", "vector32", "multigroup");
  const bool seeded_random = GENERATE(false, true);
  INFO(backend << " " << name << (seeded_random ? " random inputs" : " tinygrad's input rule"));
  VirtualDevice device(backend);
  {
    Program program = Program::from_ir3_fixture(*device, kFixtures / (name + ".json"));
    const nlohmann::json json = fixture_json(name);
    std::mt19937 rng(static_cast<unsigned>(name.size()));
    for (const auto& profile : json["dispatch"]["profiles"]) {
      const auto count = profile["element_count"].get<std::size_t>();
      INFO("profile " << profile["manifest_entry"].get<std::string>());
      std::vector<std::uint32_t> a(count), b(count);
      for (std::size_t i = 0; i < count; ++i) {
        // test_dispatch_sample.py's rule, or seeded random words.
        a[i] = seeded_random ? rng() : static_cast<std::uint32_t>(i * 1234567u + 0xffffffffu);
        b[i] = seeded_random ? rng() : static_cast<std::uint32_t>(i + 1);
      }
      Launch launch;
      for (unsigned axis = 0; axis < 3; ++axis) {
        launch.groups[axis] = profile["workgroups"][axis].get<std::uint32_t>();
        launch.local_size[axis] = profile["workgroup_size"][axis].get<std::uint32_t>();
      }
      check_add(*device, program, a, b, launch);
      // The same work in 128-wide waves gives the same result.
      launch.wave_size = WaveSize::thread128;
      check_add(*device, program, a, b, launch);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("the Mesa-compiled scalar kernel computes tinygrad's worked example", "[virtual-gpu][e2e]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Program program = Program::from_ir3_fixture(*device, kFixtures / "scalar.json");
    const nlohmann::json example = fixture_json("scalar")["dispatch"]["worked_example"];
    for (const auto& c : example["cases"]) {
      INFO(c["derivation"].get<std::string>());
      const auto a = hex_words(c["a_le_hex"].get<std::string>());
      const auto b = hex_words(c["b_le_hex"].get<std::string>());
      const auto expected = hex_words(c["expected_c_le_hex"].get<std::string>());
      REQUIRE(expected.size() == 1);
      REQUIRE(a[0] + b[0] == expected[0]);  // the JSON's own expectation agrees with uint32 addition
      check_add(*device, program, a, b, Launch{});
    }
  }
  device.close_and_check_ledger();
}
