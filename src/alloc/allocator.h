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

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
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

/// Room for one host record of whoever owns an allocation: src/core builds the std::shared_ptr
/// nodes of a buffer's MemoryBlock and Buffer::Impl in the two of an Allocation. A record comes and
/// goes with its allocation, under the allocator's lock: a small buffer's allocate + free takes no
/// lock and no heap of its own for them (issue 19).
///
/// A node outlives the call that gives its allocation back (std::shared_ptr frees a node after
/// destroying what is in it, and maybe on another thread), so a slot says it is free again itself:
/// its owner's last act on it is a release store of `in_use`, after which it lets `keep` go. The
/// allocator hands a record out again only once both its slots are free (an acquire load each).
template <std::size_t Bytes>
struct RecordSlot {
  static constexpr std::size_t kBytes = Bytes;
  static constexpr std::size_t kAlign = 64;  // a node starts a cache line
  alignas(kAlign) std::byte bytes[Bytes];
  // What the node's owner keeps alive until the node is gone: what gives this record back (the
  // device and its allocator, or the memory block whose allocation it is), released only after
  // the slot is free.
  std::shared_ptr<void> keep;
  std::atomic<bool> in_use{false};
};

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

  // The owner's records (see RecordSlot): room for a MemoryBlock's node and a Buffer::Impl's.
  RecordSlot<192> block_record;
  RecordSlot<192> buffer_record;
  bool records_free() const noexcept {
    return !block_record.in_use.load(std::memory_order_acquire) &&
           !buffer_record.in_use.load(std::memory_order_acquire);
  }
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
  void release(std::unique_ptr<Allocation>&& allocation);
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
  // always_inline: what a small allocation and its release run are a few dozen loads and stores
  // each, and calls between them cost as much again (issue 19).
  [[gnu::always_inline]] inline std::unique_ptr<Allocation> allocate_small(std::uint64_t size, std::uint64_t align,
                                                                         MemoryKind kind);
  std::unique_ptr<Allocation> allocate_object(std::uint64_t size, std::uint64_t align, MemoryKind kind);
  // An allocation covering `size` bytes of `object` from the first `align`-aligned address.
  std::unique_ptr<Allocation> place(std::unique_ptr<KernelObject> object, std::uint64_t size, std::uint64_t align,
                                    MemoryKind kind);
  // A record for an allocation of `size` bytes at `offset` of `object`: a spare one when there is.
  [[gnu::always_inline]] inline std::unique_ptr<Allocation> new_record(KernelObject* object, std::uint64_t offset,
                                                                     std::uint64_t size, CpuView cpu, MemoryKind kind);
  void return_spare_ranges(Slab& slab);
  // A spare record whose owner's nodes are gone (see RecordSlot), or a new one.
  std::unique_ptr<Allocation> take_free_record();
  // A range when no slab of `kind` has one as it stands.
  std::pair<Slab*, std::uint64_t> carve_with_spares_returned(std::uint64_t rounded, std::uint64_t align,
                                                             MemoryKind kind);
  // The slabs of `kind`. A program allocates one kind over and over: the map is searched only
  // when the kind changes (its entries are never erased, so the list stays where it is).
  std::list<Slab>& slabs_of(MemoryKind kind) {
    if (last_slabs_ != nullptr && last_kind_ == kind) [[likely]]
      return *last_slabs_;
    return find_slabs(kind);
  }
  std::list<Slab>& find_slabs(MemoryKind kind);
  void collect_locked();
  void recycle_retired();  // the deferred releases whose submissions retired
  [[gnu::always_inline]] inline void recycle(std::unique_ptr<Allocation> allocation);
  // Gives back what recycle does not keep as a slab's spare: a slab's last range (the slab
  // goes when another of its kind is empty), or an object, to the cache or the kernel.
  void recycle_memory(Allocation& allocation);
  // Keeps the range of `allocation`, of `slab` whose other ranges are not all free, for the next
  // allocation of its size.
  [[gnu::always_inline]] inline void keep_spare(Slab& slab, const Allocation& allocation);
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
