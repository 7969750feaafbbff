// [virtual-gpu] The real Mesa-compiled a630 kernels of /work/shared/fixtures/ir3-a630 run on the
// virtual GPU with the launch their JSON metadata describes (README "Loading contract") and give
// the results their expected_rule states, for every recorded profile and address set.
#include "virtual_gpu.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace vgpu_test;

namespace {

const std::string kFixtureDir = ADRENO_IR3_FIXTURES_DIR;

nlohmann::json read_json(const std::string& name) {
  std::ifstream file(kFixtureDir + name + ".json");
  REQUIRE(file);
  return nlohmann::json::parse(file);
}

std::vector<std::uint64_t> read_code(const std::string& file_name) {
  std::ifstream file(kFixtureDir + file_name, std::ios::binary);
  REQUIRE(file);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() % 8 == 0);
  std::vector<std::uint64_t> words(bytes.size() / 8);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

struct Addresses {
  std::uint64_t c, a, b;
};

// Runs one profile with buffers at the given GPU addresses (each inside the test's one mapping).
void run_profile(const std::string& name, const nlohmann::json& json, const nlohmann::json& profile, Addresses at,
                 std::uint64_t va_start) {
  VirtualGpu gpu(va_start);
  const std::vector<std::uint64_t> code = read_code(json["code_file"].get<std::string>());
  const auto count = profile["element_count"].get<std::size_t>();

  // Inputs: tinygrad test_dispatch_sample.py's rule, a[i] = i*1234567 + 0xffffffff, b[i] = i+1.
  std::vector<std::uint32_t> a(count), b(count);
  for (std::size_t i = 0; i < count; ++i) {
    a[i] = static_cast<std::uint32_t>(i * 1234567u + 0xffffffffu);
    b[i] = static_cast<std::uint32_t>(i + 1);
  }
  auto offset = [&](std::uint64_t address) { return address - gpu.va(0); };
  gpu.put(offset(at.a), a);
  gpu.put(offset(at.b), b);
  gpu.put(offset(at.c), std::vector<std::uint32_t>(count + 16, 0xaaaaaaaau));

  Launch launch;
  const auto& registers = json["registers"];
  launch.full_footprint = registers["full_footprint_vec4"].get<std::uint32_t>();
  launch.half_footprint = registers["half_footprint_vec4"].get<std::uint32_t>();
  launch.merged_registers = registers["mergedregs"].get<bool>();
  launch.local_id_regid = json["system_values"]["local_invocation_id_regid"].get<std::uint16_t>();
  launch.work_group_id_regid = json["system_values"]["work_group_id_regid"].get<std::uint16_t>();
  launch.instr_size = json["code"]["instrlen"]["value"].get<std::uint32_t>();
  for (int i = 0; i < 3; ++i) {
    launch.local_size[i] = profile["workgroup_size"][i].get<std::uint32_t>();
    launch.groups[i] = profile["workgroups"][i].get<std::uint32_t>();
  }
  launch.constants.assign(json["constants"]["constlen_vec4"].get<std::size_t>() * 4, 0);
  const std::uint64_t by_index[3] = {at.c, at.a, at.b};
  for (const auto& argument : json["kernel"]["arguments"]) {
    const std::uint64_t address = by_index[argument["index"].get<int>()];
    launch.constants[argument["const_dword_lo"].get<std::size_t>()] = static_cast<std::uint32_t>(address);
    launch.constants[argument["const_dword_hi"].get<std::size_t>()] = static_cast<std::uint32_t>(address >> 32);
  }

  gpu.run(code, launch);

  INFO(name << " " << profile["manifest_entry"].get<std::string>() << " c at 0x" << std::hex << at.c);
  const auto c = gpu.get<std::uint32_t>(offset(at.c), count + 16);
  for (std::size_t i = 0; i < count; ++i) {
    INFO("element " << i);
    REQUIRE(c[i] == a[i] + b[i]);
  }
  for (std::size_t i = count; i < count + 16; ++i) REQUIRE(c[i] == 0xaaaaaaaau);  // nothing past the end
  CHECK(gpu.get<std::uint32_t>(offset(at.a), count) == a);
  CHECK(gpu.get<std::uint32_t>(offset(at.b), count) == b);
}

}  // namespace

TEST_CASE("Mesa-compiled a630 fixtures compute c = a + b for every recorded launch", "[virtual-gpu][fixtures]") {
  REQUIRE(std::filesystem::exists(kFixtureDir));
  for (const char* name : {"scalar", "vector128", "vector32", "multigroup"}) {
    const nlohmann::json json = read_json(name);
    for (const auto& profile : json["dispatch"]["profiles"]) {
      // Buffers inside one mapping at the start of the address space.
      run_profile(name, json, profile, {0x100400100ull, 0x100410100ull, 0x100420100ull}, 0x100000000ull);
      // tinygrad's second address set: c's low dword is 0xffffff00, so c + 16 * fiber carries into
      // the high dword, through the kernel's add.u / cmps.u.lt / cov carry sequence.
      run_profile(name, json, profile, {0x1ffffff00ull, 0x20000ff00ull, 0x20001ff00ull}, 0x1ffc00000ull);
    }
  }
}

TEST_CASE("the scalar fixture reproduces the manifest's worked example", "[virtual-gpu][fixtures]") {
  REQUIRE(std::filesystem::exists(kFixtureDir));
  const nlohmann::json json = read_json("scalar");
  const auto& example = json["dispatch"]["worked_example"];
  const std::vector<std::uint64_t> code = read_code("scalar.code.bin");
  for (const auto& test_case : example["cases"]) {
    VirtualGpu gpu;
    auto le = [](const std::string& hex) {
      std::uint32_t v = 0;
      for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<std::uint32_t>(std::stoul(hex.substr(i * 2, 2), nullptr, 16));
      return v;
    };
    const std::uint64_t a = VirtualGpu::kData, b = a + 0x1000, c = a + 0x2000;
    gpu.put(a, std::vector<std::uint32_t>{le(test_case["a_le_hex"])});
    gpu.put(b, std::vector<std::uint32_t>{le(test_case["b_le_hex"])});
    gpu.put(c, std::vector<std::uint32_t>{le(example["output_before_hex"])});
    Launch launch;
    launch.full_footprint = json["registers"]["full_footprint_vec4"].get<std::uint32_t>();
    launch.half_footprint = json["registers"]["half_footprint_vec4"].get<std::uint32_t>();
    launch.instr_size = json["code"]["instrlen"]["value"].get<std::uint32_t>();
    launch.constants = {static_cast<std::uint32_t>(gpu.va(c)), static_cast<std::uint32_t>(gpu.va(c) >> 32),
                        static_cast<std::uint32_t>(gpu.va(a)), static_cast<std::uint32_t>(gpu.va(a) >> 32),
                        static_cast<std::uint32_t>(gpu.va(b)), static_cast<std::uint32_t>(gpu.va(b) >> 32), 0, 0,
                        0, 0, 0, 0, 0, 0, 0, 0};
    gpu.run(code, launch);
    CHECK(gpu.get<std::uint32_t>(c, 1)[0] == le(test_case["expected_c_le_hex"]));
  }
}
