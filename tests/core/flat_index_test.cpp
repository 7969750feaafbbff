// [pure] FlatIndex, the position lookup submissions list their objects with: against std::map
// over random keys shaped like object addresses and handles, across growth and reuse.
#include "kernel/flat_index.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>

using adreno::FlatIndex;

TEST_CASE("FlatIndex finds every key's first position across growth and clears", "[pure][core]") {
  std::mt19937_64 rng(20261202);
  FlatIndex index;
  for (int round = 0; round < 40; ++round) {
    index.clear();
    std::map<std::uintptr_t, std::uint32_t> expected;
    const unsigned keys = 1 + static_cast<unsigned>(rng() % 700);
    // Addresses 64 bytes apart in a few heaps, or small handles: few low bits differ.
    const std::uintptr_t base = round % 2 == 0 ? 0x7f0000000000u + (rng() % 16) * 0x100000 : 1;
    const std::uintptr_t stride = round % 2 == 0 ? 64 : 1;
    for (unsigned n = 0; n < 3 * keys; ++n) {
      const std::uintptr_t key = base + (rng() % keys) * stride;
      const auto position = static_cast<std::uint32_t>(n);
      const std::uint32_t found = index.find_or_insert(key, position);
      const auto [it, inserted] = expected.emplace(key, position);
      if (inserted) {
        REQUIRE(found == FlatIndex::kAbsent);
      } else {
        REQUIRE(found == it->second);
      }
    }
  }
}
