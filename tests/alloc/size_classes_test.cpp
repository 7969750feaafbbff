// [pure] Size classes round up by at most a quarter and are stable under rounding.
#include "alloc/size_classes.h"

#include <catch2/catch.hpp>

#include <random>

using adreno::size_class;

TEST_CASE("size classes hold the request, waste at most 25%, and are fixed points", "[pure][alloc]") {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t size = 1 + rng() % (64ull << 20);
    const std::uint64_t cls = size_class(size);
    REQUIRE(cls >= size);
    REQUIRE(cls % adreno::kPageBytes == 0);
    if (size > 4 * adreno::kPageBytes) REQUIRE(cls - size < size / 4 + 1);
    REQUIRE(size_class(cls) == cls);
  }
}

TEST_CASE("the first classes are 4, 8, 12, 16, 20, 24, 28, 32 KiB then 40 KiB", "[pure][alloc]") {
  // The sequence of Mesa's freedreno bo cache buckets (freedreno_bo_cache.c fd_bo_cache_init).
  const std::uint64_t expected[] = {4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768, 40960};
  std::uint64_t size = 1;
  for (std::uint64_t cls : expected) {
    CHECK(size_class(size) == cls);
    size = cls + 1;
  }
}
