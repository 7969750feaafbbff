// [virtual-gpu] Per-instruction semantics: each ALU instruction runs over seeded random inputs
// (with NaN, infinities, signed zeros, denormals, integer extremes mixed in) for a whole wave and
// every result is compared with a scalar host reference written here from the ISA's meaning
// (Mesa ir3-cat2/3/4.xml, nir_opcodes.py for the ops NIR maps onto them).
#include "virtual_gpu.h"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <functional>
#include <random>
#include <string>

using namespace vgpu_test;

namespace {

constexpr std::uint32_t kLanes = 256;  // four THREAD64 waves

std::uint32_t f2u(float f) { return std::bit_cast<std::uint32_t>(f); }
float u2f(std::uint32_t u) { return std::bit_cast<float>(u); }

// Random 32-bit inputs: a quarter of them special values.
std::vector<std::uint32_t> inputs(std::mt19937& rng, bool floats) {
  static const std::uint32_t kSpecialFloats[] = {
      f2u(0.0f), f2u(-0.0f), f2u(1.0f), f2u(-1.0f), f2u(0.5f), f2u(2.5f), f2u(-2.5f), f2u(3.5f),
      0x7f800000u /* inf */, 0xff800000u /* -inf */, 0x7fc00000u /* NaN */, 0x00000001u /* denormal */,
      0x807fffffu /* -denormal */, 0x7f7fffffu /* max */, f2u(1e10f), f2u(-1e10f), f2u(4294967296.0f)};
  static const std::uint32_t kSpecialInts[] = {0, 1, 2, 31, 32, 33, 63, 0x7fffffffu, 0x80000000u, 0xffffffffu,
                                              0xfffffffeu, 0x00ffffffu, 0x00800000u, 0xffff0000u, 0x0000ffffu};
  std::vector<std::uint32_t> out(kLanes);
  std::uniform_real_distribution<float> real(-1000.0f, 1000.0f);
  for (auto& v : out) {
    if (rng() % 4 == 0) {
      v = floats ? kSpecialFloats[rng() % std::size(kSpecialFloats)] : kSpecialInts[rng() % std::size(kSpecialInts)];
    } else {
      v = floats && rng() % 2 ? f2u(real(rng)) : static_cast<std::uint32_t>(rng());
    }
  }
  return out;
}

struct Case {
  const char* line;  // uses r3.x (a), r3.y (b), writes r3.z
  bool floats;
  std::function<std::uint32_t(std::uint32_t, std::uint32_t)> reference;
};

bool same_result(std::uint32_t got, std::uint32_t want, bool floats) {
  if (floats && std::isnan(u2f(got)) && std::isnan(u2f(want))) return true;  // any NaN payload
  return got == want;
}

float ff(std::uint32_t x) { return u2f(x); }

}  // namespace

TEST_CASE("cat2, cat3 and cat4 instructions match a scalar host reference", "[virtual-gpu][ir3][alu]") {
  const std::vector<Case> cases = {
      {"add.f r3.z, r3.x, r3.y", true, [](auto a, auto b) { return f2u(ff(a) + ff(b)); }},
      {"mul.f r3.z, r3.x, r3.y", true, [](auto a, auto b) { return f2u(ff(a) * ff(b)); }},
      {"add.f r3.z, (neg)r3.x, (abs)r3.y", true, [](auto a, auto b) { return f2u(-ff(a) + std::fabs(ff(b))); }},
      {"min.f r3.z, r3.x, r3.y", true, [](auto a, auto b) { return f2u(std::fmin(ff(a), ff(b))); }},
      {"max.f r3.z, r3.x, r3.y", true, [](auto a, auto b) { return f2u(std::fmax(ff(a), ff(b))); }},
      {"floor.f r3.z, r3.x", true, [](auto a, auto) { return f2u(std::floor(ff(a))); }},
      {"ceil.f r3.z, r3.x", true, [](auto a, auto) { return f2u(std::ceil(ff(a))); }},
      {"trunc.f r3.z, r3.x", true, [](auto a, auto) { return f2u(std::trunc(ff(a))); }},
      {"rndne.f r3.z, r3.x", true, [](auto a, auto) { return f2u(std::nearbyint(ff(a))); }},
      {"rndaz.f r3.z, r3.x", true, [](auto a, auto) { return f2u(std::round(ff(a))); }},
      {"sign.f r3.z, r3.x", true,
       [](auto a, auto) { return f2u(ff(a) > 0 ? 1.0f : ff(a) < 0 ? -1.0f : ff(a)); }},
      {"cmps.f.lt r3.z, r3.x, r3.y", true, [](auto a, auto b) { return std::uint32_t{ff(a) < ff(b)}; }},
      {"cmps.f.ne r3.z, r3.x, r3.y", true, [](auto a, auto b) { return std::uint32_t{ff(a) != ff(b)}; }},
      {"add.u r3.z, r3.x, r3.y", false, [](auto a, auto b) { return a + b; }},
      {"sub.u r3.z, r3.x, r3.y", false, [](auto a, auto b) { return a - b; }},
      {"min.s r3.z, r3.x, r3.y", false,
       [](auto a, auto b) { return static_cast<std::uint32_t>(std::min(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b))); }},
      {"max.u r3.z, r3.x, r3.y", false, [](auto a, auto b) { return std::max(a, b); }},
      {"cmps.s.ge r3.z, r3.x, r3.y", false,
       [](auto a, auto b) { return std::uint32_t{static_cast<std::int32_t>(a) >= static_cast<std::int32_t>(b)}; }},
      {"cmps.u.lt r3.z, r3.x, r3.y", false, [](auto a, auto b) { return std::uint32_t{a < b}; }},
      {"and.b r3.z, r3.x, r3.y", false, [](auto a, auto b) { return a & b; }},
      {"or.b r3.z, r3.x, r3.y", false, [](auto a, auto b) { return a | b; }},
      {"xor.b r3.z, r3.x, r3.y", false, [](auto a, auto b) { return a ^ b; }},
      {"not.b r3.z, r3.x", false, [](auto a, auto) { return ~a; }},
      // Shift amounts beyond the width use their low five bits (NIR ishl/ushr/ishr semantics,
      // which Mesa emits as plain shl.b/shr.b/ashr.b).
      {"shl.b r3.z, r3.x, r3.y", false, [](auto a, auto b) { return a << (b & 31); }},
      {"shr.b r3.z, r3.x, r3.y", false, [](auto a, auto b) { return a >> (b & 31); }},
      {"ashr.b r3.z, r3.x, r3.y", false,
       [](auto a, auto b) { return static_cast<std::uint32_t>(static_cast<std::int32_t>(a) >> (b & 31)); }},
      {"mul.u24 r3.z, r3.x, r3.y", false, [](auto a, auto b) { return (a & 0xffffff) * (b & 0xffffff); }},
      {"mul.s24 r3.z, r3.x, r3.y", false,
       [](auto a, auto b) {
         auto s24 = [](std::uint32_t v) { return static_cast<std::int64_t>(static_cast<std::int32_t>(v << 8) >> 8); };
         return static_cast<std::uint32_t>(s24(a) * s24(b));
       }},
      {"mull.u r3.z, r3.x, r3.y", false, [](auto a, auto b) { return (a & 0xffff) * (b & 0xffff); }},
      {"cbits.b r3.z, r3.x", false, [](auto a, auto) { return static_cast<std::uint32_t>(std::popcount(a)); }},
      {"clz.b r3.z, r3.x", false, [](auto a, auto) { return static_cast<std::uint32_t>(std::countl_zero(a)); }},
      {"bfrev.b r3.z, r3.x", false,
       [](auto a, auto) {
         std::uint32_t r = 0;
         for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i);
         return r;
       }},
      {"getbit.b r3.z, r3.x, r3.y", false, [](auto a, auto b) { return (a >> (b & 31)) & 1; }},
      {"absneg.s r3.z, (neg)r3.x", false, [](auto a, auto) { return 0u - a; }},
      // cat3
      {"mad.f32 r3.z, r3.x, r3.y, r3.x", true, [](auto a, auto b) {
         const volatile float product = ff(a) * ff(b);  // rounded before the add
         return f2u(product + ff(a));
       }},
      {"mad.u24 r3.z, r3.x, r3.y, r3.x", false, [](auto a, auto b) { return (a & 0xffffff) * (b & 0xffffff) + a; }},
      {"sel.b32 r3.z, r3.x, r3.y, r3.y", false, [](auto a, auto b) { return b ? a : b; }},
      {"shrg r3.z, r3.y, r3.x, r3.y", false, [](auto a, auto b) { return (a >> (b & 31)) | b; }},
      {"shlm r3.z, r3.y, r3.x, r3.y", false, [](auto a, auto b) { return (a << (b & 31)) & b; }},
      {"andg r3.z, r3.y, r3.x, r3.x", false, [](auto a, auto b) { return (a & b) | a; }},
      {"madsh.m16 r3.z, r3.x, r3.y, r3.x", false, [](auto a, auto b) { return (((a >> 16) * (b & 0xffff)) << 16) + a; }},
      // cat4 (the SFU) has its own test with documented precision bounds: sfu_precision_test.cpp.
      // cat1 conversions: float to integer truncates and saturates, NaN gives 0.
      {"cov.f32s32 r3.z, r3.x", true,
       [](auto a, auto) -> std::uint32_t {
         const float f = ff(a);
         if (std::isnan(f)) return 0;
         if (f >= 2147483648.0f) return 0x7fffffffu;
         if (f <= -2147483648.0f) return 0x80000000u;
         return static_cast<std::uint32_t>(static_cast<std::int32_t>(f));
       }},
      {"cov.f32u32 r3.z, r3.x", true,
       [](auto a, auto) -> std::uint32_t {
         const float f = ff(a);
         if (std::isnan(f) || f <= 0) return 0;
         if (f >= 4294967296.0f) return 0xffffffffu;
         return static_cast<std::uint32_t>(f);
       }},
      {"cov.s32f32 r3.z, r3.x", false, [](auto a, auto) { return f2u(static_cast<float>(static_cast<std::int32_t>(a))); }},
      {"cov.u32f32 r3.z, r3.x", false, [](auto a, auto) { return f2u(static_cast<float>(a)); }},
  };
  std::mt19937 rng(20261202);
  for (const Case& c : cases) {
    const auto a = inputs(rng, c.floats), b = inputs(rng, c.floats);
    const auto got = run_per_lane(c.line, a, b);
    for (std::uint32_t i = 0; i < kLanes; ++i) {
      const std::uint32_t want = c.reference(a[i], b[i]);
      INFO(c.line << " lane " << i << std::hex << " a=0x" << a[i] << " b=0x" << b[i] << " got 0x" << got[i] << " want 0x" << want);
      REQUIRE(same_result(got[i], want, c.floats && std::string(c.line).find("cmps") == std::string::npos &&
                                            std::string(c.line).find("cov.f32") == std::string::npos));
    }
  }
}
