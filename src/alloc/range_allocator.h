// Hands out aligned sub-ranges of one contiguous range [base, base+size): the sub-allocator's
// slabs and the virtual GPU's VA space both use it. First fit over an address-ordered free list;
// freed ranges merge with their neighbours, so fragmentation stays bounded by the live set.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace adreno {

class RangeAllocator {
 public:
  RangeAllocator(std::uint64_t base, std::uint64_t size);

  /// An offset-aligned range of `size` bytes (`align` a power of two), or nullopt when no free
  /// range is large enough.
  std::optional<std::uint64_t> allocate(std::uint64_t size, std::uint64_t align);
  /// Returns a range obtained from allocate(); `size` must be the size it was allocated with.
  void free(std::uint64_t start, std::uint64_t size);

  std::uint64_t base() const noexcept { return base_; }
  std::uint64_t size() const noexcept { return size_; }
  std::uint64_t free_bytes() const noexcept { return free_bytes_; }
  bool empty() const noexcept { return free_bytes_ == size_; }

 private:
  std::uint64_t base_;
  std::uint64_t size_;
  std::uint64_t free_bytes_;
  std::map<std::uint64_t, std::uint64_t> free_;  // start → length, address-ordered
};

}  // namespace adreno
