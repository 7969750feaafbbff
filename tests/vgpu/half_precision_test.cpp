// [virtual-gpu] Half-precision ALU results and conversions against literal IEEE-754 binary16
// encodings worked out by hand (cross-checked with Python's struct 'e' format): round to nearest
// even on ties, overflow to infinity, signed zeros, NaN. The hardware rounds f16 results to
// nearest even (Turnip tu_device.cc: shaderRoundingModeRTEFloat16) and converts correctly
// rounded (Vulkan: "conversions between types: correctly rounded").
//
// Subnormal arithmetic is left out on purpose: Turnip reports shaderDenormFlushToZeroFloat16 and
// no shaderDenormPreserveFloat16 (nor float32), so hardware may flush what the virtual GPU keeps.
#include "virtual_gpu.h"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <string>

using namespace vgpu_test;

namespace {

struct Case {
  std::uint32_t a, b, want;  // f16 operands and result in the low halves, or f32 where the op says
};

bool is_half_nan(std::uint32_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0; }
constexpr std::uint32_t kAnyNaN = 0xffffffff;

void check(const std::string& line, const std::vector<Case>& cases, bool half_result) {
  std::vector<std::uint32_t> a(64), b(64);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = cases[i % cases.size()].a;
    b[i] = cases[i % cases.size()].b;
  }
  const auto got = run_per_lane(line, a, b);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    INFO(line << std::hex << "\na=0x" << c.a << " b=0x" << c.b << " got 0x" << got[i] << " want 0x" << c.want);
    if (c.want == kAnyNaN) {
      CHECK((half_result ? is_half_nan(got[i]) : std::isnan(std::bit_cast<float>(got[i]))));
    } else {
      CHECK(got[i] == c.want);
    }
  }
}

// Halves in from the low 16 bits of r3.x / r3.y; the f16 result out as its raw bits.
const std::string kLoadHalves = "cov.u32u16 hr4.x, r3.x\ncov.u32u16 hr4.y, r3.y\n(rpt2)nop\n";
const std::string kStoreHalf = "\n(rpt2)nop\ncov.u16u32 r3.z, hr4.z";

}  // namespace

TEST_CASE("f16 addition rounds ties to even and overflows to infinity", "[virtual-gpu][ir3][alu][half]") {
  check(kLoadHalves + "add.f hr4.z, hr4.x, hr4.y" + kStoreHalf,
        {
            {0x3c00, 0x1000, 0x3c00},   // 1 + 2^-11: tie, to the even 0x3c00
            {0x3c01, 0x1000, 0x3c02},   // (1 + 2^-10) + 2^-11: tie, to the even 0x3c02
            {0x3c00, 0x1001, 0x3c01},   // just above the tie
            {0x4248, 0x4170, 0x45dc},   // 3.140625 + 2.71875 = 5.859375, exact
            {0x7bff, 0x4bff, 0x7bff},   // 65504 + 15.99: below the tie, stays finite
            {0x7bff, 0x4c00, 0x7c00},   // 65504 + 16 = 65520: tie, to even, overflows
            {0x7bff, 0x5000, 0x7c00},   // 65504 + 32 = 65536 overflows
            {0x3c00, 0xbc00, 0x0000},   // 1 - 1 = +0
            {0x8000, 0x8000, 0x8000},   // -0 + -0 = -0
            {0x7c00, 0x3c00, 0x7c00},   // inf + 1
            {0x7c00, 0xfc00, kAnyNaN},  // inf - inf
        },
        true);
}

TEST_CASE("f16 multiplication rounds ties to even and overflows to infinity", "[virtual-gpu][ir3][alu][half]") {
  check(kLoadHalves + "mul.f hr4.z, hr4.x, hr4.y" + kStoreHalf,
        {
            {0x3c01, 0x3c01, 0x3c02},   // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: rounds to 1 + 2^-9
            {0x3c01, 0x3e00, 0x3e02},   // (1 + 2^-10) * 1.5 = 1.5 + 1.5 ULP: tie, to even
            {0x3e00, 0x3e00, 0x4080},   // 1.5 * 1.5 = 2.25
            {0x5bff, 0x5bff, 0x7bfe},   // 255.875^2 = 65472.016: rounds to 65472
            {0x5c00, 0x5c00, 0x7c00},   // 256 * 256 = 65536 overflows
            {0xc000, 0x3800, 0xbc00},   // -2 * 0.5 = -1
            {0x0400, 0x3c00, 0x0400},   // the smallest normal times 1
            {0x7c00, 0x0000, kAnyNaN},  // inf * 0
        },
        true);
}

TEST_CASE("f32 to f16 conversion rounds ties to even, overflows to infinity and keeps NaN and -0",
          "[virtual-gpu][ir3][alu][half]") {
  check("cov.f32f16 hr4.z, r3.x" + kStoreHalf,
        {
            {0x3f801000, 0, 0x3c00},   // 1 + 2^-11: tie, to even
            {0x3f803000, 0, 0x3c02},   // 1 + 3 * 2^-11: tie, to even
            {0x3f801001, 0, 0x3c01},   // above the tie
            {0x3dcccccd, 0, 0x2e66},   // 0.1
            {0x40490fdb, 0, 0x4248},   // pi
            {0x477fef80, 0, 0x7bff},   // 65519.5: nearer 65504
            {0x477ff000, 0, 0x7c00},   // 65520: tie, to even, overflows
            {0xd01502f9, 0, 0xfc00},   // -1e10
            {0x80000000, 0, 0x8000},   // -0
            {0x7fc00000, 0, kAnyNaN},  // NaN
        },
        true);
}

TEST_CASE("f16 to f32 conversion is exact", "[virtual-gpu][ir3][alu][half]") {
  check("cov.u32u16 hr4.x, r3.x\n(rpt2)nop\ncov.f16f32 r3.z, hr4.x",
        {
            {0x3555, 0, 0x3eaaa000},   // 0.333251953125
            {0x7bff, 0, 0x477fe000},   // 65504
            {0x0400, 0, 0x38800000},   // 2^-14
            {0xfc00, 0, 0xff800000},   // -inf
            {0x8000, 0, 0x80000000},   // -0
            {0xc000, 0, 0xc0000000},   // -2
            {0x7e00, 0, kAnyNaN},      // NaN
        },
        false);
}
