#include "ir3/half_float.h"

#include <bit>
#include <cmath>

namespace adreno::ir3 {

float half_to_float(std::uint16_t half) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(half >> 15) << 31;
  const unsigned exponent = (half >> 10) & 0x1f;
  const unsigned mantissa = half & 0x3ff;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                                  : std::ldexp(static_cast<float>(mantissa | 0x400),
                                               static_cast<int>(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

std::uint16_t float_to_half(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
  if (std::isnan(value)) return static_cast<std::uint16_t>(sign | 0x7e00);
  const float magnitude = std::fabs(value);
  if (magnitude >= 65520.0f) return static_cast<std::uint16_t>(sign | 0x7c00);
  if (magnitude < std::ldexp(1.0f, -14)) {  // subnormal: units of 2^-24
    const auto units = static_cast<std::uint16_t>(std::nearbyint(magnitude * std::ldexp(1.0f, 24)));
    return static_cast<std::uint16_t>(sign | units);
  }
  int exponent = 0;
  const float fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent
  auto mantissa = static_cast<std::uint32_t>(std::nearbyint(fraction * 2048.0f));  // 11 bits
  if (mantissa == 2048) {
    mantissa = 1024;
    ++exponent;
  }
  const auto biased = static_cast<std::uint32_t>(exponent - 1 + 15);
  return static_cast<std::uint16_t>(sign | (biased << 10) | (mantissa & 0x3ff));
}

}  // namespace adreno::ir3
