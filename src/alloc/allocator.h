// Allocator policy, written once above the kernel interface (it never sees KGSL or MSM):
//
//  * small    (≤ kSmallMax after rounding to kSmallGranule): carved out of kSlabBytes kernel
//             objects per memory kind, so a small buffer costs no ioctl;
//  * medium   (≤ kCachedMax): a whole kernel object rounded to a size class, taken from and
//             returned to a cache of idle objects;
//  * large    (> kCachedMax): a kernel object of its own, freed to the kernel once idle.
//
// Nothing freed is reused — by a sub-allocation or through the cache — before every submission
// that used it retired (RetirementOracle). Cached objects older than kCacheExpiry go back to the
// kernel, as do cached bytes beyond kCacheMaxBytes.
#pragma once

#include "alloc/gpu_use.h"
#include "alloc/mutex.h"
#include "alloc/range_allocator.h"
#include "kernel/kernel.h"
#include "sys/syscalls.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace adreno {

/// A kernel object together with its one CPU mapping (made at creation when host-visible).
struct KernelObject {
  Bo bo;
  CpuView cpu;  // empty when not host-visible
};

/// What makes kernel objects interchangeable for reuse.
struct MemoryKind {
  MemoryType type;
  bool gpu_read_only;
  bool host_visible;
  auto operator<=>(const MemoryKind&) const = default;
};

struct Slab;

/// One allocation handed to the runtime: a range of a kernel object.
struct Allocation {
  KernelObject* object;
  std::uint64_t offset;  // inside object->bo
  std::uint64_t size;
  GpuAddress gpu;
  CpuView cpu;  // empty when not host-visible
  GpuUseSet uses;

  // Where it came from, for the allocator: a slab range, or an object of its own.
  MemoryKind kind;
  Slab* slab = nullptr;
  std::uint64_t range_offset = 0;
  std::uint64_t range_size = 0;
  std::unique_ptr<KernelObject> owned;  // null for slab ranges
  bool cacheable = true;                // false: imported or exported objects go back to the kernel
};

/// A kernel object that small allocations are carved from.
struct Slab {
  std::unique_ptr<KernelObject> object;
  RangeAllocator ranges;
  // Ranges given back while others of the slab are still in use, by size (index: granules - 1),
  // most recent last: the next allocation of that size takes one without a walk of `ranges`.
  // They go back into `ranges` when the slab empties or when no slab has room for a carve.
  std::vector<std::vector<std::uint64_t>> spare;
  std::uint64_t live = 0;  // ranges handed out and not yet recycled
};

struct AllocatorStats {
  std::uint64_t kernel_allocs = 0;   // objects asked of the kernel
  std::uint64_t kernel_frees = 0;    // objects given back
  std::uint64_t cache_hits = 0;      // medium allocations served from the cache
  std::uint64_t live_objects = 0;    // kernel objects alive now (slabs, cached, in use)
  std::uint64_t cached_bytes = 0;    // idle objects kept for reuse
  std::uint64_t deferred = 0;        // releases waiting for the GPU
};

class Allocator {
 public:
  static constexpr std::uint64_t kSmallGranule = 64;              // cache line; descriptor alignment
  static constexpr std::uint64_t kSmallMax = 16 * 1024;
  static constexpr std::uint64_t kSlabBytes = 2 * 1024 * 1024;
  static constexpr std::uint64_t kCachedMax = 16 * 1024 * 1024;
  static constexpr std::uint64_t kCacheMaxBytes = 256 * 1024 * 1024;
  static constexpr std::chrono::milliseconds kCacheExpiry{1000};
  static constexpr std::size_t kSpareRecords = 256;  // Allocation records kept for reuse

  /// `sys` is the seam the kernel talks through: CPU cache maintenance of mappings goes there too.
  Allocator(Kernel& kernel, sys::Syscalls& sys, RetirementOracle& oracle);
  /// Returns every kernel object; the caller makes sure the GPU is idle first.
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  /// `align` is a power of two (0 means kSmallGranule). A `dedicated` allocation gets a kernel
  /// object of its own that is never shared or cached (needed to export it). Throws adreno::Error.
  std::unique_ptr<Allocation> allocate(std::uint64_t size, std::uint64_t align, BoFlags flags, bool host_visible,
                                       bool dedicated = false);
  /// Takes ownership of an imported kernel object (mapping it when `host_visible`); it goes
  /// back to the kernel, never to the cache, once released and idle.
  std::unique_ptr<Allocation> adopt(const Bo& bo, bool host_visible);
  /// Gives the allocation back; it is reused only after every use in `allocation->uses` retired.
  void release(std::unique_ptr<Allocation> allocation);
  /// Recycles deferred releases whose submissions retired and expires old cached objects.
  void collect();

  AllocatorStats stats() const;

  /// What the cache's expiry measures time with (steady_clock::now unless a test sets one).
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  void set_clock(Clock clock);

 private:
  struct Cached {
    std::unique_ptr<KernelObject> object;
    std::chrono::steady_clock::time_point since;
  };

  std::unique_ptr<KernelObject> create_object(std::uint64_t size, MemoryKind kind);
  void destroy_object(std::unique_ptr<KernelObject> object);
  std::unique_ptr<Allocation> allocate_small(std::uint64_t size, std::uint64_t align, MemoryKind kind);
  std::unique_ptr<Allocation> allocate_object(std::uint64_t size, std::uint64_t align, MemoryKind kind);
  // An allocation covering `size` bytes of `object` from the first `align`-aligned address.
  std::unique_ptr<Allocation> place(std::unique_ptr<KernelObject> object, std::uint64_t size, std::uint64_t align,
                                    MemoryKind kind);
  // A record for an allocation of `size` bytes at `offset` of `object`: a spare one when there is.
  std::unique_ptr<Allocation> new_record(KernelObject* object, std::uint64_t offset, std::uint64_t size, CpuView cpu,
                                         MemoryKind kind);
  void return_spare_ranges(Slab& slab);
  // The slabs of `kind`.
  std::list<Slab>& slabs_of(MemoryKind kind);
  void collect_locked();
  void recycle_retired();  // the deferred releases whose submissions retired
  void recycle(std::unique_ptr<Allocation> allocation);
  // Gives the allocation's memory back to its slab, the cache or the kernel.
  void recycle_memory(Allocation& allocation);
  void trim_cache(std::chrono::steady_clock::time_point now);

  Kernel& kernel_;
  sys::Syscalls& sys_;
  RetirementOracle& oracle_;
  Clock clock_ = [] { return std::chrono::steady_clock::now(); };
  mutable Mutex mutex_;
  std::map<MemoryKind, std::list<Slab>> slabs_;
  MemoryKind last_kind_{};                  // what slabs_of found last:
  std::list<Slab>* last_slabs_ = nullptr;  // its slabs, or nullptr before the first search
  std::map<std::pair<MemoryKind, std::uint64_t>, std::deque<Cached>> cache_;  // (kind, size class) → idle
  std::vector<std::unique_ptr<Allocation>> deferred_;
  std::vector<std::unique_ptr<Allocation>> spare_records_;  // recycled records, uses cleared
  AllocatorStats stats_;
};

}  // namespace adreno
