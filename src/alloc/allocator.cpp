#include "alloc/allocator.h"

#include "alloc/size_classes.h"

#include <adreno/error.hpp>

#include "kernel/log.h"

#include <algorithm>
#include <tuple>

namespace adreno {
namespace {

std::uint64_t align_up(std::uint64_t value, std::uint64_t align) { return (value + align - 1) & ~(align - 1); }

}  // namespace

Allocator::Allocator(Kernel& kernel, sys::Syscalls& sys, RetirementOracle& oracle) : kernel_(kernel), sys_(sys), oracle_(oracle) {
  spare_records_.reserve(kSpareRecords);  // recycling a record allocates only past records still in use (recycle)
}

Allocator::~Allocator() {
  for (auto& allocation : deferred_) {
    if (allocation->owned) destroy_object(std::move(allocation->owned));
  }
  for (auto& [key, entries] : cache_) {
    for (auto& entry : entries) destroy_object(std::move(entry.object));
  }
  for (auto& [kind, list] : slabs_) {
    for (auto& slab : list) destroy_object(std::move(slab.object));
  }
}

std::unique_ptr<KernelObject> Allocator::create_object(std::uint64_t size, MemoryKind kind) {
  const BoFlags flags{kind.type, kind.gpu_read_only};
  Bo bo;
  try {
    bo = kernel_.alloc(size, flags);
  } catch (const Error& error) {
    // Idle cached objects are the first thing to give back when the kernel runs out.
    if (error.code() != Errc::out_of_memory || stats_.cached_bytes == 0) throw;
    trim_cache(std::chrono::steady_clock::time_point::max());
    bo = kernel_.alloc(size, flags);
  }
  auto object = std::make_unique<KernelObject>(KernelObject{bo, {}});
  if (kind.host_visible) {
    try {
      object->cpu = kernel_.map(bo);
    } catch (...) {
      kernel_.free(bo);
      throw;
    }
  }
  ++stats_.kernel_allocs;
  ++stats_.live_objects;
  return object;
}

void Allocator::destroy_object(std::unique_ptr<KernelObject> object) {
  // Giving memory back cannot be refused meaningfully, and runs in destructors: a kernel error
  // here is logged, and the object is forgotten (the kernel reclaims it when the node closes).
  try {
    if (!object->cpu.empty()) kernel_.unmap(object->bo, object->cpu);
    kernel_.free(object->bo);
  } catch (const Error& error) {
    log().warn("returning a {}-byte buffer object to the kernel failed: {}", object->bo.size, error.what());
  }
  ++stats_.kernel_frees;
  --stats_.live_objects;
}

std::unique_ptr<Allocation> Allocator::allocate(std::uint64_t size, std::uint64_t align, BoFlags flags,
                                                bool host_visible, bool dedicated) {
  if (size == 0) throw Error(Errc::invalid_argument, "allocate buffer", "size is 0");
  if (align == 0) align = kSmallGranule;
  if ((align & (align - 1)) != 0) {
    throw Error(Errc::invalid_argument, "allocate buffer", "alignment " + std::to_string(align) + " is not a power of two");
  }
  const MemoryKind kind{flags.type, flags.gpu_read_only, host_visible};
  std::lock_guard lock(mutex_);
  collect_locked();
  if (dedicated) {
    auto object = create_object(align_up(size + (align > kPageBytes ? align - kPageBytes : 0), kPageBytes), kind);
    auto allocation = place(std::move(object), size, align, kind);
    allocation->cacheable = false;
    return allocation;
  }
  const std::uint64_t rounded = align_up(size, kSmallGranule);
  if (rounded <= kSmallMax && align <= kPageBytes) return allocate_small(size, std::max(align, kSmallGranule), kind);
  return allocate_object(size, align, kind);
}

std::unique_ptr<Allocation> Allocator::adopt(const Bo& bo, bool host_visible) {
  auto object = std::make_unique<KernelObject>(KernelObject{bo, {}});
  if (host_visible) object->cpu = kernel_.map(bo);  // on failure the caller still owns bo
  std::lock_guard lock(mutex_);
  ++stats_.live_objects;
  auto allocation = place(std::move(object), bo.size, kPageBytes, MemoryKind{bo.flags.type, bo.flags.gpu_read_only, host_visible});
  allocation->cacheable = false;
  return allocation;
}

std::unique_ptr<Allocation> Allocator::place(std::unique_ptr<KernelObject> object, std::uint64_t size,
                                             std::uint64_t align, MemoryKind kind) {
  const GpuAddress base = object->bo.gpu;
  const std::uint64_t offset = align_up(base.value(), align) - base.value();
  KernelObject* raw = object.get();
  CpuView cpu = raw->cpu.empty() ? CpuView{} : raw->cpu.subview(offset, size);
  auto allocation = new_record(raw, offset, size, cpu, kind);
  allocation->owned = std::move(object);
  return allocation;
}

std::unique_ptr<Allocation> Allocator::new_record(KernelObject* object, std::uint64_t offset, std::uint64_t size,
                                                  CpuView cpu, MemoryKind kind) {
  std::unique_ptr<Allocation> allocation;
  // The most recent record, unless its owner's nodes are still being destroyed on another thread
  // (see RecordSlot).
  if (!spare_records_.empty() && spare_records_.back()->records_free()) [[likely]] {
    allocation = std::move(spare_records_.back());
    spare_records_.pop_back();
  } else {
    allocation = take_free_record();
  }
  // Field by field: the use set keeps its capacity (it was cleared when the record was recycled).
  allocation->object = object;
  allocation->offset = offset;
  allocation->size = size;
  allocation->gpu = object->bo.gpu + offset;
  allocation->cpu = cpu;
  allocation->kind = kind;
  allocation->slab = nullptr;
  allocation->range_offset = 0;
  allocation->range_size = 0;
  allocation->cacheable = true;
  return allocation;
}

std::unique_ptr<Allocation> Allocator::take_free_record() {
  for (auto it = spare_records_.end(); it != spare_records_.begin();) {
    if ((*--it)->records_free()) {
      std::unique_ptr<Allocation> allocation = std::move(*it);
      spare_records_.erase(it);
      return allocation;
    }
  }
  return std::make_unique<Allocation>();
}

std::unique_ptr<Allocation> Allocator::allocate_small(std::uint64_t size, std::uint64_t align, MemoryKind kind) {
  const std::uint64_t rounded = align_up(size, kSmallGranule);
  const std::size_t size_index = rounded / kSmallGranule - 1;
  Slab* slab = nullptr;
  std::uint64_t offset = 0;
  for (Slab& candidate : slabs_of(kind)) {
    if (candidate.spare.size() > size_index) {
      auto& spare = candidate.spare[size_index];
      // align is a power of two (allocate checked): a mask, not a division, which costs more than
      // the rest of this lookup.
      if (!spare.empty() && (spare.back() & (align - 1)) == 0) [[likely]] {
        slab = &candidate;
        offset = spare.back();
        spare.pop_back();
        break;
      }
    }
    if (auto carved = candidate.ranges.allocate(rounded, align)) {
      slab = &candidate;
      offset = *carved;
      break;
    }
  }
  if (slab == nullptr) [[unlikely]]
    std::tie(slab, offset) = carve_with_spares_returned(rounded, align, kind);
  KernelObject* object = slab->object.get();
  CpuView cpu = object->cpu.empty() ? CpuView{} : object->cpu.subview(offset, size);
  // A range of a cached slab may have had an owner before, whose CPU stores can still sit dirty
  // in the CPU's cache; written back later, they would land over what the GPU writes for the
  // new owner. Clean the range first, as a recycled cached object is (allocate_object).
  if (kind.type == MemoryType::cached && !cpu.empty())
    sys_.maintain_dcache(sys::Syscalls::CacheMaintenance::clean, cpu.data(), cpu.size());
  auto allocation = new_record(object, offset, size, cpu, kind);
  allocation->slab = slab;
  allocation->range_offset = offset;
  allocation->range_size = rounded;
  ++slab->live;
  return allocation;
}

std::pair<Slab*, std::uint64_t> Allocator::carve_with_spares_returned(std::uint64_t rounded, std::uint64_t align,
                                                                       MemoryKind kind) {
  // No room as the slabs stand: their spare ranges merge back first, before a new slab is made.
  auto& list = slabs_of(kind);
  for (Slab& slab : list) {
    return_spare_ranges(slab);
    if (auto offset = slab.ranges.allocate(rounded, align)) return {&slab, *offset};
  }
  list.push_back(Slab{create_object(kSlabBytes, kind), RangeAllocator(0, kSlabBytes), {}, 0});
  return {&list.back(), *list.back().ranges.allocate(rounded, align)};
}

void Allocator::return_spare_ranges(Slab& slab) {
  for (std::size_t index = 0; index < slab.spare.size(); ++index) {
    for (std::uint64_t offset : slab.spare[index]) slab.ranges.free(offset, (index + 1) * kSmallGranule);
    slab.spare[index].clear();
  }
}

std::unique_ptr<Allocation> Allocator::allocate_object(std::uint64_t size, std::uint64_t align, MemoryKind kind) {
  // Kernel objects are page aligned; a stricter alignment takes an offset into a larger object.
  const std::uint64_t needed = size + (align > kPageBytes ? align - kPageBytes : 0);
  std::unique_ptr<KernelObject> object;
  if (needed <= kCachedMax) {
    const std::uint64_t bucket = size_class(needed);
    auto it = cache_.find({kind, bucket});
    if (it != cache_.end() && !it->second.empty()) {
      object = std::move(it->second.back().object);  // the most recently used: warmest
      it->second.pop_back();
      // A recycled cached object may hold the previous owner's dirty lines: write them back now,
      // so they cannot land over what the GPU writes for the new owner.
      if (kind.type == MemoryType::cached && !object->cpu.empty())
        sys_.maintain_dcache(sys::Syscalls::CacheMaintenance::clean, object->cpu.data(), object->cpu.size());
      stats_.cached_bytes -= bucket;
      ++stats_.cache_hits;
    } else {
      object = create_object(bucket, kind);
    }
  } else {
    object = create_object(align_up(needed, kPageBytes), kind);
  }
  return place(std::move(object), size, align, kind);
}

void Allocator::release(std::unique_ptr<Allocation>&& allocation) {
  std::lock_guard lock(mutex_);
  if (oracle_.all_retired(allocation->uses)) {
    recycle(std::move(allocation));
  } else {
    deferred_.push_back(std::move(allocation));
    ++stats_.deferred;
  }
  collect_locked();
}

void Allocator::collect() {
  std::lock_guard lock(mutex_);
  collect_locked();
}

std::list<Slab>& Allocator::find_slabs(MemoryKind kind) {
  last_slabs_ = &slabs_[kind];
  last_kind_ = kind;
  return *last_slabs_;
}

void Allocator::collect_locked() {
  // Both checks first: an allocation or release with nothing deferred and nothing cached (the
  // common case) pays for no call here.
  if (!deferred_.empty()) recycle_retired();
  // Reading the clock costs more than the rest of a small allocation: only when something is cached.
  if (stats_.cached_bytes > 0) trim_cache(clock_());
}

void Allocator::recycle_retired() {
  for (auto it = deferred_.begin(); it != deferred_.end();) {
    if (oracle_.all_retired((*it)->uses)) {
      recycle(std::move(*it));
      it = deferred_.erase(it);
      --stats_.deferred;
    } else {
      ++it;
    }
  }
}

void Allocator::set_clock(Clock clock) {
  std::lock_guard lock(mutex_);
  clock_ = std::move(clock);
}

void Allocator::recycle(std::unique_ptr<Allocation> allocation) {
  // The common case inline: a range of a slab that other allocations still use.
  if (Slab* slab = allocation->slab; slab != nullptr && slab->live > 1) [[likely]]
    keep_spare(*slab, *allocation);
  else
    recycle_memory(*allocation);
  // The record is kept for the next allocation, without the uses of this one. Its owner's nodes
  // are usually still in it (RecordSlot: a MemoryBlock gives its allocation back as it is
  // destroyed), so beyond kSpareRecords it takes the place of the oldest record, if that one is
  // free to go, or is kept beyond, until new_record takes it.
  allocation->uses.clear();
  if (spare_records_.size() >= kSpareRecords && spare_records_.front()->records_free()) [[unlikely]] {
    spare_records_.front() = std::move(allocation);
    return;
  }
  spare_records_.push_back(std::move(allocation));
}

void Allocator::keep_spare(Slab& slab, const Allocation& allocation) {
  --slab.live;
  if (slab.spare.empty()) [[unlikely]]
    slab.spare.resize(kSmallMax / kSmallGranule);
  slab.spare[allocation.range_size / kSmallGranule - 1].push_back(allocation.range_offset);
}

void Allocator::recycle_memory(Allocation& allocation) {
  if (Slab* slab = allocation.slab) {
    --slab->live;  // its last range (recycle kept any other as a spare)
    slab->ranges.free(allocation.range_offset, allocation.range_size);
    return_spare_ranges(*slab);
    // Keep one empty slab per kind for the next small allocation; give back the others.
    auto& list = slabs_[allocation.kind];
    const auto empty_slabs = std::count_if(list.begin(), list.end(), [](const Slab& s) { return s.ranges.empty(); });
    if (empty_slabs > 1) {
      auto it = std::find_if(list.begin(), list.end(), [&](const Slab& s) { return &s == slab; });
      destroy_object(std::move(it->object));
      list.erase(it);
    }
    return;
  }
  std::unique_ptr<KernelObject> object = std::move(allocation.owned);
  const std::uint64_t size = object->bo.size;
  if (!allocation.cacheable || size > kCachedMax || size != size_class(size)) {
    destroy_object(std::move(object));
    return;
  }
  cache_[{allocation.kind, size}].push_back(Cached{std::move(object), clock_()});
  stats_.cached_bytes += size;
}

void Allocator::trim_cache(std::chrono::steady_clock::time_point now) {
  // Expired entries first; then the oldest while the cache is over its byte budget.
  for (;;) {
    std::deque<Cached>* oldest = nullptr;
    std::uint64_t oldest_size = 0;
    for (auto& [key, entries] : cache_) {
      if (!entries.empty() && (oldest == nullptr || entries.front().since < oldest->front().since)) {
        oldest = &entries;
        oldest_size = key.second;
      }
    }
    if (oldest == nullptr) return;
    const bool expired = now == std::chrono::steady_clock::time_point::max() || now - oldest->front().since >= kCacheExpiry;
    if (!expired && stats_.cached_bytes <= kCacheMaxBytes) return;
    destroy_object(std::move(oldest->front().object));
    oldest->pop_front();
    stats_.cached_bytes -= oldest_size;
  }
}

AllocatorStats Allocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace adreno
