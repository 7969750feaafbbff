// One GPU address space: a VA allocator and a page table with permissions over host backing.
// Like the drivers' per-process pagetables, each open device file gets its own. The GPU reaches
// it through a GpuView; accesses that hit no mapping, or write a read-only one, are page faults:
// either fatal to the submission (GpuFault), or — as the drivers' IOMMU setup has it by default —
// recorded while the GPU goes on (PageFaults).
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
#include <mutex>
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
  bool contains(std::uint64_t va, std::uint64_t size) const noexcept { return containing(va, size) != nullptr; }
  /// The range [va, va + size) lies inside, or null.
  const Range* containing(std::uint64_t va, std::uint64_t size) const noexcept;

 private:
  std::vector<Range> ranges_;  // sorted by start
  // Shared by the shader processor's threads; a stale hint only costs a search.
  mutable std::atomic<std::size_t> last_hit_{0};
};

/// The page faults of one submission on an IOMMU that does not stall on a fault: the faulting
/// read returns zeros, the faulting write is dropped, and the GPU carries on. That is what both
/// drivers set up by default — KGSL without KGSL_FT_PAGEFAULT_GPUHALT_ENABLE (kgsl_mmu.h
/// KGSL_FT_PAGEFAULT_DEFAULT_POLICY 0: kgsl_iommu.c kgsl_iommu_fault_handler logs and returns 0),
/// msm resuming translation after adreno_gpu.c adreno_fault_handler logged. A page is reported
/// once per submission, at the lowest faulting address seen in it, whichever thread got there
/// first (the shader processor's threads record concurrently).
class PageFaults {
 public:
  struct Fault {
    std::uint64_t address;
    bool write;
    bool permission;  // a mapped page the access may not make; else no translation
    const char* reason;
  };
  void record(const Fault& fault);
  /// The faults by address, and forgets them.
  std::vector<Fault> take();

 private:
  std::mutex mutex_;
  std::map<std::uint64_t, Fault> by_page_;
};

/// The last translation shader accesses made, reused by the next ones while they stay inside
/// it: the page-table walk, the submission's address ranges and the cache lookup are what a
/// shader memory access costs, and the fibers of one instruction — and the same instruction in
/// the next work groups — mostly touch one buffer and few cache lines. It holds the mapping's
/// bytes alive, and is renewed once a mapping was removed since it was made (the page table can
/// change while shaders run: an unmapped buffer faults from the next access on). It belongs to
/// one submission's view (the ranges it allows) and, through a cache, to one dispatch (the
/// cache block it found is dropped between dispatches).
class TranslationMemo {
 private:
  friend class GpuMemory;
  friend class GpuView;
  bool covers(std::uint64_t va, std::size_t size, bool write, std::uint64_t unmaps) const noexcept {
    return va >= begin_ && va - begin_ < end_ - begin_ && size <= end_ - va && (writable_ || !write) && unmaps == unmaps_;
  }
  std::uint64_t begin_ = 0, end_ = 0;  // VA window: inside one mapping and one allowed range
  std::byte* host_ = nullptr;          // host address of begin_
  bool writable_ = false;
  std::uint64_t unmaps_ = 0;  // GpuMemory::unmaps() when the window was made
  std::shared_ptr<const Backing> keep_;
  Uche::BlockHint block_;
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
  /// How many mappings were removed so far: a translation made before the count changed is renewed.
  std::uint64_t unmaps() const noexcept { return unmaps_.load(std::memory_order_acquire); }

 private:
  struct Mapping {
    std::uint64_t size;
    std::shared_ptr<Backing> backing;
    std::uint64_t offset;
    bool writable;
  };
  friend class GpuView;
  // Calls `chunk(host, length)` for each piece of [va, va+size). A hole, or a write to a
  // read-only mapping, throws GpuFault — or, with `faults`, is recorded there and reaches
  // `chunk` with a null host pointer. With `allowed`, a piece outside it always throws when it
  // is mapped or was mapped since its VA was last handed out (a freed object's address).
  template <typename Chunk>
  void walk(std::uint64_t va, std::size_t size, bool write, const AddressRanges* allowed, PageFaults* faults,
            Chunk&& chunk) const;

  std::uint64_t va_start_;
  std::uint64_t va_size_;
  /// Sets `memo`'s window to the largest range around [va, va + size) that one mapping holds
  /// and `allowed` allows (writable when the mapping is); false when the access would fault or
  /// spans mappings (the caller takes the checked path, which reports it).
  bool window(std::uint64_t va, std::size_t size, bool write, const AddressRanges* allowed, TranslationMemo& memo) const;
  /// Whether [va, va + size) meets a range in freed_.
  bool was_mapped(std::uint64_t va, std::uint64_t size) const;

  mutable std::shared_mutex mutex_;
  RangeAllocator va_;
  std::map<std::uint64_t, Mapping> mappings_;  // keyed by start VA
  std::map<std::uint64_t, std::uint64_t> freed_;  // start → end: unmapped, not handed out again
  std::atomic<std::uint64_t> unmaps_{0};  // changed with mappings_, under the mutex held exclusively
};

/// What the GPU reaches of an address space while it runs one submission: all of it, or only
/// `allowed` (an access elsewhere faults even where memory is mapped). Every access the command
/// and shader processors make goes through one; the shader processors' go through `cache` (UCHE)
/// when there is one, after the same page-table checks. With `faults`, unmapped and read-only
/// accesses are recorded there and the access goes on (reads see zeros, writes are dropped);
/// an access outside `allowed` to memory that is, or was until freed, mapped stays fatal.
class GpuView {
 public:
  explicit GpuView(const GpuMemory& memory, const AddressRanges* allowed = nullptr, Uche* cache = nullptr,
                   PageFaults* faults = nullptr) noexcept
      : memory_(&memory), allowed_(allowed), cache_(cache), faults_(faults) {}

  // Throw GpuFault(page_fault) on an unmapped address, a write to a read-only mapping (both
  // only without `faults`) or an address outside `allowed`; accesses may span adjacent mappings.
  void read(std::uint64_t va, void* dst, std::size_t size) const;
  void write(std::uint64_t va, const void* src, std::size_t size) const;
  std::uint32_t read32(std::uint64_t va) const;
  std::uint64_t read64(std::uint64_t va) const;
  void write32(std::uint64_t va, std::uint32_t value) const;
  void write64(std::uint64_t va, std::uint64_t value) const;

  /// Host pointer to [va, va+size) when it lies inside one mapping and the access is allowed;
  /// throws GpuFault otherwise. For hot paths (shader memory, IB fetch) that touch one buffer.
  /// Through a cache the pointer is the cached copy, and the access must also lie inside one
  /// cache line (GpuFault otherwise: use read/write). A page fault recorded in `faults` yields
  /// this thread's scratch bytes instead: zeros to read, a sink to write; valid until the next
  /// faulting translate on the thread.
  std::byte* translate(std::uint64_t va, std::size_t size, bool write) const;
  /// The same, reusing `memo`'s translation when the access lies inside it (else renewing it).
  std::byte* translate(std::uint64_t va, std::size_t size, bool write, TranslationMemo& memo) const;
  /// The loads of `unit` bytes each that lanes make from consecutive addresses from `va`, up
  /// to `size` bytes in all, taken at once: the host (through a cache: cached) bytes of as many
  /// of them as `memo`'s window holds — renewed around `va` when it does not hold it — and,
  /// through a cache, one cache block holds. Their number goes to `accesses`; none when the
  /// first would fault or spans mappings, or, through a cache, when `unit` does not divide a
  /// line or the bytes are not aligned to `unit` (an access could then cross a line): those
  /// take the one-access path, which reports them.
  std::byte* load_run(std::uint64_t va, std::size_t size, std::size_t unit, TranslationMemo& memo,
                      std::size_t& accesses) const;
  /// The stores of such a run, their `size` bytes at hand in `bytes`: writes as many of them as
  /// load_run would take (writable) and returns their number (none: take the one-access path).
  /// Through a cache, the lines they write whole are not filled from memory first.
  std::size_t store_run(std::uint64_t va, const std::byte* bytes, std::size_t size, std::size_t unit,
                        TranslationMemo& memo) const;

 private:
  /// A run's host bytes before the cache, and the number of accesses they hold.
  std::byte* run_bytes(std::uint64_t va, std::size_t size, std::size_t unit, bool write, TranslationMemo& memo,
                       std::size_t& accesses) const;
  /// The host bytes, or nullptr when the access page-faulted into `faults_`.
  std::byte* translate_uncached(std::uint64_t va, std::size_t size, bool write) const;
  /// Calls `piece(va, length)` for the parts of [va, va+size) that lie in one cache line each.
  template <typename Piece>
  static void for_each_line(std::uint64_t va, std::size_t size, Piece&& piece);

  const GpuMemory* memory_;
  const AddressRanges* allowed_;
  Uche* cache_;
  PageFaults* faults_;
};

}  // namespace adreno::virt
