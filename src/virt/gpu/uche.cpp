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
  if (table.empty()) return nullptr;
  for (std::size_t i = first_slot(key, table.size());; i = (i + 1) & (table.size() - 1)) {
    if (table[i] == nullptr || address_of(table[i]->home) == key) return table[i];
  }
}

void Uche::Shard::insert(Block* block) {
  if (2 * used > table.size()) {  // `used` counts `block`: grow to keep the table at most half full
    std::vector<Block*> old(std::max<std::size_t>(64, 2 * table.size()), nullptr);
    old.swap(table);
    for (Block* kept : old)
      if (kept != nullptr) insert(kept);
  }
  std::size_t i = first_slot(address_of(block->home), table.size());
  while (table[i] != nullptr) i = (i + 1) & (table.size() - 1);
  table[i] = block;
}

Uche::Block* Uche::find(std::uintptr_t key) {
  Shard& shard = shard_of(key);  // consecutive blocks, consecutive shards
  {
    std::shared_lock lock(shard.mutex);
    if (Block* block = shard.lookup(key)) return block;
  }
  std::unique_lock lock(shard.mutex);
  if (Block* block = shard.lookup(key)) return block;  // another thread took it meanwhile
  // A block with no valid line: lines are filled as accesses reach them.
  Block* block = shard.used < shard.storage.size() ? &shard.storage[shard.used] : &shard.storage.emplace_back();
  ++shard.used;
  block->home = reinterpret_cast<std::byte*>(key);
  block->valid.store(0, std::memory_order_relaxed);
  for (auto& dirty : block->dirty) dirty.store(0, std::memory_order_relaxed);
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

void Uche::fill(Block& block, std::uint64_t lines) {
  std::unique_lock lock(shard_of(address_of(block.home)).mutex);
  const std::uint64_t missing = lines & ~block.valid.load(std::memory_order_relaxed);
  for (std::uint64_t left = missing; left != 0; left &= left - 1) {
    const auto offset = static_cast<std::size_t>(std::countr_zero(left)) * kLineBytes;
    std::memcpy(block.data + offset, block.home + offset, kLineBytes);  // lines never cross a page
  }
  block.valid.fetch_or(missing, std::memory_order_release);
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
  if (store) {
    for (std::size_t line = first, at = offset, end = offset + size; line <= last; ++line) {
      const std::size_t upto = std::min(end, (line + 1) * kLineBytes);
      block.dirty[line].fetch_or(byte_mask(at % kLineBytes, upto - at), std::memory_order_relaxed);
      at = upto;
    }
  }
  return block.data + offset;
}

void Uche::clean() {
  for (Shard& shard : shards_) {
    std::unique_lock lock(shard.mutex);
    for (std::size_t i = 0; i < shard.used; ++i) {
      Block& block = shard.storage[i];
      for (std::uint64_t lines = block.valid.load(std::memory_order_relaxed); lines != 0; lines &= lines - 1) {
        const auto line = static_cast<std::size_t>(std::countr_zero(lines));
        if (block.dirty[line].load(std::memory_order_relaxed) == 0) continue;
        std::uint64_t dirty = block.dirty[line].exchange(0, std::memory_order_relaxed);
        std::byte* const home = block.home + line * kLineBytes;
        const std::byte* const data = block.data + line * kLineBytes;
        while (dirty != 0) {  // each run of dirty bytes
          const auto first = static_cast<std::size_t>(std::countr_zero(dirty));
          const auto length = static_cast<std::size_t>(std::countr_one(dirty >> first));
          std::memcpy(home + first, data + first, length);
          dirty = first + length >= 64 ? 0 : dirty & (~0ull << (first + length));
        }
      }
    }
  }
}

void Uche::invalidate() {
  clean();
  discard();
}

void Uche::discard() {
  for (Shard& shard : shards_) {
    std::unique_lock lock(shard.mutex);
    std::fill(shard.table.begin(), shard.table.end(), nullptr);
    if (shard.used < shard.storage.size() / 2) {  // mostly idle: give the spare blocks back
      while (shard.storage.size() > shard.used) shard.storage.pop_back();
      shard.table = std::vector<Block*>();
    }
    shard.used = 0;
  }
}

}  // namespace adreno::virt
