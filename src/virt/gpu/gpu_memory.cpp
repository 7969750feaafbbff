#include "virt/gpu/gpu_memory.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

namespace adreno::virt {

const char* to_string(FaultKind kind) noexcept {
  switch (kind) {
    case FaultKind::page_fault: return "GPU page fault";
    case FaultKind::cp_error: return "CP error";
    case FaultKind::hang: return "GPU hang";
    case FaultKind::shader_error: return "shader error";
  }
  return "GPU fault";
}

std::string GpuFault::hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

namespace {
std::uint64_t align_up(std::uint64_t value, std::uint64_t align) { return (value + align - 1) & ~(align - 1); }

/// What a faulting access reaches instead of memory, per thread: zeros to read (never written),
/// and somewhere to drop a write.
std::byte* fault_scratch(std::size_t size, bool write) {
  thread_local std::vector<std::byte> zeros, sink;
  std::vector<std::byte>& scratch = write ? sink : zeros;
  if (scratch.size() < size) scratch.resize(size);
  return scratch.data();
}

// A dword or qword at its natural alignment moves in one bus transaction, which the CPU observes
// whole: the timeline values the CP writes (clean events, one dword of a signal each) and the
// host-set signals it polls (CP_WAIT_REG_MEM, CP_WAIT_MEM_GTE). Such accesses are
// release stores and acquire loads, which pair with the host's std::atomic_ref accesses to the
// same value (src/core/signal.cpp) and order what the GPU wrote before; anything else is a copy.
template <typename Word>
bool whole_word(const std::byte* host, std::size_t length) {
  return length == sizeof(Word) && reinterpret_cast<std::uintptr_t>(host) % sizeof(Word) == 0;
}
template <typename Word>
void store_release(std::byte* host, const std::byte* from) {
  Word value;
  std::memcpy(&value, from, sizeof value);
  std::atomic_ref<Word>(*reinterpret_cast<Word*>(host)).store(value, std::memory_order_release);
}
template <typename Word>
void load_acquire(std::byte* to, std::byte* host) {
  const Word value = std::atomic_ref<Word>(*reinterpret_cast<Word*>(host)).load(std::memory_order_acquire);
  std::memcpy(to, &value, sizeof value);
}
void copy_to_memory(std::byte* host, const std::byte* from, std::size_t length) {
  if (whole_word<std::uint64_t>(host, length)) return store_release<std::uint64_t>(host, from);
  if (whole_word<std::uint32_t>(host, length)) return store_release<std::uint32_t>(host, from);
  std::memcpy(host, from, length);
}
void copy_from_memory(std::byte* to, std::byte* host, std::size_t length) {
  if (whole_word<std::uint64_t>(host, length)) return load_acquire<std::uint64_t>(to, host);
  if (whole_word<std::uint32_t>(host, length)) return load_acquire<std::uint32_t>(to, host);
  std::memcpy(to, host, length);
}
}  // namespace

void PageFaults::record(const Fault& fault) {
  std::lock_guard lock(mutex_);
  auto [it, added] = by_page_.try_emplace(fault.address / kPageSize, fault);
  if (!added && fault.address < it->second.address) it->second = fault;
}

std::vector<PageFaults::Fault> PageFaults::take() {
  std::lock_guard lock(mutex_);
  std::vector<Fault> faults;
  faults.reserve(by_page_.size());
  for (const auto& [page, fault] : by_page_) faults.push_back(fault);
  by_page_.clear();
  return faults;
}

AddressRanges::AddressRanges(std::vector<Range> ranges) : ranges_(std::move(ranges)) {
  std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
}

const AddressRanges::Range* AddressRanges::containing(std::uint64_t va, std::uint64_t size) const noexcept {
  auto inside = [&](const Range& range) {
    return va >= range.start && va - range.start < range.size && size <= range.size - (va - range.start);
  };
  const std::size_t hint = last_hit_.load(std::memory_order_relaxed);
  if (hint < ranges_.size() && inside(ranges_[hint])) return &ranges_[hint];
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), va, [](std::uint64_t v, const Range& range) { return v < range.start; });
  if (it == ranges_.begin() || !inside(*--it)) return nullptr;
  last_hit_.store(static_cast<std::size_t>(it - ranges_.begin()), std::memory_order_relaxed);
  return &*it;
}

GpuMemory::GpuMemory(std::uint64_t va_start, std::uint64_t va_size)
    : va_start_(va_start), va_size_(va_size), va_(va_start, va_size) {}

std::optional<std::uint64_t> GpuMemory::map(std::shared_ptr<Backing> backing, std::uint64_t offset,
                                            std::uint64_t size, bool gpu_writable, std::uint64_t align) {
  if (size == 0 || align < kPageSize) return std::nullopt;
  std::unique_lock lock(mutex_);
  const std::uint64_t length = align_up(size, kPageSize);
  auto va = va_.allocate(length, align);
  if (!va) return va;
  mappings_.emplace(*va, Mapping{size, std::move(backing), offset, gpu_writable});
  // The range is handed out again: whatever was freed there is forgotten, pieces around it kept.
  const std::uint64_t end = *va + length;
  auto it = freed_.upper_bound(*va);
  if (it != freed_.begin() && std::prev(it)->second > *va) --it;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> kept;
  while (it != freed_.end() && it->first < end) {
    if (it->first < *va) kept.emplace_back(it->first, *va);
    if (it->second > end) kept.emplace_back(end, it->second);
    it = freed_.erase(it);
  }
  freed_.insert(kept.begin(), kept.end());
  return va;
}

bool GpuMemory::unmap(std::uint64_t va) {
  std::unique_lock lock(mutex_);
  auto it = mappings_.find(va);
  if (it == mappings_.end()) return false;
  std::uint64_t start = va, end = va + align_up(it->second.size, kPageSize);
  va_.free(va, end - va);
  mappings_.erase(it);
  unmaps_.fetch_add(1, std::memory_order_release);
  // Remember the range, merged with freed neighbours.
  auto next = freed_.lower_bound(start);
  if (next != freed_.end() && next->first == end) {
    end = next->second;
    next = freed_.erase(next);
  }
  if (next != freed_.begin() && std::prev(next)->second == start) {
    start = std::prev(next)->first;
    freed_.erase(std::prev(next));
  }
  freed_.emplace(start, end);
  return true;
}

bool GpuMemory::was_mapped(std::uint64_t va, std::uint64_t size) const {
  auto it = freed_.upper_bound(va);
  if (it != freed_.begin() && std::prev(it)->second > va) return true;
  return it != freed_.end() && it->first < va + size;
}

bool GpuMemory::window(std::uint64_t va, std::size_t size, bool write, const AddressRanges* allowed,
                       TranslationMemo& memo) const {
  std::shared_lock lock(mutex_);
  auto next = mappings_.upper_bound(va);
  if (next == mappings_.begin()) return false;
  const auto& [start, mapping] = *std::prev(next);
  if (va - start >= mapping.size || size > mapping.size - (va - start) || (write && !mapping.writable)) return false;
  std::uint64_t begin = start, end = start + mapping.size;
  if (allowed != nullptr) {
    const AddressRanges::Range* range = allowed->containing(va, size);
    if (range == nullptr) return false;
    begin = std::max(begin, range->start);
    end = std::min(end, range->start + range->size);
  }
  memo.begin_ = begin;
  memo.end_ = end;
  memo.host_ = mapping.backing->host() + mapping.offset + (begin - start);
  memo.writable_ = mapping.writable;
  memo.unmaps_ = unmaps_.load(std::memory_order_relaxed);
  memo.keep_ = mapping.backing;
  return true;
}

std::size_t GpuMemory::mapping_count() const {
  std::shared_lock lock(mutex_);
  return mappings_.size();
}

template <typename Chunk>
void GpuMemory::walk(std::uint64_t va, std::size_t size, bool write, const AddressRanges* allowed, PageFaults* faults,
                     Chunk&& chunk) const {
  std::shared_lock lock(mutex_);
  while (size > 0) {
    auto next = mappings_.upper_bound(va);
    const char* fault = nullptr;
    std::size_t length = size;
    std::byte* host = nullptr;
    if (next == mappings_.begin() || va - std::prev(next)->first >= std::prev(next)->second.size) {
      fault = "unmapped address";  // the hole reaches the next mapping
      if (next != mappings_.end()) length = std::min<std::uint64_t>(size, next->first - va);
    } else {
      const auto& [start, mapping] = *std::prev(next);
      length = std::min<std::uint64_t>(size, mapping.size - (va - start));
      if (write && !mapping.writable) fault = "write to a GPU read-only buffer";
      host = mapping.backing->host() + mapping.offset + (va - start);
    }
    if (allowed != nullptr) {
      if (host == nullptr && was_mapped(va, length)) {
        throw GpuFault(FaultKind::page_fault, va, "not in the submission's bo table (a freed object's address)");
      }
      if (host != nullptr && !allowed->contains(va, length)) {
        throw GpuFault(FaultKind::page_fault, va, "not in the submission's bo table");
      }
    }
    if (fault != nullptr) {
      if (faults == nullptr) throw GpuFault(FaultKind::page_fault, va, fault);
      faults->record(PageFaults::Fault{va, write, host != nullptr, fault});
      host = nullptr;
    }
    chunk(host, length);
    va += length;
    size -= length;
  }
}

template <typename Piece>
void GpuView::for_each_line(std::uint64_t va, std::size_t size, Piece&& piece) {
  while (size > 0) {
    const std::size_t length = std::min<std::uint64_t>(size, Uche::kLineBytes - va % Uche::kLineBytes);
    piece(va, length);
    va += length;
    size -= length;
  }
}

void GpuView::read(std::uint64_t va, void* dst, std::size_t size) const {
  auto* out = static_cast<std::byte*>(dst);
  if (cache_ != nullptr) {
    for_each_line(va, size, [&](std::uint64_t at, std::size_t length) {
      std::memcpy(out, translate(at, length, false), length);
      out += length;
    });
    return;
  }
  memory_->walk(va, size, false, allowed_, faults_, [&](std::byte* host, std::size_t length) {
    if (host != nullptr) {
      copy_from_memory(out, host, length);
    } else {
      std::memset(out, 0, length);
    }
    out += length;
  });
}

void GpuView::write(std::uint64_t va, const void* src, std::size_t size) const {
  const auto* in = static_cast<const std::byte*>(src);
  if (cache_ != nullptr) {
    for_each_line(va, size, [&](std::uint64_t at, std::size_t length) {
      std::memcpy(translate(at, length, true), in, length);
      in += length;
    });
    return;
  }
  memory_->walk(va, size, true, allowed_, faults_, [&](std::byte* host, std::size_t length) {
    if (host != nullptr) copy_to_memory(host, in, length);
    in += length;
  });
}

std::uint32_t GpuView::read32(std::uint64_t va) const {
  std::uint32_t value;
  read(va, &value, sizeof value);
  return value;
}

std::uint64_t GpuView::read64(std::uint64_t va) const {
  std::uint64_t value;
  read(va, &value, sizeof value);
  return value;
}

void GpuView::write32(std::uint64_t va, std::uint32_t value) const { write(va, &value, sizeof value); }
void GpuView::write64(std::uint64_t va, std::uint64_t value) const { write(va, &value, sizeof value); }

std::byte* GpuView::translate(std::uint64_t va, std::size_t size, bool write) const {
  std::byte* const host = translate_uncached(va, size, write);
  if (host == nullptr) return fault_scratch(size, write);  // the IOMMU answered, not memory: no cache line
  if (cache_ == nullptr) return host;
  // Page-aligned mappings keep a line's GPU and host offsets equal, so one GPU line is one host line.
  if (!Uche::in_one_line(host, size)) throw GpuFault(FaultKind::page_fault, va, "cached access spans two cache lines");
  return cache_->access(host, size, write);
}

std::byte* GpuView::translate(std::uint64_t va, std::size_t size, bool write, TranslationMemo& memo) const {
  if (!memo.covers(va, size, write, memory_->unmaps()) && !memory_->window(va, size, write, allowed_, memo)) {
    return translate(va, size, write);  // faults, and accesses across mappings, as they always are
  }
  std::byte* const host = memo.host_ + (va - memo.begin_);
  if (cache_ == nullptr) return host;
  if (!Uche::in_one_line(host, size)) throw GpuFault(FaultKind::page_fault, va, "cached access spans two cache lines");
  return cache_->access(host, size, write, memo.block_);
}

std::byte* GpuView::run_bytes(std::uint64_t va, std::size_t size, std::size_t unit, bool write, TranslationMemo& memo,
                              std::size_t& accesses) const {
  accesses = 0;
  if (!memo.covers(va, unit, write, memory_->unmaps()) && !memory_->window(va, unit, write, allowed_, memo)) return nullptr;
  std::byte* const host = memo.host_ + (va - memo.begin_);
  std::size_t length = std::min<std::uint64_t>(size, memo.end_ - va);
  if (cache_ != nullptr) {
    const auto at = reinterpret_cast<std::uintptr_t>(host);
    if (Uche::kLineBytes % unit != 0 || at % unit != 0) return nullptr;
    length = std::min(length, Uche::kBlockBytes - at % Uche::kBlockBytes);
  }
  accesses = length / unit;
  return accesses == 0 ? nullptr : host;
}

std::byte* GpuView::load_run(std::uint64_t va, std::size_t size, std::size_t unit, TranslationMemo& memo,
                             std::size_t& accesses) const {
  std::byte* const host = run_bytes(va, size, unit, false, memo, accesses);
  if (host == nullptr || cache_ == nullptr) return host;
  return cache_->access(host, accesses * unit, false, memo.block_);
}

std::size_t GpuView::store_run(std::uint64_t va, const std::byte* bytes, std::size_t size, std::size_t unit,
                               TranslationMemo& memo) const {
  std::size_t accesses = 0;
  std::byte* const host = run_bytes(va, size, unit, true, memo, accesses);
  if (host == nullptr) return 0;
  if (cache_ == nullptr) {
    std::memcpy(host, bytes, accesses * unit);
  } else {
    cache_->store(host, bytes, accesses * unit, memo.block_);
  }
  return accesses;
}

std::byte* GpuView::translate_uncached(std::uint64_t va, std::size_t size, bool write) const {
  std::byte* result = nullptr;
  std::size_t pieces = 0;
  memory_->walk(va, size, write, allowed_, faults_, [&](std::byte* host, std::size_t) {
    if (pieces++ == 0) result = host;
  });
  if (pieces > 1) throw GpuFault(FaultKind::page_fault, va, "access spans two buffer objects");
  return result;
}

}  // namespace adreno::virt
