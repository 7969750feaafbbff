// One GPU address space: a VA allocator and a page table with permissions over host backing.
// Like the drivers' per-process pagetables, each open device file gets its own. The GPU reaches
// it through a GpuView; accesses that hit no mapping, or write a read-only one, raise a page
// fault (GpuFault).
#pragma once

#include "alloc/range_allocator.h"
#include "virt/gpu/backing.h"
#include "virt/gpu/gpu_fault.h"
#include "virt/gpu/uche.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <vector>

namespace adreno::virt {

inline constexpr std::uint64_t kPageSize = 4096;

/// The GPU addresses one submission may touch: disjoint ranges, looked up with the last range
/// that matched tried first (a shader's accesses mostly stay in one buffer).
class AddressRanges {
 public:
  struct Range {
    std::uint64_t start;
    std::uint64_t size;
  };
  explicit AddressRanges(std::vector<Range> ranges);
  AddressRanges(const AddressRanges&) = delete;
  AddressRanges& operator=(const AddressRanges&) = delete;

  /// True when [va, va + size) lies inside one range.
  bool contains(std::uint64_t va, std::uint64_t size) const noexcept;

 private:
  std::vector<Range> ranges_;  // sorted by start
  // Shared by the shader processor's threads; a stale hint only costs a search.
  mutable std::atomic<std::size_t> last_hit_{0};
};

class GpuMemory {
 public:
  GpuMemory(std::uint64_t va_start, std::uint64_t va_size);

  // Not va_start(): <cstdarg> makes that name a macro wherever it is included (as clang's
  // headers do in the fuzz build).
  std::uint64_t va_begin() const noexcept { return va_start_; }
  std::uint64_t va_size() const noexcept { return va_size_; }

  /// Maps `size` bytes of `backing` from `offset` at a free VA aligned to `align` (a power of
  /// two, at least a page). Returns nullopt when the address space has no room.
  std::optional<std::uint64_t> map(std::shared_ptr<Backing> backing, std::uint64_t offset,
                                   std::uint64_t size, bool gpu_writable, std::uint64_t align = kPageSize);
  /// Removes the mapping that starts at `va`; false if there is none.
  bool unmap(std::uint64_t va);
  /// Number of live mappings (for the ledger).
  std::size_t mapping_count() const;

 private:
  struct Mapping {
    std::uint64_t size;
    std::shared_ptr<Backing> backing;
    std::uint64_t offset;
    bool writable;
  };
  friend class GpuView;
  // Calls `chunk(host, length)` for each piece of [va, va+size); faults on a hole, and on a
  // piece outside `allowed` when that is set.
  template <typename Chunk>
  void walk(std::uint64_t va, std::size_t size, bool write, const AddressRanges* allowed, Chunk&& chunk) const;

  std::uint64_t va_start_;
  std::uint64_t va_size_;
  mutable std::shared_mutex mutex_;
  RangeAllocator va_;
  std::map<std::uint64_t, Mapping> mappings_;  // keyed by start VA
};

/// What the GPU reaches of an address space while it runs one submission: all of it, or only
/// `allowed` (an access elsewhere faults even where memory is mapped). Every access the command
/// and shader processors make goes through one; the shader processors' go through `cache` (UCHE)
/// when there is one, after the same page-table checks.
class GpuView {
 public:
  explicit GpuView(const GpuMemory& memory, const AddressRanges* allowed = nullptr, Uche* cache = nullptr) noexcept
      : memory_(&memory), allowed_(allowed), cache_(cache) {}

  // Throw GpuFault(page_fault) on an unmapped address, a write to a read-only mapping or an
  // address outside `allowed`; accesses may span adjacent mappings.
  void read(std::uint64_t va, void* dst, std::size_t size) const;
  void write(std::uint64_t va, const void* src, std::size_t size) const;
  std::uint32_t read32(std::uint64_t va) const;
  std::uint64_t read64(std::uint64_t va) const;
  void write32(std::uint64_t va, std::uint32_t value) const;
  void write64(std::uint64_t va, std::uint64_t value) const;

  /// Host pointer to [va, va+size) when it lies inside one mapping and the access is allowed;
  /// throws GpuFault otherwise. For hot paths (shader memory, IB fetch) that touch one buffer.
  /// Through a cache the pointer is the cached copy, and the access must also lie inside one
  /// cache line (GpuFault otherwise: use read/write).
  std::byte* translate(std::uint64_t va, std::size_t size, bool write) const;

 private:
  std::byte* translate_uncached(std::uint64_t va, std::size_t size, bool write) const;
  /// Calls `piece(va, length)` for the parts of [va, va+size) that lie in one cache line each.
  template <typename Piece>
  static void for_each_line(std::uint64_t va, std::size_t size, Piece&& piece);

  const GpuMemory* memory_;
  const AddressRanges* allowed_;
  Uche* cache_;
};

}  // namespace adreno::virt
