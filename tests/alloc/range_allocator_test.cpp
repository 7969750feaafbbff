// [pure] The range allocator against a bitmap model of which bytes are taken.
#include "alloc/range_allocator.h"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using adreno::RangeAllocator;

TEST_CASE("random allocate/free never hands out a taken byte and merges back to one range", "[pure][alloc]") {
  constexpr std::uint64_t kBase = 0x10000, kSize = 1 << 16;
  RangeAllocator ranges(kBase, kSize);
  std::vector<bool> taken(kSize, false);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> live;
  std::mt19937_64 rng(42);
  for (int step = 0; step < 5000; ++step) {
    if (live.empty() || rng() % 2 == 0) {
      const std::uint64_t size = 1 + rng() % 2048;
      const std::uint64_t align = 1ull << (rng() % 9);
      auto start = ranges.allocate(size, align);
      if (!start) continue;
      REQUIRE(*start % align == 0);
      REQUIRE(*start >= kBase);
      REQUIRE(*start + size <= kBase + kSize);
      for (std::uint64_t i = *start - kBase; i < *start - kBase + size; ++i) {
        REQUIRE_FALSE(taken[i]);
        taken[i] = true;
      }
      live.emplace_back(*start, size);
    } else {
      const auto index = rng() % live.size();
      auto [start, size] = live[index];
      for (std::uint64_t i = start - kBase; i < start - kBase + size; ++i) taken[i] = false;
      ranges.free(start, size);
      live.erase(live.begin() + static_cast<long>(index));
    }
    std::uint64_t used = 0;
    for (auto [start, size] : live) used += size;
    REQUIRE(ranges.free_bytes() == kSize - used);
  }
  for (auto [start, size] : live) ranges.free(start, size);
  CHECK(ranges.empty());
  // Fully merged: the whole range can be taken in one piece again.
  CHECK(ranges.allocate(kSize, 1) == kBase);
}

TEST_CASE("a request larger than any free range is refused", "[pure][alloc]") {
  RangeAllocator ranges(0, 4096);
  auto a = ranges.allocate(1024, 1);
  auto b = ranges.allocate(1024, 1);
  REQUIRE(a);
  REQUIRE(b);
  ranges.free(*a, 1024);
  CHECK_FALSE(ranges.allocate(3072, 1));  // 1024 free + 2048 free, not contiguous
  CHECK(ranges.allocate(2048, 1));
  CHECK_FALSE(ranges.allocate(0, 1));
  CHECK_FALSE(ranges.allocate(16, 3));
}
