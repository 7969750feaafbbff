// [virtual-kernel] The four Mesa-compiled a630 fixtures: they load with the metadata their JSON
// states, and a dispatch of each programs the registers their `a6xx_register_hints` and Mesa's
// dispatch code (computerator a6xx.cc, freedreno fd6_compute.cc) give, field by field.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "core/program_impl.h"
#include "pm4/a6xx_registers.h"
#include "recorded_stream.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace adreno;
namespace r = adreno::pm4::a6xx;
using adreno::pm4::Opcode;

namespace {

const std::filesystem::path kFixtures = ADRENO_IR3_FIXTURES_DIR;

nlohmann::json fixture_json(const std::string& name) {
  std::ifstream in(kFixtures / (name + ".json"));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

std::uint32_t hex_value(const nlohmann::json& text) { return static_cast<std::uint32_t>(std::stoul(text.get<std::string>(), nullptr, 16)); }

}  // namespace

TEST_CASE("the ir3 fixtures load with the metadata their JSON states", "[virtual-kernel][program][fixture]") {
  const std::string name = GENERATE(as<std::string>{}, "scalar", "vector128", "vector32", "multigroup");
  INFO("fixtures at " << kFixtures.string());
  REQUIRE(std::filesystem::exists(kFixtures));
  VirtualDevice device("virtual-kgsl");
  {
    const nlohmann::json json = fixture_json(name);
    const Program program = Program::from_ir3_fixture(*device, kFixtures / (name + ".json"));
    const ProgramInfo& info = program.impl()->info();
    CHECK(program.name() == name);
    CHECK(info.code.size() * 4 == json["code_bytes"].get<std::size_t>());
    CHECK(info.instrlen == json["code"]["instrlen"]["value"].get<std::uint32_t>());
    CHECK(info.constlen_vec4 == json["constants"]["constlen_vec4"].get<std::uint32_t>());
    CHECK(info.full_regs_vec4 == json["registers"]["full_footprint_vec4"].get<std::uint32_t>());
    CHECK(info.half_regs_vec4 == json["registers"]["half_footprint_vec4"].get<std::uint32_t>());
    CHECK(info.merged_regs == json["registers"]["mergedregs"].get<bool>());
    CHECK(info.wave_size == WaveSize::thread64);
    CHECK(info.branch_stack == json["control"]["branchstack"].get<std::uint32_t>());
    CHECK(info.local_id_regid == json["system_values"]["local_invocation_id_regid"].get<std::uint32_t>());
    CHECK(info.work_group_id_regid == json["system_values"]["work_group_id_regid"].get<std::uint32_t>());
    CHECK(info.driver_params.empty());
    CHECK(info.shared_bytes == json["memory"]["shared_bytes"].get<std::uint32_t>());
    CHECK(info.private_bytes_per_fiber == json["memory"]["pvtmem_bytes_per_fiber"].get<std::uint32_t>());
    CHECK(info.immediates.empty());
    const auto& arguments = json["kernel"]["arguments"];
    REQUIRE(info.arguments.size() == arguments.size());
    for (std::size_t i = 0; i < arguments.size(); ++i) {
      CHECK(info.arguments[i].name == arguments[i]["name"].get<std::string>());
      CHECK(info.arguments[i].const_byte == 4 * arguments[i]["const_dword_lo"].get<std::uint32_t>());
      CHECK(info.arguments[i].size_bytes == 8);
    }
    // The code sits 128-byte aligned in GPU memory, byte for byte.
    CHECK(program.code_address().value() % 128 == 0);
    CHECK(std::memcmp(program.impl()->code()->cpu().data(), info.code.data(), info.code.size() * 4) == 0);
  }
  device.close_and_check_ledger();
}

// The a630 only: the fixtures are Mesa's a630 output with a6xx register hints; the a740 refuses
// them (next test).
TEST_CASE("a fixture dispatch programs the registers of its hints and of Mesa's compute dispatch",
          "[virtual-kernel][dispatch][fixture]") {
  const std::string name = GENERATE(as<std::string>{}, "scalar", "vector128", "vector32", "multigroup");
  INFO("fixtures at " << kFixtures.string());
  REQUIRE(std::filesystem::exists(kFixtures));
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    const nlohmann::json json = fixture_json(name);
    const nlohmann::json& hints = json["a6xx_register_hints"];
    const nlohmann::json& profile = json["dispatch"]["profiles"].back();
    Program program = Program::from_ir3_fixture(*device, kFixtures / (name + ".json"));
    Buffer a = device->allocate({.size = 64 * 1024}), b = device->allocate({.size = 64 * 1024}),
           c = device->allocate({.size = 64 * 1024});
    Arguments arguments(program);
    arguments.set_buffer("c", c).set_buffer("a", a).set_buffer("b", b);
    Launch launch;
    for (unsigned i = 0; i < 3; ++i) {
      launch.groups[i] = profile["workgroups"][i].get<std::uint32_t>();
      launch.local_size[i] = profile["workgroup_size"][i].get<std::uint32_t>();
    }
    Queue queue(*device);
    queue.dispatch(program, arguments, launch);
    const RecordedStream rec = record_of(queue);
    INFO(rec.text);

    // The fixture's hints (tinygrad's formulas, cross-checked by its mock-GPU literals).
    CHECK(rec.value(r::SP_CS_CNTL_0) == hex_value(hints["SP_CS_CNTL_0"]));
    CHECK(rec.value(r::SP_CS_CONST_CONFIG_0) == hex_value(hints["SP_CS_CONST_CONFIG_0"]));
    // SP_CS_INSTR_SIZE is Mesa's instrlen, not tinygrad's ceil(size / 128): for vector32 and
    // multigroup these differ (2 vs 3); computerator writes v->instrlen (a6xx.cc, cs_program_emit).
    CHECK(rec.value(r::SP_CS_INSTR_SIZE) == hints["SP_CS_INSTR_SIZE"]["mesa_instrlen"].get<std::uint32_t>());

    // Mesa computerator / fd6_compute.cc, evaluated by hand for constlen 4, no textures/IBOs,
    // no shared memory, THREAD64: SP_CS_CONST_CONFIG = CONSTLEN(4 >> 2) | ENABLED (bit 8).
    CHECK(rec.value(r::SP_CS_CONST_CONFIG) == 0x101);
    CHECK(rec.value(r::SP_CS_CONFIG) == 0x100);  // ENABLED, NTEX = NSAMP = NUAV = 0
    CHECK(rec.value(r::SP_CS_CNTL_1) == 0x1);    // SHARED_SIZE 1, CONSTLEN_128
    CHECK(rec.value(r::SP_CS_WGE_CNTL) == 0xfc); // LINEARLOCALIDREGID r63.x, THREAD64
    CHECK(rec.field(r::SP_CS_NDRANGE_0, "KERNELDIM") == 3);
    CHECK(rec.field(r::SP_CS_NDRANGE_0, "LOCALSIZEX") == launch.local_size[0] - 1);
    CHECK(rec.value(r::SP_CS_NDRANGE_1) == launch.local_size[0] * launch.groups[0]);
    CHECK(rec.value(r::SP_CS_NDRANGE_2) == 0);
    CHECK(rec.value(r::SP_CS_NDRANGE_3) == launch.local_size[1] * launch.groups[1]);
    CHECK(rec.value(r::SP_CS_NDRANGE_5) == launch.local_size[2] * launch.groups[2]);
    CHECK(rec.value(r::SP_CS_KERNEL_GROUP_X) == 1);  // CP_EXEC_CS carries the counts
    CHECK(rec.value(r::SP_CS_KERNEL_GROUP_Y) == 1);
    CHECK(rec.value(r::SP_CS_KERNEL_GROUP_Z) == 1);
    CHECK(rec.value64(r::SP_CS_BASE) == program.code_address().value());
    CHECK(rec.value(r::SP_CS_PROGRAM_COUNTER_OFFSET) == 0);
    CHECK(rec.value(r::SP_CS_USIZE) == 0);
    // tinygrad's mode registers for ir3 programs (ops_qcom.py exec): SP_MODE_CNTL =
    // CONSTANT_DEMOTION_ENABLE | ISAMMODE_GL << 1, TPL1_MODE_CNTL = ISAMMODE_GL, CS perf mask.
    CHECK(rec.value(r::SP_MODE_CNTL) == 0x5);
    CHECK(rec.value(r::TPL1_MODE_CNTL) == 0x2);
    CHECK(rec.value(r::SP_PERFCTR_SHADER_MASK) == 0x20);
    CHECK(rec.value(r::SP_UPDATE_CNTL) == 0x60);  // CS_STATE | CS_UAV

    // The shader load: ST6_SHADER, SS6_INDIRECT, SB6_CS_SHADER, NUM_UNIT = instrlen, from the code.
    const auto loads = rec.all(Opcode::CP_LOAD_STATE6_FRAG);
    REQUIRE(loads.size() == 2);
    const std::uint32_t instrlen = hints["SP_CS_INSTR_SIZE"]["mesa_instrlen"].get<std::uint32_t>();
    CHECK(loads[0]->payload[0] == (0x00360000u | instrlen << 22));
    CHECK((loads[0]->payload[1] | std::uint64_t{loads[0]->payload[2]} << 32) == program.code_address().value());
    // The constants: ST6_CONSTANTS, SS6_INDIRECT, SB6_CS_SHADER, 4 vec4 — at least const_load_vec4_min.
    CHECK(loads[1]->payload[0] == 0x01364000u);
    CHECK((loads[1]->payload[0] >> 22) >= hints["const_load_vec4_min"].get<std::uint32_t>());
    const GpuAddress constants(loads[1]->payload[1] | std::uint64_t{loads[1]->payload[2]} << 32);
    const std::vector<std::uint32_t> words = queue_memory(queue).dwords(constants, 16);
    // c → c0.xy, a → c0.zw, b → c1.xy; the rest zero (the fixtures' fill rule).
    const std::uint64_t expected[] = {c.gpu_address().value(), a.gpu_address().value(), b.gpu_address().value()};
    for (unsigned i = 0; i < 3; ++i) {
      CHECK(words[2 * i] == static_cast<std::uint32_t>(expected[i]));
      CHECK(words[2 * i + 1] == static_cast<std::uint32_t>(expected[i] >> 32));
    }
    for (unsigned i = 6; i < 16; ++i) CHECK(words[i] == 0);

    const auto exec = rec.all(Opcode::CP_EXEC_CS);
    REQUIRE(exec.size() == 1);
    CHECK(exec[0]->payload == std::vector<std::uint32_t>{0, launch.groups[0], launch.groups[1], launch.groups[2]});
    CHECK(rec.all(Opcode::CP_RUN_OPENCL).empty());
  }
  device.close_and_check_ledger();
}

// Kills: the a740 loaded Mesa's a630 code and ran it as a7xx instructions. The fixture's JSON
// names the GPU Mesa compiled for (compiler.fd_dev_id.gpu_id 630); a7xx encodes some
// instructions differently (Mesa isaspec <gen min="700"/>), so the a740 refuses the code whether
// it comes with its file (from_ir3_fixture) or through the metadata (from_ir3), naming both GPUs.
TEST_CASE("the a740 refuses the Mesa fixtures compiled for the a630, naming both GPUs", "[virtual-kernel][program][fixture]") {
  const std::string name = GENERATE(as<std::string>{}, "scalar", "vector128", "vector32", "multigroup");
  VirtualDevice device(EACH_VIRTUAL_BACKEND() + ":a740");
  {
    const nlohmann::json json = fixture_json(name);
    REQUIRE(json["compiler"]["fd_dev_id"]["gpu_id"].get<std::uint32_t>() == 630);
    const Ir3Metadata metadata = load_ir3_metadata_json(kFixtures / (name + ".json"));
    CHECK(metadata.compiled_for_gpu_id == std::optional<std::uint32_t>(630));
    auto require_refused = [&](auto&& load) {
      try {
        load();
        FAIL("the a630 code loaded on the a740");
      } catch (const Error& error) {
        CHECK(error.code() == Errc::unsupported);
        CHECK_THAT(error.what(), Catch::Contains(name + ": compiled for Adreno 630 (a6xx), but the device is an Adreno 740 (a7xx)"));
      }
    };
    require_refused([&] { (void)Program::from_ir3_fixture(*device, kFixtures / (name + ".json")); });
    const std::vector<std::uint32_t> code(std::size_t{metadata.instrlen} * 32, 0);
    require_refused([&] { (void)Program::from_ir3(*device, code, metadata); });
    // The same metadata without the compiler's GPU is the caller's word that the code is a7xx.
    Ir3Metadata vouched = metadata;
    vouched.compiled_for_gpu_id.reset();
    CHECK_NOTHROW(Program::from_ir3(*device, code, vouched));
  }
  device.close_and_check_ledger();
}
