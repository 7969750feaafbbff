#include "virt/gpu/uche.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>

namespace adreno::virt {
namespace {

std::uintptr_t address_of(const std::byte* host) { return reinterpret_cast<std::uintptr_t>(host); }
std::uintptr_t line_of(const std::byte* host) { return address_of(host) & ~(Uche::kLineBytes - 1); }
std::uintptr_t block_of(const std::byte* host) { return address_of(host) & ~(Uche::kBlockBytes - 1); }

std::uint64_t byte_mask(std::size_t offset, std::size_t size) {
  const std::uint64_t bits = size >= 64 ? ~0ull : (1ull << size) - 1;
  return bits << offset;
}

// Within a shard, a multiplicative hash of the block number picks the first table slot.
std::size_t first_slot(std::uintptr_t key, std::size_t table_size) noexcept {
  return static_cast<std::size_t>(((key / Uche::kBlockBytes) * 0x9e3779b97f4a7c15ull) >> 24) & (table_size - 1);
}

}  // namespace

bool Uche::in_one_line(const std::byte* host, std::size_t size) noexcept {
  return size != 0 && line_of(host) == line_of(host + size - 1);
}

bool Uche::in_one_block(const std::byte* host, std::size_t size) noexcept {
  return size != 0 && block_of(host) == block_of(host + size - 1);
}

Uche::Block* Uche::Shard::lookup(std::uintptr_t key) const noexcept {
  const Table* const current = table.load(std::memory_order_acquire);
  if (current == nullptr) return nullptr;
  const std::size_t mask = current->slots.size() - 1;
  for (std::size_t i = first_slot(key, current->slots.size());; i = (i + 1) & mask) {
    // Acquire: the block's home was set before the release that put it here.
    Block* const block = current->slots[i].load(std::memory_order_acquire);
    if (block == nullptr || address_of(block->home) == key) return block;
  }
}

void Uche::Shard::insert(Block* block) {
  Table* current = table.load(std::memory_order_relaxed);
  if (current == nullptr || 2 * used > current->slots.size()) {
    // `used` counts `block`: grow to keep the table at most half full, into a new table that
    // lookups see once it holds every block; they may still be reading the old one.
    auto grown = std::make_unique<Table>(current == nullptr ? 64 : 2 * current->slots.size());
    const std::size_t mask = grown->slots.size() - 1;
    if (current != nullptr) {
      for (const std::atomic<Block*>& slot : current->slots) {
        Block* const kept = slot.load(std::memory_order_relaxed);
        if (kept == nullptr) continue;
        std::size_t i = first_slot(address_of(kept->home), grown->slots.size());
        while (grown->slots[i].load(std::memory_order_relaxed) != nullptr) i = (i + 1) & mask;
        grown->slots[i].store(kept, std::memory_order_relaxed);
      }
    }
    current = grown.get();
    tables.push_back(std::move(grown));
    table.store(current, std::memory_order_release);
  }
  const std::size_t mask = current->slots.size() - 1;
  std::size_t i = first_slot(address_of(block->home), current->slots.size());
  while (current->slots[i].load(std::memory_order_relaxed) != nullptr) i = (i + 1) & mask;
  current->slots[i].store(block, std::memory_order_release);
}

Uche::Block* Uche::find(std::uintptr_t key) {
  Shard& shard = shard_of(key);  // consecutive blocks, consecutive shards
  if (Block* block = shard.lookup(key)) return block;
  std::lock_guard lock(shard.mutex);
  if (Block* block = shard.lookup(key)) return block;  // another thread added it meanwhile
  // A block with no valid line: lines are filled as accesses reach them.
  Block* block = shard.used < shard.storage.size() ? &shard.storage[shard.used] : &shard.storage.emplace_back();
  ++shard.used;
  block->home = reinterpret_cast<std::byte*>(key);
  block->valid.store(0, std::memory_order_relaxed);  // dirty_lines and dirty are clear (uche.h)
  shard.insert(block);
  return block;
}

Uche::Block* Uche::block_for(std::byte* host, BlockHint& hint) {
  const std::uintptr_t key = block_of(host);
  if (hint.block_ == nullptr || hint.key_ != key) {
    hint.key_ = key;
    hint.block_ = find(key);
  }
  return hint.block_;
}

void Uche::copy_lines(Block& block, std::uint64_t lines) {
  for (std::uint64_t left = lines; left != 0;) {  // each run of lines, in one copy
    const auto first = static_cast<std::size_t>(std::countr_zero(left));
    const auto count = static_cast<std::size_t>(std::countr_one(left >> first));
    std::memcpy(block.data + first * kLineBytes, block.home + first * kLineBytes, count * kLineBytes);  // within a page
    left = first + count >= 64 ? 0 : left & (~0ull << (first + count));
  }
}

void Uche::fill(Block& block, std::uint64_t lines) {
  std::lock_guard lock(block.filling);
  const std::uint64_t missing = lines & ~block.valid.load(std::memory_order_relaxed);
  copy_lines(block, missing);
  block.valid.fetch_or(missing, std::memory_order_release);
}

void Uche::mark_dirty(Block& block, std::size_t offset, std::size_t size) {
  const std::size_t first = offset / kLineBytes, last = (offset + size - 1) / kLineBytes;
  const std::uint64_t lines = byte_mask(first, last - first + 1);
  if ((block.dirty_lines.load(std::memory_order_relaxed) & lines) != lines) {
    block.dirty_lines.fetch_or(lines, std::memory_order_relaxed);
  }
  for (std::size_t line = first, at = offset, end = offset + size; line <= last; ++line) {
    const std::size_t upto = std::min(end, (line + 1) * kLineBytes);
    if (upto - at == kLineBytes) {
      // Every bit: whatever another thread's store adds to the line's mask meanwhile, the union
      // is this, so a plain store does.
      block.dirty[line].store(~0ull, std::memory_order_relaxed);
    } else {
      block.dirty[line].fetch_or(byte_mask(at % kLineBytes, upto - at), std::memory_order_relaxed);
    }
    at = upto;
  }
}

std::byte* Uche::access(std::byte* host, std::size_t size, bool store) {
  BlockHint hint;
  return access(host, size, store, hint);
}

std::byte* Uche::access(std::byte* host, std::size_t size, bool store, BlockHint& hint) {
  Block& block = *block_for(host, hint);
  const std::size_t offset = address_of(host) - address_of(block.home);
  const std::size_t first = offset / kLineBytes, last = (offset + size - 1) / kLineBytes;
  const std::uint64_t lines = byte_mask(first, last - first + 1);
  if ((block.valid.load(std::memory_order_acquire) & lines) != lines) fill(block, lines);
  if (store) mark_dirty(block, offset, size);
  return block.data + offset;
}

void Uche::store(std::byte* host, const std::byte* bytes, std::size_t size, BlockHint& hint) {
  Block& block = *block_for(host, hint);
  const std::size_t offset = address_of(host) - address_of(block.home);
  const std::size_t first = offset / kLineBytes, last = (offset + size - 1) / kLineBytes;
  const std::uint64_t lines = byte_mask(first, last - first + 1);
  if ((block.valid.load(std::memory_order_acquire) & lines) == lines) {
    std::memcpy(block.data + offset, bytes, size);
  } else {
    // The bytes go in before the lines are marked valid, under the lock a reader of an invalid
    // line takes: a line no other thread filled first holds them when anyone reads it.
    std::lock_guard lock(block.filling);
    const std::uint64_t missing = lines & ~block.valid.load(std::memory_order_relaxed);
    const std::size_t whole_first = (offset + kLineBytes - 1) / kLineBytes, whole_end = (offset + size) / kLineBytes;
    const std::uint64_t whole = whole_end > whole_first ? byte_mask(whole_first, whole_end - whole_first) : 0;
    copy_lines(block, missing & ~whole);
    std::memcpy(block.data + offset, bytes, size);
    block.valid.fetch_or(missing, std::memory_order_release);
  }
  mark_dirty(block, offset, size);
}

// clean() and discard() run on the command processor's thread while no shader does (between
// dispatches, after the shader processor's threads were joined): nothing changes a mask under
// them, so they read and clear it with plain atomic loads and stores, no read-modify-write.
void Uche::clean() {
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    for (std::size_t i = 0; i < shard.used; ++i) {
      Block& block = shard.storage[i];
      const std::uint64_t dirty_lines = block.dirty_lines.load(std::memory_order_relaxed);
      if (dirty_lines == 0) continue;
      block.dirty_lines.store(0, std::memory_order_relaxed);
      // Lines wholly dirty are copied in runs; the others byte run by byte run.
      std::size_t whole_from = 0, whole_lines = 0;
      auto copy_whole = [&] {
        std::memcpy(block.home + whole_from * kLineBytes, block.data + whole_from * kLineBytes, whole_lines * kLineBytes);
        whole_lines = 0;
      };
      for (std::uint64_t lines = dirty_lines; lines != 0; lines &= lines - 1) {
        const auto line = static_cast<std::size_t>(std::countr_zero(lines));
        std::uint64_t dirty = block.dirty[line].load(std::memory_order_relaxed);
        block.dirty[line].store(0, std::memory_order_relaxed);
        if (dirty == ~0ull) {
          if (whole_lines != 0 && whole_from + whole_lines != line) copy_whole();
          if (whole_lines++ == 0) whole_from = line;
          continue;
        }
        std::byte* const home = block.home + line * kLineBytes;
        const std::byte* const data = block.data + line * kLineBytes;
        while (dirty != 0) {  // each run of dirty bytes
          const auto first = static_cast<std::size_t>(std::countr_zero(dirty));
          const auto length = static_cast<std::size_t>(std::countr_one(dirty >> first));
          std::memcpy(home + first, data + first, length);
          dirty = first + length >= 64 ? 0 : dirty & (~0ull << (first + length));
        }
      }
      if (whole_lines != 0) copy_whole();
    }
  }
}

void Uche::invalidate() {
  clean();
  discard();
}

void Uche::discard() {
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    if (shard.tables.empty()) continue;
    // No lookup runs (shaders do not), so the tables replaced by growth go; the newest is
    // emptied for the next submission's blocks, or dropped with them when mostly idle.
    shard.tables.erase(shard.tables.begin(), shard.tables.end() - 1);
    for (std::size_t i = 0; i < shard.used; ++i) {  // the dirty bytes go with their lines
      Block& block = shard.storage[i];
      for (std::uint64_t lines = block.dirty_lines.load(std::memory_order_relaxed); lines != 0; lines &= lines - 1) {
        block.dirty[static_cast<std::size_t>(std::countr_zero(lines))].store(0, std::memory_order_relaxed);
      }
      block.dirty_lines.store(0, std::memory_order_relaxed);
    }
    if (shard.used < shard.storage.size() / 2) {  // mostly idle: give the spare blocks back
      while (shard.storage.size() > shard.used) shard.storage.pop_back();
      shard.tables.clear();
      shard.table.store(nullptr, std::memory_order_relaxed);
    } else {
      for (std::atomic<Block*>& slot : shard.tables.back()->slots) slot.store(nullptr, std::memory_order_relaxed);
    }
    shard.used = 0;
  }
}

}  // namespace adreno::virt
