// ir3 register ids, as Mesa reports them and as the compute registers take them. In a header of
// its own so that the library's ir3 assembler shares the definition without including the rest
// of the public API (whose adreno::Program would collide with adreno::ir3::Program wherever both
// namespaces are used).
#pragma once

#include <cstdint>

namespace adreno {

/// An ir3 register id is 4·register + component (r0.x = 0, r48.x = 192).
/// kUnusedRegid (0xfc, r63.x) means "the program does not read this value".
inline constexpr std::uint32_t kUnusedRegid = 0xfc;

}  // namespace adreno
