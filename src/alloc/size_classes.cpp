#include "alloc/size_classes.h"

#include <bit>

namespace adreno {

std::uint64_t size_class(std::uint64_t size) {
  if (size <= 4 * kPageBytes) return (size + kPageBytes - 1) / kPageBytes * kPageBytes;
  // Quarter steps of the power of two at or below size.
  const std::uint64_t power = std::bit_floor(size);
  const std::uint64_t quarter = power / 4;
  return (size + quarter - 1) / quarter * quarter;
}

}  // namespace adreno
