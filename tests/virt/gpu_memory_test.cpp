// [virtual-gpu] The virtual GPU's address space: VA allocation, permissions and page faults.
#include "virt/gpu_memory.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>

using namespace adreno::virt;

TEST_CASE("GPU mappings never overlap and honour alignment", "[virtual-gpu][memory]") {
  GpuMemory memory(0x100000000ull, 1ull << 32);
  std::mt19937_64 rng(1234);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (int i = 0; i < 200; ++i) {
    std::uint64_t size = 1 + rng() % (1 << 20);
    std::uint64_t align = kPageSize << (rng() % 6);
    auto backing = Backing::create(size);
    REQUIRE(backing);
    auto va = memory.map(backing, 0, size, true, align);
    REQUIRE(va);
    CHECK(*va % align == 0);
    CHECK(*va >= memory.va_start());
    for (auto [start, length] : ranges) CHECK((*va + size <= start || start + length <= *va));
    ranges.emplace_back(*va, size);
    if (rng() % 3 == 0) {
      auto victim = rng() % ranges.size();
      CHECK(memory.unmap(ranges[victim].first));
      ranges.erase(ranges.begin() + static_cast<long>(victim));
    }
  }
  CHECK(memory.mapping_count() == ranges.size());
}

TEST_CASE("GPU writes land in the backing and reads see them", "[virtual-gpu][memory]") {
  GpuMemory memory(0x100000000ull, 1ull << 30);
  auto backing = Backing::create(8192);
  auto va = memory.map(backing, 0, 8192, true);
  REQUIRE(va);
  memory.write64(*va + 4096, 0x1122334455667788ull);
  std::uint64_t host;
  std::memcpy(&host, backing->host() + 4096, sizeof host);
  CHECK(host == 0x1122334455667788ull);
  CHECK(memory.read32(*va + 4100) == 0x11223344u);
}

TEST_CASE("unmapped and read-only accesses are page faults naming the address", "[virtual-gpu][memory]") {
  GpuMemory memory(0x100000000ull, 1ull << 30);
  auto backing = Backing::create(4096);
  auto ro = memory.map(backing, 0, 4096, false);
  REQUIRE(ro);
  CHECK(memory.read32(*ro) == 0);
  try {
    memory.write32(*ro + 8, 1);
    FAIL("write to a read-only mapping succeeded");
  } catch (const GpuFault& fault) {
    CHECK(fault.kind() == FaultKind::page_fault);
    CHECK(fault.address() == *ro + 8);
  }
  CHECK_THROWS_AS(memory.read32(*ro + 4096), GpuFault);
  CHECK(memory.unmap(*ro));
  CHECK_THROWS_AS(memory.read32(*ro), GpuFault);
  CHECK_FALSE(memory.unmap(*ro));
}

TEST_CASE("the address space refuses a mapping that does not fit", "[virtual-gpu][memory]") {
  GpuMemory memory(0x100000000ull, 16 * kPageSize);
  auto backing = Backing::create(16 * kPageSize);
  REQUIRE(memory.map(backing, 0, 16 * kPageSize, true));
  CHECK_FALSE(memory.map(backing, 0, kPageSize, true));
}
