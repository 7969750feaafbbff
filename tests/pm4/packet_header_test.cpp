// [pure] PM4 header encoding against header dwords published by Mesa and tinygrad.
#include "pm4/packet.h"

#include <catch2/catch.hpp>

using namespace adreno::pm4;

TEST_CASE("type7 CP_NOP with no payload matches Mesa's header", "[pure][pm4]") {
  // pm4_pkt7_hdr(CP_NOP=0x10, 0): parity(0)=1 → bit 15; parity(0x10)=0.
  CHECK(type7_header(0x10, 0) == 0x70108000u);
}

TEST_CASE("type7 headers match the raw dwords quoted in Mesa's adreno_pm4.xml", "[pure][pm4]") {
  // adreno_pm4.xml (bminor/mesa-mesa 32be52a4), cffdump excerpts in the CP_LOAD_STATE4 and
  // CP_REG_TEST docs: "70b0000b" (CP_LOAD_STATE4 0x30, 11 dwords), "70b90001" (CP_REG_TEST 0x39,
  // 1 dword), "70c70002" (CP_COND_REG_EXEC 0x47, 2 dwords).
  CHECK(type7_header(0x30, 11) == 0x70b0000bu);
  CHECK(type7_header(0x39, 1) == 0x70b90001u);
  CHECK(type7_header(0x47, 2) == 0x70c70002u);
}

TEST_CASE("headers match the fixtures of tinygrad's mock-GPU PM4 decoder tests", "[pure][pm4]") {
  // tinygrad test/mockgpu/qcom/test_pm4.py (commit 37fae8c6763eed43b192e35c5f72b0b9787394c7).
  CHECK(type4_header(0x1, 2) == 0x40000102u);       // test_mixed: bytes 02010040
  CHECK(type7_header(0x26, 0) == 0x70268000u);      // test_mixed: CP_WAIT_FOR_IDLE
  CHECK(type7_header(0x10, 1) == 0x70100001u);      // test_mixed: CP_NOP with one dword
  CHECK(type4_header(0x1, 0) == 0x40000180u);       // test_zero_counts
  CHECK(type4_header(0x1, 127) == 0x4000017fu);     // test_max_counts
  CHECK(type7_header(0x26, 16383) == 0x7026bfffu);  // test_max_counts
  CHECK(type4_header(0x3ffff, 1) == 0x4bffff01u);   // test_register_boundary
  CHECK(type7_header(0x0, 0) == 0x70808000u);       // test_opcode_is_not_execution
  CHECK(type4_header(0x1, 1) == 0x40000101u);       // test_parity
}

TEST_CASE("decode_header returns what type4_header and type7_header encoded", "[pure][pm4]") {
  auto t4 = decode_header(0x4bffff01u);
  REQUIRE(t4.has_value());
  CHECK(t4->type == Header::Type::type4);
  CHECK(t4->reg_or_opcode == 0x3ffffu);
  CHECK(t4->count == 1u);
  auto t7 = decode_header(0x7026bfffu);
  REQUIRE(t7.has_value());
  CHECK(t7->type == Header::Type::type7);
  CHECK(t7->reg_or_opcode == 0x26u);
  CHECK(t7->count == 16383u);
}

TEST_CASE("a header with a flipped parity bit does not decode", "[pure][pm4]") {
  std::uint32_t good = type4_header(0xa9b0, 3);
  REQUIRE(decode_header(good).has_value());
  CHECK_FALSE(decode_header(good ^ (1u << 27)).has_value());
  CHECK_FALSE(decode_header(good ^ (1u << 7)).has_value());
  std::uint32_t good7 = type7_header(0x46, 4);
  REQUIRE(decode_header(good7).has_value());
  CHECK_FALSE(decode_header(good7 ^ (1u << 15)).has_value());
  CHECK_FALSE(decode_header(good7 ^ (1u << 23)).has_value());
}

TEST_CASE("a header with a reserved bit set does not decode", "[pure][pm4]") {
  // The reserved bits tinygrad's test_reserved_bits checks: 26 for type 4; 14 and 24-27 for type 7.
  CHECK_FALSE(decode_header(0x40000101u | (1u << 26)).has_value());
  for (unsigned bit : {14u, 24u, 25u, 26u, 27u}) {
    INFO("bit " << bit);
    CHECK_FALSE(decode_header(0x70100001u | (1u << bit)).has_value());
  }
}

TEST_CASE("dwords of other packet types are not headers", "[pure][pm4]") {
  for (std::uint32_t type : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 0xcu, 0xfu}) {
    INFO("type " << type);
    CHECK_FALSE(decode_header(type << 28).has_value());
  }
}
