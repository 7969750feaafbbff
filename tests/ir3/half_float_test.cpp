// [pure] The IEEE-754 binary16 conversions behind f16 immediates and the virtual GPU's half
// registers, against literal binary16 encodings (IEEE 754-2008 §3.6 binary16: 1 sign, 5 exponent
// bits of bias 15, 10 fraction bits; round to nearest, ties to even). Every pair below was worked
// out by hand and cross-checked with Python's struct 'e' format.
#include "ir3/half_float.h"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>

using adreno::ir3::float_to_half;
using adreno::ir3::half_to_float;

namespace {
float f(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits(float value) { return std::bit_cast<std::uint32_t>(value); }
}  // namespace

TEST_CASE("single to half rounds to nearest even, keeps subnormals, overflows to infinity and keeps NaN",
          "[pure][ir3][half]") {
  struct Case {
    std::uint32_t single;
    std::uint16_t half;
    const char* why;
  };
  const Case cases[] = {
      {0x3f800000, 0x3c00, "1"},
      {0x3f801000, 0x3c00, "1 + 2^-11: a tie between 0x3c00 and 0x3c01 goes to the even 0x3c00"},
      {0x3f803000, 0x3c02, "1 + 3 * 2^-11: a tie between 0x3c01 and 0x3c02 goes to the even 0x3c02"},
      {0x3f801001, 0x3c01, "just above the tie rounds up"},
      {0x3dcccccd, 0x2e66, "0.1"},
      {0x40490fdb, 0x4248, "pi"},
      {0x477fe000, 0x7bff, "65504, the largest half"},
      {0x477fef80, 0x7bff, "65519.5 is nearer 65504"},
      {0x477ff000, 0x7c00, "65520: the tie with 65536 goes to even, which overflows to infinity"},
      {0x501502f9, 0x7c00, "1e10 overflows"},
      {0xd01502f9, 0xfc00, "-1e10 overflows to -infinity"},
      {0x7f800000, 0x7c00, "infinity"},
      {0xff800000, 0xfc00, "-infinity"},
      {0x80000000, 0x8000, "-0 keeps its sign"},
      {0x38800000, 0x0400, "2^-14, the smallest normal half"},
      {0x387fc000, 0x03ff, "2^-14 - 2^-24, the largest subnormal"},
      {0x387fe000, 0x0400, "2^-14 - 2^-25: a tie between 0x03ff and 0x0400 goes to the even 0x0400"},
      {0x33800000, 0x0001, "2^-24, the smallest subnormal"},
      {0xb3800000, 0x8001, "-2^-24"},
      {0x33c00000, 0x0002, "3 * 2^-25: a tie between 1 and 2 units goes to 2"},
      {0x33000000, 0x0000, "2^-25: a tie between 0 and 1 unit goes to 0"},
      {0x322bcc77, 0x0000, "1e-8 is below half a unit"},
  };
  for (const Case& c : cases) {
    INFO(c.why);
    CHECK(float_to_half(f(c.single)) == c.half);
  }
  for (std::uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xffc00000u}) {
    const std::uint16_t half = float_to_half(f(nan));
    INFO(std::hex << nan << " -> " << half);
    CHECK((half & 0x7c00) == 0x7c00);  // NaN: exponent all ones, fraction not zero
    CHECK((half & 0x03ff) != 0);
    CHECK((half & 0x8000) == ((nan >> 16) & 0x8000));
  }
}

TEST_CASE("half to single is exact for normals, subnormals, zeros and infinities", "[pure][ir3][half]") {
  struct Case {
    std::uint16_t half;
    std::uint32_t single;
  };
  const Case cases[] = {
      {0x3c00, 0x3f800000}, {0x3555, 0x3eaaa000}, {0x7bff, 0x477fe000}, {0x0400, 0x38800000},
      {0x03ff, 0x387fc000}, {0x0001, 0x33800000}, {0x8001, 0xb3800000}, {0x0000, 0x00000000},
      {0x8000, 0x80000000}, {0x7c00, 0x7f800000}, {0xfc00, 0xff800000}, {0xc000, 0xc0000000},
  };
  for (const Case& c : cases) {
    INFO(std::hex << c.half);
    CHECK(bits(half_to_float(c.half)) == c.single);
  }
  for (std::uint16_t nan : {std::uint16_t{0x7e00}, std::uint16_t{0x7c01}, std::uint16_t{0xfe00}}) CHECK(std::isnan(half_to_float(nan)));
}
