// [virtual-gpu] The virtual GPU's address space: VA allocation, permissions and page faults, and
// the view of it one submission may be restricted to.
#include "virt/gpu/gpu_memory.h"

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
    CHECK(*va >= memory.va_begin());
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
  const GpuView gpu(memory);
  gpu.write64(*va + 4096, 0x1122334455667788ull);
  std::uint64_t host;
  std::memcpy(&host, backing->host() + 4096, sizeof host);
  CHECK(host == 0x1122334455667788ull);
  CHECK(gpu.read32(*va + 4100) == 0x11223344u);
}

TEST_CASE("unmapped and read-only accesses are page faults naming the address", "[virtual-gpu][memory]") {
  GpuMemory memory(0x100000000ull, 1ull << 30);
  auto backing = Backing::create(4096);
  auto ro = memory.map(backing, 0, 4096, false);
  REQUIRE(ro);
  const GpuView gpu(memory);
  CHECK(gpu.read32(*ro) == 0);
  try {
    gpu.write32(*ro + 8, 1);
    FAIL("write to a read-only mapping succeeded");
  } catch (const GpuFault& fault) {
    CHECK(fault.kind() == FaultKind::page_fault);
    CHECK(fault.address() == *ro + 8);
  }
  CHECK_THROWS_AS(gpu.read32(*ro + 4096), GpuFault);
  CHECK(memory.unmap(*ro));
  CHECK_THROWS_AS(gpu.read32(*ro), GpuFault);
  CHECK_FALSE(memory.unmap(*ro));
}

TEST_CASE("the address space refuses a mapping that does not fit", "[virtual-gpu][memory]") {
  GpuMemory memory(0x100000000ull, 16 * kPageSize);
  auto backing = Backing::create(16 * kPageSize);
  REQUIRE(memory.map(backing, 0, 16 * kPageSize, true));
  CHECK_FALSE(memory.map(backing, 0, kPageSize, true));
}

TEST_CASE("a restricted view faults outside its ranges even where memory is mapped", "[virtual-gpu][memory]") {
  GpuMemory memory(0x100000000ull, 1ull << 30);
  std::mt19937_64 rng(77);
  // Five one-page mappings, adjacent in a fresh address space; the view allows the 1st, 2nd and 4th.
  std::vector<std::uint64_t> vas;
  std::vector<std::shared_ptr<Backing>> backings;
  for (std::size_t i = 0; i < 5; ++i) {
    backings.push_back(Backing::create(kPageSize));
    vas.push_back(*memory.map(backings.back(), 0, kPageSize, true));
    if (i > 0) REQUIRE(vas[i] == vas[i - 1] + kPageSize);
  }
  const AddressRanges allowed({{vas[3], kPageSize}, {vas[0], kPageSize}, {vas[1], kPageSize}});
  const GpuView view(memory, &allowed), whole(memory);

  for (int round = 0; round < 200; ++round) {
    const std::size_t i = rng() % vas.size();
    const std::uint64_t va = vas[i] + (rng() % (kPageSize / 8)) * 8;
    const std::uint64_t value = rng();
    if (i == 2 || i == 4) {
      try {
        view.write64(va, value);
        FAIL("a write outside the allowed ranges succeeded");
      } catch (const GpuFault& fault) {
        CHECK(fault.kind() == FaultKind::page_fault);
        CHECK(fault.address() == va);
        CHECK(std::string(fault.what()).find("not in the submission's bo table") != std::string::npos);
      }
      CHECK_THROWS_AS(view.read64(va), GpuFault);
      CHECK_THROWS_AS(view.translate(va, 8, false), GpuFault);
      whole.write64(va, value);  // the unrestricted view reaches the same address
      CHECK(whole.read64(va) == value);
    } else {
      view.write64(va, value);
      CHECK(whole.read64(va) == value);
    }
  }
  // An access spanning two allowed mappings is allowed piecewise; one reaching into a page that is
  // not allowed faults at that page's first byte.
  const std::uint64_t value = rng();
  std::uint64_t back = 0;
  view.write(vas[1] - 4, &value, sizeof value);
  view.read(vas[1] - 4, &back, sizeof back);
  CHECK(back == value);
  try {
    view.read64(vas[2] - 4);
    FAIL("a read reaching into a page outside the allowed ranges succeeded");
  } catch (const GpuFault& fault) {
    CHECK(fault.address() == vas[2]);
  }
  // An unmapped address is still reported as unmapped.
  try {
    view.read32(vas[4] + kPageSize * 16);
    FAIL("an unmapped read succeeded");
  } catch (const GpuFault& fault) {
    CHECK(std::string(fault.what()).find("unmapped address") != std::string::npos);
  }
}

// Kills: a shader's kept translation (a wave keeps one per instruction across its work groups)
// still reaching a buffer after it was unmapped, until the dispatch ends.
TEST_CASE("a kept translation is renewed after an unmap: the next access through it faults, the bytes stay alive until then",
          "[virtual-gpu][memory]") {
  GpuMemory memory(0x100000000ull, 1ull << 30);
  auto backing = Backing::create(2 * kPageSize);
  const auto va = memory.map(backing, 0, 2 * kPageSize, true);
  REQUIRE(va);
  const auto other = memory.map(Backing::create(kPageSize), 0, kPageSize, true);
  REQUIRE(other);
  const GpuView view(memory);
  TranslationMemo memo;
  std::byte* const host = view.translate(*va + 8, 4, true, memo);
  CHECK(host == backing->host() + 8);
  const std::weak_ptr<Backing> bytes = backing;
  backing.reset();
  CHECK(view.translate(*va + 16, 4, false, memo) == host + 8);  // the same window, no renewal
  CHECK(memory.unmap(*other));  // another buffer's unmap renews it too: the window still holds
  CHECK(view.translate(*va + 24, 4, false, memo) == host + 16);
  CHECK_FALSE(bytes.expired());
  CHECK(memory.unmap(*va));
  CHECK_FALSE(bytes.expired());  // the kept translation holds them
  try {
    view.translate(*va + 32, 4, false, memo);
    FAIL("an access through a translation kept across its buffer's unmap succeeded");
  } catch (const GpuFault& fault) {
    CHECK(fault.address() == *va + 32);
    CHECK(std::string(fault.what()).find("unmapped address") != std::string::npos);
  }
  std::size_t accesses = 1;
  CHECK(view.load_run(*va + 64, 64, 16, memo, accesses) == nullptr);
  CHECK(accesses == 0);
}
