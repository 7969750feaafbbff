#include "alloc/range_allocator.h"

#include <cassert>

namespace adreno {

RangeAllocator::RangeAllocator(std::uint64_t base, std::uint64_t size)
    : base_(base), size_(size), free_bytes_(size) {
  if (size > 0) free_.emplace(base, size);
}

std::optional<std::uint64_t> RangeAllocator::allocate(std::uint64_t size, std::uint64_t align) {
  if (size == 0 || align == 0 || (align & (align - 1)) != 0) return std::nullopt;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const auto [start, length] = *it;
    const std::uint64_t aligned = (start + align - 1) & ~(align - 1);
    if (aligned < start || aligned - start > length || length - (aligned - start) < size) continue;
    const std::uint64_t head = aligned - start;
    const std::uint64_t tail = length - head - size;
    free_.erase(it);
    if (head > 0) free_.emplace(start, head);
    if (tail > 0) free_.emplace(aligned + size, tail);
    free_bytes_ -= size;
    return aligned;
  }
  return std::nullopt;
}

void RangeAllocator::free(std::uint64_t start, std::uint64_t size) {
  assert(start >= base_ && start + size <= base_ + size_);
  auto next = free_.lower_bound(start);
  // Merge with the free range that ends where this one starts.
  if (next != free_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == start) {
      start = previous->first;
      size += previous->second;
      free_bytes_ -= previous->second;
      free_.erase(previous);
    }
  }
  // Merge with the free range that starts where this one ends.
  if (next != free_.end() && start + size == next->first) {
    size += next->second;
    free_bytes_ -= next->second;
    free_.erase(next);
  }
  free_.emplace(start, size);
  free_bytes_ += size;
}

}  // namespace adreno
