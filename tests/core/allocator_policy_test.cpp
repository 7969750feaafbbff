// [virtual-kernel] The allocator's policy, observed through its statistics and the kernel calls
// it makes on both virtual kernels: cached objects expire, large objects are not cached, a kernel
// out of memory gets the cache back first, and cache maintenance checks its windows.
#include <adreno/adreno.hpp>

#include "kgsl/kgsl_abi.h"
#include "msm/msm_abi.h"
#include "virtual_device.h"

#include <cstring>

using namespace adreno;

namespace {

unsigned long alloc_ioctl(const std::string& backend) {
  return backend.starts_with("virtual-kgsl") ? IOCTL_KGSL_GPUOBJ_ALLOC : msm::uapi::DRM_IOCTL_MSM_GEM_NEW;
}

AllocatorStats stats(VirtualDevice& device) { return device->impl().allocator().stats(); }

}  // namespace

TEST_CASE("a freed medium object is cached, reused, and returned to the kernel after it expires",
          "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    // The cache's clock, moved by hand: no real waiting.
    auto now = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
    device->impl().allocator().set_clock([now] { return *now; });
    const AllocatorStats start = stats(device);
    device->allocate({.size = 200 * 1024});  // freed at once: never used by the GPU
    // Its size class: between 128 KiB and 256 KiB the classes step by 32 KiB (as Mesa's buckets).
    CHECK(stats(device).cached_bytes == 224 * 1024);
    Buffer again = device->allocate({.size = 210 * 1024});
    CHECK(stats(device).cache_hits == start.cache_hits + 1);
    CHECK(stats(device).kernel_allocs == start.kernel_allocs + 1);
    again = Buffer();
    const auto frees = stats(device).kernel_frees;
    *now += Allocator::kCacheExpiry - std::chrono::milliseconds(1);
    device->impl().allocator().collect();
    CHECK(stats(device).cached_bytes == 224 * 1024);  // not yet expired
    *now += std::chrono::milliseconds(1);
    device->impl().allocator().collect();
    CHECK(stats(device).cached_bytes == 0);
    CHECK(stats(device).kernel_frees == frees + 1);
  }
  device.close_and_check_ledger();
}

TEST_CASE("large objects go to the kernel and back without the cache", "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    const AllocatorStats start = stats(device);
    device->allocate({.size = Allocator::kCachedMax + 1});
    CHECK(stats(device).kernel_allocs == start.kernel_allocs + 1);
    CHECK(stats(device).kernel_frees == start.kernel_frees + 1);
    CHECK(stats(device).cached_bytes == 0);
  }
  device.close_and_check_ledger();
}

TEST_CASE("a kernel out of memory gets the cached objects back before the allocation fails",
          "[virtual-kernel][memory]") {
  const std::string backend = EACH_VIRTUAL_BACKEND_AND_GENERATION();
  VirtualDevice device(backend);
  {
    device->allocate({.size = 1024 * 1024});  // now cached
    REQUIRE(stats(device).cached_bytes > 0);
    device.system->fail_ioctl(alloc_ioctl(backend), 1, ENOMEM);
    Buffer buffer = device->allocate({.size = 3 * 1024 * 1024});  // a different size class
    CHECK(stats(device).cached_bytes == 0);
    // Without a cache to give back, the kernel's ENOMEM reaches the caller, typed.
    device.system->fail_ioctl(alloc_ioctl(backend), 1, ENOMEM);
    try {
      device->allocate({.size = 5 * 1024 * 1024});
      FAIL("allocated although the kernel refused");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::out_of_memory);
      CHECK(error.sys_errno() == ENOMEM);
    }
  }
  device.close_and_check_ledger();
}

TEST_CASE("cache maintenance accepts windows inside the buffer and refuses others", "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Buffer cached = device->allocate({.size = 4096, .memory = MemoryType::cached});
    std::memset(cached.cpu_view().data(), 0x5a, 4096);
    cached.flush_for_gpu();
    cached.flush_for_gpu(100, 200);
    Queue queue(*device);
    const std::uint32_t values[] = {0x11223344};
    queue.write(cached.view(512, 4), values);
    queue.finish();
    cached.invalidate_for_cpu(512, 4);
    CHECK(cached.cpu_view().as<std::uint32_t>()[128] == 0x11223344);
    CHECK(cached.cpu_view().as<std::uint32_t>()[127] == 0x5a5a5a5a);
    CHECK_THROWS_AS(cached.flush_for_gpu(4097, 1), Error);
  }
  device.close_and_check_ledger();
}

// Freed small ranges are kept by size for reuse while their slab has other owners; a carve that
// finds no room gets them merged back before it asks the kernel for another slab, and an emptied
// slab gets them all back (so it can go to the kernel as before).
TEST_CASE("freed small ranges kept for reuse merge back before a new slab is made", "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    Allocator& allocator = device->impl().allocator();
    // A kind of memory nothing else in the device uses, so its first slab starts empty.
    const BoFlags flags{MemoryType::write_combined, true};
    const AllocatorStats start = stats(device);
    // A whole slab of 64-byte ranges.
    std::vector<std::unique_ptr<Allocation>> small;
    for (std::uint64_t i = 0; i < Allocator::kSlabBytes / 64; ++i) small.push_back(allocator.allocate(64, 0, flags, false));
    CHECK(stats(device).kernel_allocs == start.kernel_allocs + 1);
    // All but the last go back: kept as 64-byte spares, the slab still in use.
    std::unique_ptr<Allocation> last = std::move(small.back());
    small.pop_back();
    for (auto& allocation : small) allocator.release(std::move(allocation));
    // The most recently freed 64-byte range is the next one handed out.
    const std::uint64_t last_freed = Allocator::kSlabBytes - 128;
    auto again = allocator.allocate(64, 0, flags, false);
    CHECK(again->offset == last_freed);
    // 16 KiB fits only once the spares merged: still one slab.
    auto large = allocator.allocate(Allocator::kSmallMax, 0, flags, false);
    CHECK(stats(device).kernel_allocs == start.kernel_allocs + 1);
    CHECK(large->object == last->object);
    allocator.release(std::move(large));
    allocator.release(std::move(again));
    allocator.release(std::move(last));
    // Empty again, the slab has every range back: it holds a whole slab of 16 KiB ranges.
    std::vector<std::unique_ptr<Allocation>> largest;
    for (std::uint64_t i = 0; i < Allocator::kSlabBytes / Allocator::kSmallMax; ++i)
      largest.push_back(allocator.allocate(Allocator::kSmallMax, 0, flags, false));
    CHECK(stats(device).kernel_allocs == start.kernel_allocs + 1);
    for (auto& allocation : largest) allocator.release(std::move(allocation));
  }
  device.close_and_check_ledger();
}

// Small allocations of one kind after another, the kind changing at every allocation and staying
// for two: each is carved from a kernel object of the kind it asked for. Fails when the allocator's
// remembered slab list of the last kind (Allocator::slabs_of) is used for another kind.
TEST_CASE("small allocations of alternating memory kinds each come from a kernel object of their own kind",
          "[virtual-kernel][memory]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND());
  {
    Allocator& allocator = device->impl().allocator();
    struct Kind {
      MemoryType type;
      bool gpu_read_only;
      bool host_visible;
    };
    std::vector<Kind> kinds;
    for (MemoryType type : {MemoryType::write_combined, MemoryType::cached, MemoryType::uncached}) {
      for (bool read_only : {false, true}) {
        for (bool host_visible : {false, true}) kinds.push_back({type, read_only, host_visible});
      }
    }
    std::vector<std::unique_ptr<Allocation>> held;
    int wrong = 0;
    for (int round = 0; round < 3; ++round) {
      for (const Kind& kind : kinds) {
        for (int again = 0; again < 2; ++again) {
          auto allocation = allocator.allocate(256, 0, BoFlags{kind.type, kind.gpu_read_only}, kind.host_visible);
          const Bo& bo = allocation->object->bo;
          if (bo.flags.type != kind.type || bo.flags.gpu_read_only != kind.gpu_read_only ||
              allocation->object->cpu.empty() == kind.host_visible || allocation->kind.type != kind.type)
            ++wrong;
          held.push_back(std::move(allocation));
        }
      }
    }
    CHECK(wrong == 0);
    for (auto& allocation : held) allocator.release(std::move(allocation));
  }
  device.close_and_check_ledger();
}
