// IEEE half <-> single conversion for the f16 immediates of cat1 (mov.f16f16 hr0.x, h(0.5)).
#pragma once

#include <cstdint>

namespace adreno::ir3 {

float half_to_float(std::uint16_t half) noexcept;
/// Rounds to nearest even; values outside the half range become infinity.
std::uint16_t float_to_half(float value) noexcept;

}  // namespace adreno::ir3
