// [virtual-kernel] ir3 programs from explicit metadata: what is kept, what is refused, and the
// fixture JSON reader's errors. [pure] for the JSON reader.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "core/program_impl.h"
#include "program_fixtures.h"

#include <fstream>

#include <nlohmann/json.hpp>

using namespace adreno;

namespace {

void require_malformed(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    FAIL("no error; expected one mentioning " << text);
  } catch (const Error& error) {
    INFO(error.what());
    CHECK(error.code() == Errc::malformed);
    CHECK(std::string(error.what()).find(text) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("an ir3 program keeps the compiler's metadata, not numbers derived from its size", "[virtual-kernel][program]") {
  VirtualDevice device("virtual-kgsl");
  {
    Ir3Metadata m = three_buffer_metadata();
    m.instrlen = 1;  // fewer groups than the 256-byte code holds: the compiler's padding
    m.max_reg = 20;
    m.max_half_reg = 47;
    m.merged_regs = true;
    m.branch_stack = 5;
    m.local_size_const_dword = 8;
    m.constlen_vec4 = 12;
    m.private_bytes_per_fiber = 96;
    m.shared_bytes = 8192;
    const Program program = Program::from_ir3(*device, placeholder_code(), m);
    const ProgramInfo& info = program.impl()->info();
    CHECK(info.instrlen == 1);
    CHECK(info.full_regs_vec4 == 21);
    CHECK(info.half_regs_vec4 == 48);
    CHECK(info.merged_regs);
    CHECK(info.branch_stack == 5);
    REQUIRE(info.driver_params.size() == 1);
    CHECK(info.driver_params[0].const_dword == 8);
    CHECK(info.driver_params[0].first == DriverParam::local_group_size_x);
    CHECK(info.driver_params[0].count == 3);
    CHECK(info.constlen_vec4 == 12);
    CHECK(info.launch == LaunchPacket::exec_cs);
    CHECK(info.work_group_size_regid == kUnusedRegid);
    CHECK(program.impl()->private_bytes_per_fiber() == 512);
    REQUIRE(program.argument_count() == 4);
    CHECK(program.argument_index("n") == 3u);
  }
  device.close_and_check_ledger();
}

TEST_CASE("ir3 metadata outside the hardware's limits is refused naming the field", "[virtual-kernel][program]") {
  VirtualDevice device("virtual-msm");
  const auto load = [&](const Ir3Metadata& m, std::vector<std::uint32_t> code = placeholder_code()) {
    return [&, m, code] { Program::from_ir3(*device, code, m); };
  };
  Ir3Metadata m = three_buffer_metadata();
  m.instrlen = 3;
  require_malformed(load(m), "instrlen 3");
  m = three_buffer_metadata();
  m.instrlen = 0;
  require_malformed(load(m), "instrlen 0");
  m = three_buffer_metadata();
  m.max_reg = 48;
  require_malformed(load(m), "full register footprint 49");
  m = three_buffer_metadata();
  m.max_half_reg = 48;
  require_malformed(load(m), "half register footprint 49");
  m = three_buffer_metadata();
  m.max_reg = -2;
  require_malformed(load(m), "max_reg -2");
  m = three_buffer_metadata();
  m.constlen_vec4 = 260;
  require_malformed(load(m), "constlen 260");
  m = three_buffer_metadata();
  m.buffers[2].const_dword = 15;  // c3.w: the high dword would be past constlen 4
  require_malformed(load(m), "argument 'b'");
  m = three_buffer_metadata();
  m.local_size_const_dword = 14;
  require_malformed(load(m), "driver params 8..11 at constant dword 14");
  m = three_buffer_metadata();
  m.driver_params = Ir3Metadata::DriverParams{16, 4};  // c4: past constlen 4
  require_malformed(load(m), "driver params at constant dword 16");
  m = three_buffer_metadata();
  m.driver_params = Ir3Metadata::DriverParams{8, 17};
  require_malformed(load(m), "driver params count 17");
  m = three_buffer_metadata();
  m.immediates = {{16, 1}};
  require_malformed(load(m), "immediate at constant byte 64");
  m = three_buffer_metadata();
  m.work_group_id_regid = 256;
  require_malformed(load(m), "work-group id regid");
  m = three_buffer_metadata();
  m.shared_bytes = 40000;
  require_malformed(load(m), "shared memory 40000");
  m = three_buffer_metadata();
  m.branch_stack = 64;
  require_malformed(load(m), "branch stack 64");
  require_malformed(load(three_buffer_metadata(), std::vector<std::uint32_t>(3, 0)), "code: 12 bytes");
  require_malformed(load(three_buffer_metadata(), {}), "code: 0 bytes");
  device.close_and_check_ledger();
}

TEST_CASE("the fixture JSON reader names a missing or ill-typed key", "[pure][program]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "adreno-dispatch-test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& text) {
    const std::filesystem::path path = dir / "broken.json";
    std::ofstream(path) << text;
    return path;
  };
  require_malformed([&] { load_ir3_metadata_json(write("{")); }, "broken.json");
  require_malformed([&] { load_ir3_metadata_json(write(R"({"format": "other/1"})")); }, "'format' is 'other/1'");
  require_malformed([&] { load_ir3_metadata_json(write(R"({"format": "ir3-a630-fixture/1", "name": "x"})")); },
                    "'code.instrlen.value' is missing");
  require_malformed(
      [&] {
        load_ir3_metadata_json(write(R"({"format": "ir3-a630-fixture/1", "name": "x", "code": {"instrlen": {"value": "2"}}})"));
      },
      "'code.instrlen.value' is not an integer");
  require_malformed(
      [&] {
        load_ir3_metadata_json(write(R"({"format": "ir3-a630-fixture/1", "name": "x", "code": {"instrlen": {"value": -1}}})"));
      },
      "'code.instrlen.value' = -1 is out of range");
  // The optional driver-param block (Mesa's DRIVER_PARAMS allocation) next to a fixture's keys.
  std::ifstream fixture(std::filesystem::path(ADRENO_IR3_FIXTURES_DIR) / "vector32.json");
  nlohmann::json json = nlohmann::json::parse(fixture);
  CHECK(!load_ir3_metadata_json(write(json.dump())).driver_params);
  json["constants"]["driver_params"] = {{"offset_vec4", 2}, {"num_driver_params", 12}};
  const Ir3Metadata with_params = load_ir3_metadata_json(write(json.dump()));
  REQUIRE(with_params.driver_params);
  CHECK(with_params.driver_params->const_dword == 8);
  CHECK(with_params.driver_params->count == 12);
  json["constants"]["driver_params"]["offset_vec4"] = "2";
  require_malformed([&] { load_ir3_metadata_json(write(json.dump())); }, "'constants.driver_params.offset_vec4' is not an integer");
  try {
    load_ir3_metadata_json(dir / "absent.json");
    FAIL("read a file that does not exist");
  } catch (const Error& error) {
    CHECK(error.code() == Errc::not_found);
  }
  std::filesystem::remove_all(dir);
}
