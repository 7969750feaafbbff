// [virtual-gpu] The special-function unit (cat4: rcp, rsq, sqrt, log2, exp2, sin, cos) against
// references the interpreter does not use: literal correctly rounded binary32 results (computed
// with mpmath at 300 bits, rounded once to nearest even), IEEE-754 special cases, and seeded
// random inputs checked against the x87 long-double functions.
//
// Hardware's SFU is not correctly rounded and neither Mesa nor Qualcomm document its precision,
// so results are held to bounds, never to bits. Turnip is a conformant Vulkan driver on a6xx
// (tu_device.cc conformanceVersion) and maps GLSL's frcp/frsq/fsqrt/flog2/fexp2/fsin/fcos onto
// single SFU instructions (ir3_compiler_nir.c emit_alu; lower_fdiv makes a / b = a * rcp(b)), so
// the hardware meets Vulkan's precision table (appendix "Precision and Operation of SPIR-V
// Instructions"): OpFDiv 2.5 ULP; inversesqrt 2 ULP; sqrt inherited from 1.0 / inversesqrt
// (2 + 2.5 ULP); exp2 3 + 2|x| ULP; log2 3 ULP outside [0.5, 2] and absolute 2^-21 inside.
// Vulkan 1.0 leaves sin and cos undefined; the 2^-11 absolute bound on [-pi, pi] used here is an
// assumption, loose enough for any usable SFU and tight enough to catch a wrong function.
// Special values follow IEEE 754 §9.2 (Turnip reports shaderSignedZeroInfNanPreserveFloat32).
#include "virtual_gpu.h"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <numbers>
#include <random>
#include <string>

using namespace vgpu_test;

namespace {

struct Bound {
  double ulps;      // relative to the exact result
  double absolute;  // or absolute, when ulps is 0
};

struct Op {
  const char* name;
  long double (*reference)(long double);
  Bound (*bound)(float x);
  float (*draw)(std::mt19937& rng);  // an input in the domain the bound covers
};

float random_between_powers(std::mt19937& rng, int low, int high) {
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(low, high - 1);
  return std::ldexp(mantissa(rng), exponent(rng));
}
float random_sign(std::mt19937& rng, float x) { return rng() % 2 ? -x : x; }

const Op kOps[] = {
    {"rcp", [](long double x) { return 1.0L / x; }, [](float) { return Bound{2.5, 0}; },
     [](std::mt19937& rng) { return random_sign(rng, random_between_powers(rng, -126, 126)); }},
    {"rsq", [](long double x) { return 1.0L / sqrtl(x); }, [](float) { return Bound{2, 0}; },
     [](std::mt19937& rng) { return random_between_powers(rng, -126, 127); }},
    {"sqrt", [](long double x) { return sqrtl(x); }, [](float) { return Bound{4.5, 0}; },
     [](std::mt19937& rng) { return random_between_powers(rng, -126, 127); }},
    {"log2", [](long double x) { return log2l(x); },
     [](float x) { return x >= 0.5f && x <= 2.0f ? Bound{0, std::ldexp(1.0, -21)} : Bound{3, 0}; },
     [](std::mt19937& rng) { return random_between_powers(rng, -126, 127); }},
    {"exp2", [](long double x) { return exp2l(x); }, [](float x) { return Bound{3 + 2 * std::fabs(double{x}), 0}; },
     [](std::mt19937& rng) { return std::uniform_real_distribution<float>(-125.0f, 127.0f)(rng); }},
    {"sin", [](long double x) { return sinl(x); }, [](float) { return Bound{0, std::ldexp(1.0, -11)}; },
     [](std::mt19937& rng) { return std::uniform_real_distribution<float>(-std::numbers::pi_v<float>, std::numbers::pi_v<float>)(rng); }},
    {"cos", [](long double x) { return cosl(x); }, [](float) { return Bound{0, std::ldexp(1.0, -11)}; },
     [](std::mt19937& rng) { return std::uniform_real_distribution<float>(-std::numbers::pi_v<float>, std::numbers::pi_v<float>)(rng); }},
};

const Op& op_named(const std::string& name) {
  for (const Op& op : kOps)
    if (name == op.name) return op;
  FAIL("no op " << name);
  return kOps[0];
}

/// The distance between binary32 neighbours around `exact` (a normal result).
long double ulp(long double exact) {
  int exponent = 0;
  std::frexp(static_cast<double>(exact), &exponent);  // |exact| in [2^(exponent-1), 2^exponent)
  return std::ldexp(1.0L, std::max(exponent - 1, -126) - 23);
}

/// Whether `got` lies within `bound` of `exact`, with `slack` ULPs more (for literal expectations,
/// which are the exact result rounded: up to half a ULP away from it).
bool within(float got, long double exact, Bound bound, double slack) {
  if (!std::isfinite(got)) return false;
  const long double error = fabsl(static_cast<long double>(got) - exact);
  if (bound.ulps == 0) return error <= bound.absolute + slack * ulp(exact);
  return error <= (bound.ulps + slack) * ulp(exact);
}

std::vector<std::uint32_t> run(const Op& op, const std::vector<std::uint32_t>& inputs) {
  return run_per_lane(std::string(op.name) + " r3.z, r3.x", inputs, std::vector<std::uint32_t>(inputs.size()));
}

}  // namespace

TEST_CASE("SFU results lie within Vulkan's precision bounds of correctly rounded literals", "[virtual-gpu][ir3][sfu]") {
  struct Case {
    const char* op;
    std::uint32_t x, correctly_rounded;
  };
  const Case cases[] = {
      {"rcp", 0x40400000, 0x3eaaaaab},   // 1/3
      {"rcp", 0x40e00000, 0x3e124925},   // 1/7
      {"rcp", 0x3dcccccd, 0x41200000},   // 1/0.1
      {"rcp", 0xc2f6e979, 0xbc04b614},   // 1/-123.456
      {"rcp", 0x0da24260, 0x7149f2ca},   // 1/1e-30
      {"rcp", 0x7149f2ca, 0x0da24260},   // 1/1e30
      {"rcp", 0x3fc00000, 0x3f2aaaab},   // 1/1.5
      {"rcp", 0x40000000, 0x3f000000},   // 1/2 = 0.5 exactly
      {"rcp", 0xc0800000, 0xbe800000},   // 1/-4 = -0.25
      {"rsq", 0x40000000, 0x3f3504f3},   // 1/sqrt(2)
      {"rsq", 0x40400000, 0x3f13cd3a},   // 1/sqrt(3)
      {"rsq", 0x3c23d70a, 0x41200000},   // 1/sqrt(0.01)
      {"rsq", 0x41200000, 0x3ea1e89b},   // 1/sqrt(10)
      {"rsq", 0x0da24260, 0x58635fa9},   // 1/sqrt(1e-30)
      {"rsq", 0x7149f2ca, 0x26901d7d},   // 1/sqrt(1e30)
      {"rsq", 0x41800000, 0x3e800000},   // 1/sqrt(16) = 0.25
      {"sqrt", 0x40000000, 0x3fb504f3},  // sqrt(2)
      {"sqrt", 0x40400000, 0x3fddb3d7},  // sqrt(3)
      {"sqrt", 0x41200000, 0x404a62c2},  // sqrt(10)
      {"sqrt", 0x3f000000, 0x3f3504f3},  // sqrt(0.5)
      {"sqrt", 0x1e3ce508, 0x2edbe6ff},  // sqrt(1e-20)
      {"sqrt", 0x47f12064, 0x43afae9d},  // sqrt(123456.78)
      {"sqrt", 0x40800000, 0x40000000},  // sqrt(4) = 2
      {"log2", 0x40400000, 0x3fcae00d},  // log2(3)
      {"log2", 0x41200000, 0x40549a78},  // log2(10)
      {"log2", 0x3dcccccd, 0xc0549a78},  // log2(0.1)
      {"log2", 0x0da24260, 0xc2c750d1},  // log2(1e-30)
      {"log2", 0x7149f2ca, 0x42c750d1},  // log2(1e30)
      {"log2", 0x3fc00000, 0x3f15c01a},  // log2(1.5), absolute bound
      {"log2", 0x3f400000, 0xbed47fcc},  // log2(0.75), absolute bound
      {"log2", 0x41000000, 0x40400000},  // log2(8) = 3
      {"log2", 0x3e000000, 0xc0400000},  // log2(0.125) = -3
      {"exp2", 0x3f000000, 0x3fb504f3},  // 2^0.5
      {"exp2", 0xbf000000, 0x3f3504f3},  // 2^-0.5
      {"exp2", 0x3dcccccd, 0x3f892fdf},  // 2^0.1
      {"exp2", 0x4124cccd, 0x449d9625},  // 2^10.3
      {"exp2", 0xc1a5999a, 0x351d961e},  // 2^-20.7
      {"exp2", 0x42c88000, 0x719837f0},  // 2^100.25
      {"exp2", 0x40400000, 0x41000000},  // 2^3 = 8
      {"exp2", 0xc0000000, 0x3e800000},  // 2^-2 = 0.25
      {"sin", 0x3f000000, 0x3ef57744},   // sin(0.5)
      {"sin", 0x3f800000, 0x3f576aa4},   // sin(1)
      {"sin", 0xc0000000, 0xbf68c7b7},   // sin(-2)
      {"sin", 0x40400000, 0x3e1081c3},   // sin(3)
      {"sin", 0x40490fdb, 0xb3bbbd2e},   // sin(float(pi)) = -8.74e-8
      {"sin", 0x3a83126f, 0x3a83126e},   // sin(0.001)
      {"cos", 0x3f000000, 0x3f60a940},   // cos(0.5)
      {"cos", 0x3f800000, 0x3f0a5140},   // cos(1)
      {"cos", 0xc0000000, 0xbed51133},   // cos(-2)
      {"cos", 0x40400000, 0xbf7d7026},   // cos(3)
      {"cos", 0x3fc90fdb, 0xb33bbd2e},   // cos(float(pi / 2)) = -4.37e-8
      {"cos", 0x3a83126f, 0x3f7ffff8},   // cos(0.001)
  };
  for (const Op& op : kOps) {
    std::vector<std::uint32_t> inputs, expected;
    for (const Case& c : cases) {
      if (std::string(c.op) != op.name) continue;
      inputs.push_back(c.x);
      expected.push_back(c.correctly_rounded);
    }
    REQUIRE(!inputs.empty());
    inputs.resize(64, inputs.back());  // one wave
    expected.resize(64, expected.back());
    const auto got = run(op, inputs);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const float x = std::bit_cast<float>(inputs[i]), want = std::bit_cast<float>(expected[i]);
      const float result = std::bit_cast<float>(got[i]);
      INFO(op.name << "(" << x << ") = " << result << " (0x" << std::hex << got[i] << "), correctly rounded " << want << " (0x"
                   << expected[i] << ")");
      CHECK(within(result, want, op.bound(x), 0.5));
    }
  }
}

TEST_CASE("SFU results on random inputs lie within Vulkan's precision bounds of long-double references",
          "[virtual-gpu][ir3][sfu]") {
  std::mt19937 rng(0x5f0);
  for (const Op& op : kOps) {
    std::vector<std::uint32_t> inputs(256);
    for (auto& x : inputs) x = std::bit_cast<std::uint32_t>(op.draw(rng));
    const auto got = run(op, inputs);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const float x = std::bit_cast<float>(inputs[i]), result = std::bit_cast<float>(got[i]);
      const long double exact = op.reference(x);
      INFO(op.name << "(" << x << ") = " << result << ", reference " << static_cast<double>(exact));
      REQUIRE(within(result, exact, op.bound(x), 0));
    }
  }
}

TEST_CASE("SFU special values follow IEEE 754: signed infinities, zeros and NaN", "[virtual-gpu][ir3][sfu]") {
  constexpr std::uint32_t kInf = 0x7f800000, kNegInf = 0xff800000, kZero = 0, kNegZero = 0x80000000,
                          kOne = 0x3f800000, kNegOne = 0xbf800000, kNaN = 0x7fc00000, kAnyNaN = 1;  // marker
  struct Case {
    const char* op;
    std::uint32_t x, want;
  };
  const Case cases[] = {
      {"rcp", kZero, kInf},     {"rcp", kNegZero, kNegInf}, {"rcp", kInf, kZero},      {"rcp", kNegInf, kNegZero},
      {"rcp", kNaN, kAnyNaN},   {"rsq", kZero, kInf},       {"rsq", kInf, kZero},      {"rsq", kNegOne, kAnyNaN},
      {"rsq", kNaN, kAnyNaN},   {"sqrt", kZero, kZero},     {"sqrt", kInf, kInf},      {"sqrt", kNegOne, kAnyNaN},
      {"sqrt", kNaN, kAnyNaN},  {"log2", kZero, kNegInf},   {"log2", kInf, kInf},      {"log2", kOne, kZero},
      {"log2", kNegOne, kAnyNaN}, {"log2", kNaN, kAnyNaN},  {"exp2", kNegInf, kZero},  {"exp2", kInf, kInf},
      {"exp2", kZero, kOne},    {"exp2", kNaN, kAnyNaN},    {"sin", kZero, kZero},     {"sin", kNaN, kAnyNaN},
      {"cos", kZero, kOne},     {"cos", kNaN, kAnyNaN},
  };
  for (const Case& c : cases) {
    const std::uint32_t got = run(op_named(c.op), std::vector<std::uint32_t>(64, c.x))[0];
    INFO(c.op << "(0x" << std::hex << c.x << ") = 0x" << got);
    if (c.want == kAnyNaN) {
      CHECK(std::isnan(std::bit_cast<float>(got)));
    } else {
      CHECK(got == c.want);
    }
  }
}
