// [pure] PM4 header encoding against header dwords that Mesa and tinygrad emit.
#include "pm4/packet.h"

#include <catch2/catch.hpp>

using namespace adreno::pm4;

TEST_CASE("type7 CP_NOP with no payload matches Mesa's header", "[pure][pm4]") {
  // pm4_pkt7_hdr(CP_NOP=0x10, 0): parity(0)=1 → bit 15; parity(0x10)=0.
  CHECK(type7_header(0x10, 0) == 0x70108000u);
}

TEST_CASE("a header with a flipped parity bit does not decode", "[pure][pm4]") {
  std::uint32_t good = type4_header(0xa9b0, 3);
  REQUIRE(decode_header(good).has_value());
  CHECK_FALSE(decode_header(good ^ (1u << 27)).has_value());
  CHECK_FALSE(decode_header(good ^ (1u << 7)).has_value());
}
