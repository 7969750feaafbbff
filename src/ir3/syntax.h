// The names the text syntax gives to encoded values: the enums of Mesa's ir3-common.xml and
// ir3-cat*.xml (commits in opcodes.h). The codec also reads them to tell which encoded values
// are defined at all.
#pragma once

#include <array>

namespace adreno::ir3::syntax {

inline constexpr const char* kSwizzle = "xyzw";

/// #type, indexed by the 3-bit type field; atomics show 6 as u64 (#type-atomic).
inline constexpr std::array<const char*, 8> kTypes = {"f16", "f32", "u16", "u32",
                                                      "s16", "s32", "u8",  "u8_32"};
inline constexpr const char* kAtomicType6 = "u64";

/// #cond: cat2 compare conditions; 6 and 7 are undefined.
inline constexpr std::array<const char*, 6> kConditions = {"lt", "le", "gt", "ge", "eq", "ne"};

/// #round: cat1 rounding modes.
inline constexpr std::array<const char*, 4> kRounding = {"", "(even)", "(pos_infinity)",
                                                         "(neg_infinity)"};

/// #flut: the float lookup table of cat2/cat4 immediates, shown in parentheses.
inline constexpr std::array<const char*, 12> kFloatTable = {
    "0.0",  "0.5",       "1.0",     "2.0",        "e",        "pi",
    "1/pi", "1/log2(e)", "log2(e)", "1/log2(10)", "log2(10)", "4.0"};

/// #cat6-shfl-mode; empty names are undefined modes.
inline constexpr std::array<const char*, 8> kShuffleModes = {"", "xor", "up",  "down",
                                                             "", "",    "rup", "rdown"};

/// #cat6-src-mode: how a6xx cat6 instructions find their descriptor; 3 is undefined.
inline constexpr std::array<const char*, 3> kDescriptorModes = {"imm", "uniform", "nonuniform"};

}  // namespace adreno::ir3::syntax
