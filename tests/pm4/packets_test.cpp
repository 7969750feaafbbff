// [pure] Packet builders emit the dwords adreno_pm4.xml and a6xx.xml describe. Expected payloads
// are worked out by hand from the XML bit ranges (and, where noted, compared with what tinygrad's
// ops_qcom.py or Mesa's computerator emit), not computed through the register database.
#include "pm4/packets.h"

#include <vector>

#include <catch2/catch.hpp>

#include <adreno/error.hpp>

#include "fake_gpu_memory.h"
#include "pm4/a6xx_registers.h"

using namespace adreno;
using namespace adreno::pm4;
using adreno::pm4::testing::FakeGpuMemory;

namespace {

// Builds with `emit` and returns the single IB's dwords.
template <typename Emit>
std::vector<std::uint32_t> build(Emit emit) {
  FakeGpuMemory memory(1024);
  CommandStream cs(memory);
  emit(cs);
  std::span<const IbRange> ibs = cs.finish();
  REQUIRE(ibs.size() == 1);
  std::vector<std::uint32_t> words(ibs[0].dwords);
  REQUIRE(memory.read(ibs[0].gpu, words));
  return words;
}

std::uint32_t t7(std::uint32_t opcode, std::uint32_t count) { return type7_header(opcode, count); }
constexpr GpuAddress kAddress(0x0000'0001'2345'6780);

}  // namespace

TEST_CASE("wait and marker packets", "[pure][pm4]") {
  CHECK(build([](CommandStream& cs) { wait_for_idle(cs); }) == std::vector<std::uint32_t>{0x70268000});
  CHECK(build([](CommandStream& cs) { wait_for_me(cs); }) == std::vector<std::uint32_t>{t7(0x13, 0)});
  CHECK(build([](CommandStream& cs) { wait_mem_writes(cs); }) == std::vector<std::uint32_t>{t7(0x12, 0)});
  // CP_SET_MARKER(RM6_COMPUTE = 8), as tinygrad emits at the start of every dispatch.
  CHECK(build([](CommandStream& cs) { set_marker(cs, Marker::RM6_COMPUTE); }) ==
        std::vector<std::uint32_t>{t7(0x65, 1), 8});
  CHECK(build([](CommandStream& cs) { nop(cs, 2); }) == std::vector<std::uint32_t>{t7(0x10, 2), 0, 0});
}

TEST_CASE("CP_EVENT_WRITE with and without a memory write", "[pure][pm4]") {
  // tinygrad: CP_EVENT_WRITE, CACHE_FLUSH_TS, addr lo, addr hi, value.
  CHECK(build([](CommandStream& cs) { event_write(cs, EventType::CACHE_FLUSH_TS, kAddress, 42); }) ==
        std::vector<std::uint32_t>{t7(0x46, 4), 0x04, 0x23456780, 0x1, 42});
  // tinygrad: CP_EVENT_WRITE, CACHE_INVALIDATE (0x31).
  CHECK(build([](CommandStream& cs) { event_write(cs, EventType::CACHE_INVALIDATE); }) ==
        std::vector<std::uint32_t>{t7(0x46, 1), 0x31});
  // TIMESTAMP is bit 30, IRQ bit 31.
  CHECK(build([](CommandStream& cs) { event_write(cs, EventType::RB_DONE_TS, kAddress, 0, true, true); })[1] ==
        0xc0000016u);
}

TEST_CASE("memory write, wait and copy packets", "[pure][pm4]") {
  const std::uint32_t data[2] = {7, 9};
  CHECK(build([&](CommandStream& cs) { mem_write(cs, kAddress, data); }) ==
        std::vector<std::uint32_t>{t7(0x3d, 4), 0x23456780, 0x1, 7, 9});
  // tinygrad's wait: FUNCTION = WRITE_GE (5), POLL = POLL_MEMORY (1 << 4), ref, mask, delay.
  CHECK(build([](CommandStream& cs) { wait_mem(cs, CondFunction::WRITE_GE, kAddress, 5, 0xffffffff, 32); }) ==
        std::vector<std::uint32_t>{t7(0x3c, 6), 0x15, 0x23456780, 0x1, 5, 0xffffffff, 32});
  CHECK(build([](CommandStream& cs) { wait_mem_gte(cs, kAddress, 3); }) ==
        std::vector<std::uint32_t>{t7(0x14, 4), 0, 0x23456780, 0x1, 3});
  // tinygrad's timestamp: REG = CP_ALWAYS_ON_COUNTER (0x980), CNT = 2 (bits 18..29), 64B (bit 30).
  CHECK(build([](CommandStream& cs) { reg_to_mem(cs, a6xx::CP_ALWAYS_ON_COUNTER.offset, 2, kAddress, true); }) ==
        std::vector<std::uint32_t>{t7(0x3e, 3), 0x980 | (2u << 18) | (1u << 30), 0x23456780, 0x1});
  const GpuAddress sources[2] = {GpuAddress(0x1000), GpuAddress(0x2000)};
  CHECK(build([&](CommandStream& cs) { mem_to_mem(cs, kAddress, sources, {.negate = 0b10, .double_width = true}); }) ==
        std::vector<std::uint32_t>{t7(0x73, 7), (1u << 29) | 0b10, 0x23456780, 0x1, 0x1000, 0, 0x2000, 0});
}

TEST_CASE("CP_LOAD_STATE6_FRAG from memory and inline", "[pure][pm4]") {
  // ST6_SHADER (0 << 14) | SS6_INDIRECT (2 << 16) | SB6_CS_SHADER (0xd << 18) | NUM_UNIT 2 (<< 22),
  // the shader load computerator and tinygrad emit.
  CHECK(build([](CommandStream& cs) {
          load_state6_frag(cs, {StateType::ST6_SHADER, StateBlock::SB6_CS_SHADER, 0, 2}, kAddress);
        }) == std::vector<std::uint32_t>{t7(0x34, 3), 0x00b60000, 0x23456780, 0x1});
  // ST6_CONSTANTS (1 << 14) | SS6_DIRECT | SB6_CS_SHADER | NUM_UNIT 1, DST_OFF 4: computerator's
  // emit_const with the data after a zero EXT_SRC_ADDR.
  const std::uint32_t vec4[4] = {1, 2, 3, 4};
  CHECK(build([&](CommandStream& cs) {
          load_state6_frag(cs, {StateType::ST6_CONSTANTS, StateBlock::SB6_CS_SHADER, 4, 1}, vec4);
        }) == std::vector<std::uint32_t>{t7(0x34, 7), 0x00744004, 0, 0, 1, 2, 3, 4});
  CHECK_THROWS_AS(build([](CommandStream& cs) {
                    load_state6_frag(cs, {StateType::ST6_UAV, StateBlock::SB6_CS_SHADER, 0, 1024}, kAddress);
                  }),
                  Error);
}

TEST_CASE("dispatch and indirect-buffer packets", "[pure][pm4]") {
  CHECK(build([](CommandStream& cs) { exec_cs(cs, 4, 2, 1); }) ==
        std::vector<std::uint32_t>{t7(0x33, 4), 0, 4, 2, 1});
  CHECK(build([](CommandStream& cs) { run_opencl(cs); }) == std::vector<std::uint32_t>{t7(0x31, 1), 0});
  CHECK(build([](CommandStream& cs) { indirect_buffer(cs, kAddress, 100); }) ==
        std::vector<std::uint32_t>{t7(0x3f, 3), 0x23456780, 0x1, 100});
  CHECK_THROWS_AS(build([](CommandStream& cs) { indirect_buffer(cs, kAddress, 0x100000); }), Error);
}

TEST_CASE("register writes use the database's offsets, widths and fields", "[pure][pm4]") {
  CHECK(build([](CommandStream& cs) { write_register(cs, a6xx::SP_CS_BASE, 0x0000'0001'0000'2000); }) ==
        std::vector<std::uint32_t>{type4_header(0xa9b4, 2), 0x2000, 0x1});
  // tinygrad: SP_UPDATE_CNTL(cs_state, cs_uav) = 0x60 (HLSQ_INVALIDATE_CMD 0x60 in older tinygrad).
  CHECK(build([](CommandStream& cs) { write_register(cs, a6xx::SP_UPDATE_CNTL, {{"CS_STATE", 1}, {"CS_UAV", 1}}); }) ==
        std::vector<std::uint32_t>{type4_header(0xbb08, 1), 0x60});
  CHECK(build([](CommandStream& cs) { write_register(cs, a6xx::SP_CS_BINDLESS_BASE, 0x3, 2); })[0] ==
        type4_header(0xa9e8 + 4, 2));
  CHECK_THROWS_AS(build([](CommandStream& cs) { write_register(cs, a6xx::SP_CS_USIZE, {{"", 128}}); }), Error);
  CHECK_THROWS_AS(build([](CommandStream& cs) { write_register(cs, a6xx::SP_CS_BINDLESS_BASE, 0x3, 5); }), Error);
  CHECK_THROWS_AS(build([](CommandStream& cs) { write_register(cs, a6xx::SP_CS_CNTL_0, 1ull << 32); }), Error);
}
